// What lets a restart serve the snapshot it last published (DESIGN §1): a stamp of every table
// a snapshot is built from, saved with the generation and publish time of each publish. A
// restart whose tables still have that stamp republishes under the same identity, and the
// build is deterministic, so its pages, `refreshed_at` and ETags are the ones already served
// (caches stay valid); any change to the inputs gives a new stamp and a new publish.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BINARY_BUILD } from '../common/runtime.js';
import { VERSION } from '../common/version.js';
import { PUBLISH_INPUT_TABLES } from './publishInputs.js';
import { fileState } from './fileState.js';
import { getSetting, setSetting } from './settings.js';
import type { Store } from './store.js';

export interface PublishIdentity {
  stamp: string;
  generation: number;
  refreshed_at_s: number;
}

const KEY = 'publish.identity';

let code: string | null = null;

/**
 * The program that builds snapshots: its version and a hash of the engine's, server's and vault
 * families' code (another build may compute other pages from the same rows — a family's unit
 * price source or /definition fields — and must not reuse an identity).
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
  walk(join(root, 'families'));
  code = `${VERSION}:${hash.digest('hex').slice(0, 16)}`;
  return code;
}

/**
 * The code stamp, then row count and an order-free hash of every row, per input table. Hashing
 * every row takes seconds on a large world (~2.5 s at 17 M hourly rows), so the inputs' part is
 * also saved beside the database once the file closes with no input written since it was
 * computed (`<db>.stamp`, with the closed file's state, store/fileState.ts); a store opened on
 * a file still in that state, before it writes an input, takes it from there.
 */
export async function inputStamp(store: Store): Promise<string> {
  const saved = store.inputWrites() === 0 ? savedInputs(store) : null;
  const inputs = saved ?? (await hashInputs(store));
  keepAtClose(store, inputs, saved === null ? 'rows' : 'saved');
  return `${codeStamp()}|${inputs}`;
}

/** Where the store's last stamp came from: hashing the rows, or the saved stamp (logs, tests). */
export const stampSource = (store: Store): 'rows' | 'saved' | null => stamped.get(store)?.from ?? null;

async function hashInputs(store: Store): Promise<string> {
  // of ingest_status only what the snapshot reads (the head and write time move every round)
  const row = (t: string) => (t === 'ingest_status' ? 'struct_pack(t.chain_id, t.status, t.checkpoint_block, t.checkpoint_ts)' : 't');
  const parts = PUBLISH_INPUT_TABLES.map((t) => `(SELECT count(*)::VARCHAR || ':' || coalesce(bit_xor(hash(${row(t)})), 0)::VARCHAR FROM ${t} t)`);
  const r = await store.one<{ s: string }>('publish.stamp', `SELECT ${parts.join(" || '|' || ")} AS s`);
  return r!.s;
}

/** The saved stamp's file: beside the database. */
export const stampFile = (db: string) => `${db}.stamp`;

interface SavedStamp {
  format: 1;
  /** the closed file's state when it was saved */
  state: string;
  inputs: string;
}

function savedInputs(store: Store): string | null {
  if (store.openedState === null) return null;
  try {
    const saved = JSON.parse(readFileSync(stampFile(store.path), 'utf8')) as Partial<SavedStamp>;
    return saved.format === 1 && saved.state === store.openedState && typeof saved.inputs === 'string' ? saved.inputs : null;
  } catch {
    return null;
  }
}

/** What each open store last stamped, where from, and how many input writes it had run by then. */
const stamped = new WeakMap<Store, { inputs: string; from: 'rows' | 'saved'; writes: number }>();

function keepAtClose(store: Store, inputs: string, from: 'rows' | 'saved'): void {
  const first = !stamped.has(store);
  stamped.set(store, { inputs, from, writes: store.inputWrites() });
  if (!first || store.path === ':memory:') return;
  store.afterClose(() => {
    const last = stamped.get(store)!;
    const path = stampFile(store.path);
    const state = last.writes === store.inputWrites() ? fileState(store.path) : null;
    try {
      if (state === null) return rmSync(path, { force: true });
      const saved: SavedStamp = { format: 1, state, inputs: last.inputs };
      writeFileSync(`${path}.tmp`, JSON.stringify(saved));
      renameSync(`${path}.tmp`, path);
    } catch {
      // a cache: without it the next start hashes the rows again
    }
  });
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
