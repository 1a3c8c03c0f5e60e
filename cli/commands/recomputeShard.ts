// `vaultd recompute --full --shard I/N --out DIR [--from EXPORT]` and `vaultd recompute --merge
// DIR [--out SNAPDIR]` (issue #39, DESIGN §2 and §10): a full recompute cut into shards that
// may run on different machines, and the merge that checks the set and publishes exactly what
// `vaultd publish` on the database publishes (same files, so the same bodies and ETags).
import { mkdir, rename } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createCommon, type Common } from '../../common/common.js';
import type { Config } from '../../common/config.js';
import { VaultdError } from '../../common/errors.js';
import { VERSION } from '../../common/version.js';
import { poolCompute, publishPlan } from '../../engine/engine.js';
import { loadWorld } from '../../engine/load/loadWorld.js';
import { createComputePool } from '../../engine/pool/computePool.js';
import { writeSnapshotDir } from '../../engine/publish/snapshotFiles.js';
import { frozenView } from '../../engine/publish/walletIndex.js';
import { applyShards, type ShardRows } from '../../engine/shards/applyShards.js';
import { computeShard } from '../../engine/shards/computeShard.js';
import { openRawExport } from '../../engine/shards/rawExport.js';
import { describeRaw, readShardSet, shardFile, shardStem, SHARD_FORMAT, writeShardManifest } from '../../engine/shards/shardManifest.js';
import { parseShard } from '../../engine/shards/shardOf.js';
import { activeKeyDigests } from '../../store/apiKeys.js';
import { cursorSecret } from '../../store/cursorSecret.js';
import { rawSummary, readShardPositions, readShardSeries, writeShardPositions, writeShardSeries } from '../../store/parquetFiles.js';
import { inputStamp, readPublishIdentity } from '../../store/publishIdentity.js';
import { createStore, type Store } from '../../store/store.js';
import { openStoreWithRetry } from '../../store/storeHandle.js';
import { defaultSnapshotDir } from './snapshotDir.js';

export interface ShardFlags {
  full?: boolean;
  shard?: string;
  out?: string;
  from?: string;
  merge?: string;
}

/** Refuse flag combinations that mean nothing (one line, exit 2). */
export function checkShardFlags(v: ShardFlags): void {
  if (v.merge !== undefined) {
    if (v.shard !== undefined || v.from !== undefined || v.full)
      throw new VaultdError('USAGE', '--merge DIR takes no --shard, --from or --full (the shards were computed with them)');
    if (v.merge === '') throw new VaultdError('USAGE', '--merge needs DIR, the directory the shards wrote to');
    return;
  }
  if (v.shard === undefined) {
    if (v.out !== undefined || v.from !== undefined) throw new VaultdError('USAGE', '--out and --from go with --shard I/N (or --out with --merge DIR)');
    return;
  }
  if (!v.full) throw new VaultdError('USAGE', '--shard needs --full (a shard is a part of a full recompute)');
  if (v.out === undefined || v.out === '') throw new VaultdError('USAGE', "--shard needs --out DIR, the directory to write the shard's files into");
}

