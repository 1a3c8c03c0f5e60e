// One shard of a sharded full recompute, from raw tables to its files (issue #39): the raw
// data's identity, the world loaded as a publish loads it (without event hashes: nothing here
// serves pages), the shard's series and position items (computeShard.ts), then its two Parquet
// files (each renamed into place) and, last, its manifest (shardManifest.ts).
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Common } from '../../common/common.js';
import { VERSION } from '../../common/version.js';
import { rawSummary, writeShardPositions, writeShardSeries } from '../../store/parquetFiles.js';
import { inputStamp } from '../../store/publishIdentity.js';
import { createStore, type Store } from '../../store/store.js';
import type { SeriesCompute } from '../engine.js';
import { loadWorld } from '../load/loadWorld.js';
import { computeShard } from './computeShard.js';
import { shardFile, shardStem, SHARD_FORMAT, writeShardManifest, type ShardManifest } from './shardManifest.js';
import type { ShardSpec } from './shardOf.js';

export interface ShardRun {
  manifest: ShardManifest;
  /** the manifest's file name in `out` */
  name: string;
  /** ms per stage: stamp, load, compute, write */
  timings: Record<string, number>;
}

export async function runShard(
  common: Common,
  store: Store,
  opts: { spec: ShardSpec; out: string; compute: SeriesCompute; readFrom: ShardManifest['read_from'] },
): Promise<ShardRun> {
  const { spec, out } = opts;
  const timings: Record<string, number> = {};
  const stage = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const s0 = performance.now();
    try {
      return await work();
    } finally {
      timings[name] = Math.round((performance.now() - s0) * 10) / 10;
    }
  };
  const raw = await stage('stamp', async () => ({ stamp: await inputStamp(store), ...(await rawSummary(store)) }));
  const world = await stage('load', () => loadWorld(common, store, { eventHashes: false, apy: false, signal: common.shutdown.signal }));
  const result = await stage('compute', () => computeShard(world, opts.compute, spec));
  await mkdir(out, { recursive: true });
  const stem = shardStem(spec.index, spec.count);
  // the Parquet files are written through a scratch database of their own (the source may be read-only)
  const scratch = await createStore(common, { path: ':memory:' });
  let files: ShardManifest['files'];
  try {
    files = await stage('write', async () => {
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
  } finally {
    await scratch.close();
  }
  const manifest: ShardManifest = {
    format: SHARD_FORMAT,
    shard: spec.index,
    of: spec.count,
    version: VERSION,
    raw,
    read_from: opts.readFrom,
    vaults: result.series.length,
    positions: result.positions.length,
    computed_vaults: result.computedVaults,
    files,
    written_at: new Date().toISOString(),
  };
  return { manifest, name: await writeShardManifest(out, manifest), timings };
}
