// The shared case test of the two implementations of the series computation (DESIGN §8):
// JS kernels (load + unit price + APY + rollups) against the DuckDB SQL twin on random worlds.
// Unit prices and rollup indices must be equal; APY equal to ~1e-12: the JS kernel evaluates
// expm1((365/N)·(ln p_i − ln p_j)) and SQL pow(p_i/p_j, 365/N) − 1, two roundings of the same
// real number (see engine/series/apyWindows.ts), so they may differ in the last few bits, never more.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testCommon } from './helpers/common.js';
import { closeApy, worldArb, writeWorld, type Layout } from './helpers/seriesWorld.js';
import { loadVaultSeries } from '../engine/load/loadSeries.js';
import { createStore } from '../store/store.js';
import { APY_WINDOW_DAYS, apyColumn, computeApy } from '../engine/series/apyWindows.js';
import { windowPoints } from '../engine/series/rollups.js';
import { readTwinRollup, readTwinSeries, runSqlTwin } from '../bench/series/sqlTwin.js';
import { computeUnitPrices } from '../engine/series/unitPrices.js';

const common = testCommon();

describe('series computation: JS kernels vs the DuckDB SQL twin', () => {
  it.each(['clustered', 'clustered-then-interleaved'] as Layout[])('random worlds give equal outputs (%s)', async (layout) => {
    await fc.assert(
      fc.asyncProperty(worldArb(4), async (world) => {
        const store = await createStore(common, { path: ':memory:', threads: 1, memoryLimit: '512MB' });
        try {
          await writeWorld(store, world, layout);
          const series = await loadVaultSeries(store, world);
          for (const s of series.values()) {
            computeUnitPrices(s);
            computeApy(s);
          }
          await runSqlTwin(store);
          for (const v of world) {
            const s = series.get(v.vault_id)!;
            const twin = await readTwinSeries(store, v.vault_id);
            expect(Array.from(s.ts.subarray(0, s.length))).toEqual(twin.ts);
            expect(Array.from({ length: s.length }, (_, i) => s.unit_price.get(i))).toEqual(twin.unit_price);
            expect(Array.from(s.unit_price_f.subarray(0, s.length))).toEqual(twin.unit_price_f);
            for (const days of APY_WINDOW_DAYS) {
              const sql = days === 7 ? twin.apy_7d : days === 30 ? twin.apy_30d : twin.apy_90d;
              const js = apyColumn(s, days);
              sql.forEach((x, i) => {
                if (!closeApy(js[i]!, x ?? Number.NaN)) expect.fail(`${v.vault_id} apy_${days}d[${i}]: js ${js[i]} sql ${x}`);
              });
            }
            for (const g of ['day', 'week', 'month'] as const) {
              const w = windowPoints(s, g);
              const r = await readTwinRollup(store, v.vault_id, g);
              expect({ instants: w.instants, indices: w.indices }).toEqual(r);
            }
          }
        } finally {
          await store.close();
        }
      }),
      { numRuns: 8 },
    );
  });
});
