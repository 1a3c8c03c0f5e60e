// `vaultd recompute --full --shard I/N --out DIR [--from EXPORT]` and `vaultd recompute --merge
// DIR [--out SNAPDIR]` (issue #39, DESIGN §2 and §10): a full recompute cut into shards that
// may run on different machines, and the merge that checks the set and publishes exactly what
// `vaultd publish` on the database publishes (same files, so the same bodies and ETags). The
// work is engine/shards/'s; this wires the sources, the pool and the output.
import { join, resolve } from 'node:path';
import { createCommon } from '../../common/common.js';
import type { Config } from '../../common/config.js';
import { VaultdError } from '../../common/errors.js';
import { poolCompute } from '../../engine/engine.js';
import { createComputePool } from '../../engine/pool/computePool.js';
import { publishMerged } from '../../engine/shards/publishMerged.js';
import { openRawExport } from '../../engine/shards/rawExport.js';
import { runShard } from '../../engine/shards/runShard.js';
import { describeRaw, readShardSet } from '../../engine/shards/shardManifest.js';
import { parseShard } from '../../engine/shards/shardOf.js';
import { rawSummary } from '../../store/parquetFiles.js';
import { inputStamp } from '../../store/publishIdentity.js';
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
  // read-only: shards on one machine read the same file at once
  const source =
    v.from !== undefined
      ? await openRawExport(common, resolve(v.from))
      : await openStoreWithRetry(common, { path: config.db, mustExist: true, readOnly: true }).then((store) => ({ store, close: () => store.close() }));
  try {
    const compute = poolCompute(createComputePool(common, { threads: 2 }));
    const { manifest: m, name, timings } = await runShard(common, source.store, { spec, out, compute, readFrom: v.from !== undefined ? 'export' : 'database' });
    for (const [stage, ms] of Object.entries(timings)) process.stdout.write(`${stage.padEnd(16)} ${String(ms).padStart(9)} ms\n`);
    process.stdout.write(
      `shard ${spec.index}/${spec.count}: ${m.vaults} vaults, ${m.positions} positions ` +
        `(${m.computed_vaults} series computed) from ${describeRaw(m.raw)}; ${name} in ${out}, in ${Math.round(performance.now() - t0)} ms\n`,
    );
  } finally {
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
    const files = set.shards.map((s) => ({ shard: s.shard, series: join(dir, s.files.series.name), positions: join(dir, s.files.positions.name) }));
    const m = await publishMerged(common, store, files, out);
    let bytes = 0;
    for (const f of Object.values(m.files)) bytes += f.bytes;
    process.stdout.write(
      `merged ${set.of} shards; published generation ${m.generation} (refreshed_at ${m.refreshed_at}) to ${out}: ${Object.keys(m.files).length} files, ` +
        `${(bytes / 1048576).toFixed(1)} MiB, in ${Math.round(performance.now() - t0)} ms\n`,
    );
  } finally {
    await store.close();
    await common.shutdown.close('done');
  }
  return 0;
}
