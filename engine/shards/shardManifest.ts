// The files of a sharded recompute (issue #39): each shard writes its Parquet files and, last
// (by rename), a small manifest naming them with their SHA-256 and the raw data it read. The
// merge reads every manifest of the directory and refuses a set that is not shards 0..n-1 of
// one n, one raw state and one build, each exactly once and each file intact.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { VaultdError } from '../../common/errors.js';

export const SHARD_FORMAT = 'vaultd-shard/1';

export interface ShardFile {
  name: string;
  bytes: number;
  sha256: string;
}

/** The raw data a shard read: its stamp (store/publishIdentity.ts: the build, then each input table's rows and hash), counts and newest hours. */
export interface RawIdentity {
  stamp: string;
  rows: Record<string, number>;
  max_snapshot_ts: string | null;
  max_event_ts: string | null;
}

export interface ShardManifest {
  format: typeof SHARD_FORMAT;
  shard: number;
  of: number;
  version: string;
  raw: RawIdentity;
  /** where the raw tables were read: the database file or an export directory (`vaultd export`) */
  read_from: 'database' | 'export';
  vaults: number;
  positions: number;
  computed_vaults: number;
  files: { series: ShardFile; positions: ShardFile };
  written_at: string;
}

const pad = (k: number) => String(k).padStart(4, '0');
/** `shard-0003-of-0007`: the stem of shard 3 of 7's files. */
export const shardStem = (shard: number, of: number) => `shard-${pad(shard)}-of-${pad(of)}`;
const MANIFEST_NAME = /^shard-(\d{4})-of-(\d{4})\.manifest\.json$/;

export async function fileSha256(path: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** Describe the file `name` of `dir` (after it is written). */
export async function shardFile(dir: string, name: string): Promise<ShardFile> {
  return { name, ...(await fileSha256(join(dir, name))) };
}

/** Write the manifest last, by rename: a shard whose manifest is there has all its files. */
export async function writeShardManifest(dir: string, m: ShardManifest): Promise<string> {
  const name = `${shardStem(m.shard, m.of)}.manifest.json`;
  const temp = join(dir, `.${name}.tmp-${process.pid}`);
  await writeFile(temp, `${JSON.stringify(m, null, 1)}\n`);
  await rename(temp, join(dir, name));
  return name;
}

const invalid = (text: string) => new VaultdError('SHARDS_INVALID', text);

/** The shards of `dir`, checked: shards 0..n-1 of one n, one raw state, one version, files intact. */
export async function readShardSet(dir: string): Promise<{ of: number; raw: RawIdentity; version: string; shards: ShardManifest[] }> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => MANIFEST_NAME.test(n)).sort();
  } catch (err) {
    throw new VaultdError(
      'USAGE',
      `--merge "${dir}" cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}); name the directory the shards wrote to`,
    );
  }
  const run = (k: number | string, n: number | string) => `\`vaultd recompute --full --shard ${k}/${n} --out ${dir}\``;
  if (names.length === 0) throw invalid(`"${dir}" holds no shard: run ${run('i', 'n')} for every i from 0 to n-1 first`);
  const shards: ShardManifest[] = [];
  for (const name of names) {
    let m: ShardManifest;
    try {
      m = JSON.parse(await readFile(join(dir, name), 'utf8')) as ShardManifest;
    } catch {
      throw invalid(`${name} is not valid JSON: delete it and run that shard again`);
    }
    const [, i, n] = MANIFEST_NAME.exec(name)!;
    if (m.format !== SHARD_FORMAT || m.shard !== Number(i) || m.of !== Number(n) || !m.raw || !m.files?.series || !m.files?.positions) {
      throw invalid(`${name} is not a ${SHARD_FORMAT} manifest of shard ${Number(i)}/${Number(n)}: delete it and run that shard again`);
    }
    shards.push(m);
  }
  const first = shards[0]!;
  for (const m of shards) {
    if (m.of !== first.of) {
      throw invalid(
        `shards of different counts in "${dir}": shard ${first.shard}/${first.of} and shard ${m.shard}/${m.of}; keep one run's shards (remove the others' files) and merge again`,
      );
    }
    if (m.version !== first.version) {
      throw invalid(
        `shard ${m.shard}/${m.of} was computed by vaultd ${m.version}, shard ${first.shard}/${first.of} by ${first.version}: run every shard with one release`,
      );
    }
    if (m.raw.stamp !== first.raw.stamp) {
      throw invalid(
        `shard ${m.shard}/${m.of} was computed from other raw data (or another build) than shard ${first.shard}/${first.of} ` +
          `(${describeRaw(m.raw)} vs ${describeRaw(first.raw)}): run every shard again on the same data`,
      );
    }
  }
  const have = new Set(shards.map((m) => m.shard));
  for (let k = 0; k < first.of; k++) {
    if (!have.has(k))
      throw invalid(`shard ${k}/${first.of} is missing (no ${shardStem(k, first.of)}.manifest.json in "${dir}"): run ${run(k, first.of)}, then merge again`);
  }
  for (const m of shards) {
    for (const f of [m.files.series, m.files.positions]) {
      const st = await stat(join(dir, f.name)).catch(() => null);
      const got = st ? await fileSha256(join(dir, f.name)) : null;
      if (!got || got.bytes !== f.bytes || got.sha256 !== f.sha256) {
        throw invalid(
          `${f.name} of shard ${m.shard}/${m.of} is ${got ? 'altered (its SHA-256 differs from its manifest)' : 'missing'}: run ${run(m.shard, m.of)} again`,
        );
      }
    }
  }
  return { of: first.of, raw: first.raw, version: first.version, shards };
}

/** A short account of raw data for messages: snapshot and event rows, newest hour. */
export function describeRaw(r: RawIdentity): string {
  return `${r.rows.vault_snapshots ?? '?'} snapshot rows, ${r.rows.vault_events ?? '?'} events, newest ${r.max_snapshot_ts ?? 'none'}`;
}
