// What lets a restart serve the snapshot it last published (DESIGN §1): a stamp of every table
// a snapshot is built from, saved with the generation and publish time of each publish. A
// restart whose tables still have that stamp republishes under the same identity, and the
// build is deterministic, so its pages, `refreshed_at` and ETags are the ones already served
// (caches stay valid); any change to the inputs gives a new stamp and a new publish.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BINARY_BUILD } from '../common/runtime.js';
import { VERSION } from '../common/version.js';
import { RAW_AND_REGISTRY_TABLES } from './contentHash.js';
import { getSetting, setSetting } from './settings.js';
import type { Store } from './store.js';

export interface PublishIdentity {
  stamp: string;
  generation: number;
  refreshed_at_s: number;
}

/** The tables a snapshot is built from: registry and raw facts, and the per-chain ingest status. */
const INPUTS = [...RAW_AND_REGISTRY_TABLES, 'ingest_status'] as const;

const KEY = 'publish.identity';

let code: string | null = null;

/**
 * The program that builds snapshots: its version and a hash of the engine's and server's code
 * (another build may compute other pages from the same rows, and must not reuse an identity).
 */
export function codeStamp(): string {
  if (code !== null) return code;
  if (BINARY_BUILD) return (code = BINARY_BUILD.codeStamp);
  const hash = createHash('sha256');
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const walk = (dir: string) => {
    let entries: string[];
    try {
      entries = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of entries) {
      const path = join(dir, name);
      if (/\.(js|ts)$/.test(name) && !/\.test\.(js|ts)$/.test(name)) hash.update(name).update(readFileSync(path));
      else if (!name.includes('.')) walk(path);
    }
  };
  walk(join(root, 'engine'));
  walk(join(root, 'server'));
  walk(join(root, 'model'));
  walk(join(root, 'store'));
  code = `${VERSION}:${hash.digest('hex').slice(0, 16)}`;
  return code;
}

/** The code stamp, then row count and an order-free hash of every row, per input table. */
export async function inputStamp(store: Store): Promise<string> {
  // of ingest_status only what the snapshot reads (the head and write time move every round)
  const row = (t: string) => (t === 'ingest_status' ? 'struct_pack(t.chain_id, t.status, t.checkpoint_block, t.checkpoint_ts)' : 't');
  const parts = INPUTS.map((t) => `(SELECT count(*)::VARCHAR || ':' || coalesce(bit_xor(hash(${row(t)})), 0)::VARCHAR FROM ${t} t)`);
  const r = await store.one<{ s: string }>('publish.stamp', `SELECT ${parts.join(" || '|' || ")} AS s`);
  return `${codeStamp()}|${r!.s}`;
}

export async function readPublishIdentity(store: Store): Promise<PublishIdentity | null> {
  const raw = await getSetting(store, KEY);
  if (raw === null) return null;
  try {
    const v = JSON.parse(raw) as Partial<PublishIdentity>;
    return typeof v.stamp === 'string' && Number.isInteger(v.generation) && Number.isFinite(v.refreshed_at_s) ? (v as PublishIdentity) : null;
  } catch {
    return null;
  }
}

export async function writePublishIdentity(store: Store, id: PublishIdentity): Promise<void> {
  await setSetting(store, KEY, JSON.stringify(id));
}