/** One shard into `--out`; nothing is written to the database. */
export async function shardCommand(config: Config, v: ShardFlags): Promise<number> {
  const spec = parseShard(v.shard!);
  const common = createCommon(config);
  const out = resolve(v.out!);
  const t0 = performance.now();
  let source: { store: Store; close(): Promise<void> };
  let readFrom: 'database' | 'export';
  if (v.from !== undefined) {
    source = await openRawExport(common, resolve(v.from));
    readFrom = 'export';
  } else {
    // read-only: shards on one machine read the same file at once
    const store = await openStoreWithRetry(common, { path: config.db, mustExist: true, readOnly: true });
    source = { store, close: () => store.close() };
    readFrom = 'database';
  }
  const scratch = await createStore(common, { path: ':memory:' });
  try {
    const timings: Record<string, number> = {};
    const stage = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      const s0 = performance.now();
      try {
        return await work();
      } finally {
        timings[name] = Math.round((performance.now() - s0) * 10) / 10;
      }
    };
    const store = source.store;
    const raw = await stage('stamp', async () => ({ stamp: await inputStamp(store), ...(await rawSummary(store)) }));
    const world = await stage('load', () => loadWorld(common, store, { eventHashes: false, apy: false, signal: common.shutdown.signal }));
    const compute = poolCompute(createComputePool(common, { threads: 2 }));
    const result = await stage('compute', () => computeShard(world, compute, spec));
    await mkdir(out, { recursive: true });
    const stem = shardStem(spec.index, spec.count);
    const files = await stage('write', async () => {
      const put = async (kind: 'series' | 'positions', write: (path: string) => Promise<void>) => {
        const name = `${stem}.${kind}.parquet`;
        const temp = join(out, `.${name}.tmp-${process.pid}`);
        await write(temp);
        await rename(temp, join(out, name));
        return shardFile(out, name);
      };
      return {
        series: await put('series', (p) => writeShardSeries(scratch, p, result.series)),
        positions: await put('positions', (p) => writeShardPositions(scratch, p, result.positions)),
      };
    });
    const manifest = await writeShardManifest(out, {
      format: SHARD_FORMAT,
      shard: spec.index,
      of: spec.count,
      version: VERSION,
      raw,
      read_from: readFrom,
      vaults: result.series.length,
      positions: result.positions.length,
      computed_vaults: result.computedVaults,
      files,
      written_at: new Date().toISOString(),
    });
    for (const [name, ms] of Object.entries(timings)) process.stdout.write(`${name.padEnd(16)} ${String(ms).padStart(9)} ms\n`);
    process.stdout.write(
      `shard ${spec.index}/${spec.count}: ${result.series.length} vaults, ${result.positions.length} positions ` +
        `(${result.computedVaults} series computed) from ${describeRaw(raw)}; ${manifest} in ${out}, in ${Math.round(performance.now() - t0)} ms\n`,
    );
  } finally {
    await scratch.close();
    await source.close();
    await common.shutdown.close('done');
  }
  return 0;
}

/** Check the shards of `--merge DIR` against the database and publish their result. */
export async function mergeCommand(config: Config, v: ShardFlags): Promise<number> {
  const dir = resolve(v.merge!);
  const out = resolve(v.out ?? defaultSnapshotDir(config.db));
  const t0 = performance.now();
  const set = await readShardSet(dir);
  const common = createCommon(config);
  const store = await openStoreWithRetry(common, { path: config.db, mustExist: true });
  try {
    const stamp = await inputStamp(store);
    if (stamp !== set.raw.stamp) {
      const now = { stamp, ...(await rawSummary(store)) };
      throw new VaultdError(
        'SHARDS_INVALID',
        `the shards in "${v.merge}" were computed from other raw data (or another build) than the database "${config.db}" holds ` +
          `(shards: ${describeRaw(set.raw)}; database: ${describeRaw(now)}): run every shard again on this data, then merge`,
      );
    }
    const m = await publishMerged(
      common,
      store,
      set.shards.map((s) => ({ shard: s.shard, series: join(dir, s.files.series.name), positions: join(dir, s.files.positions.name) })),
      out,
    );
    process.stdout.write(
      `merged ${set.of} shards; published generation ${m.generation} (refreshed_at ${m.refreshed_at}) to ${out}: ${m.files} files, ` +
        `${(m.bytes / 1048576).toFixed(1)} MiB, in ${Math.round(performance.now() - t0)} ms\n`,
    );
  } finally {
    await store.close();
    await common.shutdown.close('done');
  }
  return 0;
}

/** Load the world as `vaultd publish` does, put the shards' results in, publish under the database's identity. */
async function publishMerged(
  common: Common,
  store: Store,
  shards: { shard: number; series: string; positions: string }[],
  out: string,
): Promise<{ generation: number; refreshed_at: string; files: number; bytes: number }> {
  const world = await loadWorld(common, store, { eventHashes: true, apy: false, signal: common.shutdown.signal });
  const rows: ShardRows[] = [];
  for (const s of shards)
    rows.push({ shard: s.shard, series: await readShardSeries(store, s.series), positions: await readShardPositions(store, s.positions) });
  applyShards(world, rows);
  const at = await publishPlan(store, true, 0, () => Math.floor(Date.now() / 1000));
  const identity = await readPublishIdentity(store);
  const secret = (await cursorSecret(store)).toString('base64url');
  const keys = await activeKeyDigests(store);
  const m = await writeSnapshotDir(
    out,
    frozenView(world),
    { generation: at.generation, refreshed_at_s: at.now, stamp: identity?.stamp ?? null },
    { cursor_secret: secret, keys },
  );
  let bytes = 0;
  for (const f of Object.values(m.files)) bytes += f.bytes;
  return { generation: m.generation, refreshed_at: m.refreshed_at, files: Object.keys(m.files).length, bytes };
}
