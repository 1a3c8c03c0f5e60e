// One case suite, two implementations of ComputePool (STYLE §10): piscina workers over shared
// memory and the in-thread runner must write identical results into the series.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { testCommon } from '../../test/helpers/common.js';
import { worldArb } from '../../test/helpers/seriesWorld.js';
import type { VaultSeries } from '../../model/world.js';
import { APY_WINDOW_DAYS, apyColumn } from '../series/apyWindows.js';
import { appendSnapshot, createVaultSeries } from '../series/vaultSeries.js';
import { createComputePool, createInThreadPool, workerFilename, type ComputePool } from './computePool.js';
import { partition, poolSeriesCompute, recomputeSeries } from './recomputeSeries.js';
import { toJob } from './seriesTask.js';

const common = testCommon();
const pools: Record<string, ComputePool> = {
  'in-thread': createInThreadPool(),
  piscina: createComputePool(common, { threads: 2 }),
};
afterAll(async () => common.shutdown.close('tests done'));

function build(world: Awaited<ReturnType<typeof sample>>): VaultSeries[] {
  return world.map((v) => {
    const s = createVaultSeries(v, 1);
    for (const r of v.rows) appendSnapshot(s, r);
    return s;
  });
}
const sample = () => fc.sample(worldArb(6), { numRuns: 1, seed: 42 })[0]!;

/** Everything the kernels write, as plain values. */
function outputs(all: VaultSeries[]) {
  return all.map((s) => ({
    unit_price: Array.from({ length: s.length }, (_, i) => s.unit_price.get(i)),
    unit_price_f: Array.from(s.unit_price_f.subarray(0, s.length)),
    apy: APY_WINDOW_DAYS.map((d) => Array.from(apyColumn(s, d).subarray(0, s.length))),
  }));
}

describe.each(Object.keys(pools))('compute pool: %s', (name) => {
  const pool = pools[name]!;

  it('recomputes every series in place, like the kernels run directly', async () => {
    const direct = build(sample());
    await recomputeSeries(createInThreadPool(), direct);
    const pooled = build(sample());
    const stats = await recomputeSeries(pool, pooled);
    expect(outputs(pooled)).toEqual(outputs(direct));
    expect(stats.points).toBe(pooled.reduce((n, s) => n + s.length, 0));
    expect(stats.tasks).toBeLessThanOrEqual(2 * pool.threads);
  });

  it('random worlds: equal outputs on both implementations, full and from an index', async () => {
    await fc.assert(
      fc.asyncProperty(worldArb(6), fc.nat(), async (world, cut) => {
        const a = build(world);
        const b = build(world);
        await recomputeSeries(pool, a);
        await recomputeSeries(createInThreadPool(), b);
        expect(outputs(a)).toEqual(outputs(b));
        // clobber a suffix and recompute only that
        for (const s of a) {
          const from = s.length === 0 ? 0 : cut % s.length;
          s.unit_price_f.fill(-1, from, s.length);
          for (const d of APY_WINDOW_DAYS) apyColumn(s, d).fill(-1, from, s.length);
        }
        await recomputeSeries(pool, a, (s) => (s.length === 0 ? 0 : cut % s.length));
        expect(outputs(a)).toEqual(outputs(b));
      }),
      { numRuns: 15 },
    );
  });
});

describe('compute pool options and plumbing', () => {
  it('error: threads out of range, with the exact message', () => {
    expect(() => createComputePool(common, { threads: 0 })).toThrow('compute pool threads must be an integer from 1 to 256, got 0');
    expect(() => createComputePool(common, { threads: 1.5 })).toThrow('compute pool threads must be an integer from 1 to 256, got 1.5');
  });

  it('the worker resolves to the compiled dist/ tree from the .ts sources and from dist', () => {
    expect(workerFilename('file:///repo/engine/pool/computePool.ts')).toBe('/repo/dist/engine/pool/worker.js');
    expect(workerFilename('file:///repo/dist/engine/pool/computePool.js')).toBe('/repo/dist/engine/pool/worker.js');
  });

  it('partitions vaults into balanced batches, longest first', () => {
    const jobs = [10, 1, 7, 3, 3, 2].map((n, k) => {
      const s = createVaultSeries({ vault_id: `v${k}`, numeraire_decimals: 6, vault_type: 'morpho_v1' }, n);
      s.length = n;
      return toJob(s);
    });
    const batches = partition(jobs, 3);
    expect(batches.map((b) => b.reduce((n, j) => n + j.length, 0)).sort((x, y) => x - y)).toEqual([8, 8, 10]);
    expect(partition(jobs.slice(0, 2), 8)).toHaveLength(2);
  });
});

describe('poolSeriesCompute', () => {
  it('runs {series, from} work items, the lowest from of a repeated series winning', async () => {
    const world = fc.sample(worldArb(3), { numRuns: 1, seed: 7 })[0]!;
    const a = build(world);
    const b = build(world);
    await recomputeSeries(createInThreadPool(), b);
    await poolSeriesCompute(pools.piscina!).run([...a.map((series) => ({ series, from: series.length })), ...a.map((series) => ({ series, from: 0 }))]);
    expect(outputs(a)).toEqual(outputs(b));
  });
});
