// The hourly metrics writer on real DuckDB files: on random worlds (fast-check) the table it
// writes equals the one DuckDB computes by SQL alone (bench/series/sqlTwin.ts) both ways; USD
// ties round half-even in both; an incremental write (hours past the last one written)
// completes the table exactly as a full write does. And the activity writer's formatting SQL
// (store/unitsSelect.ts) still equals formatUnits.
import fc from 'fast-check';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUnits } from '../../model/format/numbers.js';
import { I128Array } from '../../model/int128.js';
import type { World } from '../../model/world.js';
import { createColumnAppender } from '../../store/columnAppender.js';
import { createStore, type Store } from '../../store/store.js';
import { tempDir, testCommon } from '../../test/helpers/common.js';
import { worldArb, writeWorld, type WorldVault } from '../../test/helpers/seriesWorld.js';
import { loadWorld } from '../load/loadWorld.js';
import { computeApy } from '../series/apyWindows.js';
import { createSqlMetricsTable, diffMetricsTables, runSqlTwin } from '../../bench/series/sqlTwin.js';
import { computeUnitPrices } from '../series/unitPrices.js';
import { unitsSelect } from '../../store/unitsSelect.js';
import { writeVaultMetrics } from './metricsWriter.js';

const common = testCommon();
const dir = tempDir('vaultd-metrics-writer-');
afterAll(async () => {
  await common.shutdown.close('tests done');
  rmSync(dir, { recursive: true, force: true });
});

const HOUR = 3600;
/** numeraires: two priced tokens (one stored in another letter case) and one never priced */
const TOKENS = ['0xaa', '0xBB', '0xcc'];

interface PricePlan {
  token: 0 | 1;
  start: number;
  steps: { gap: number; usd: string }[];
}
const usdText = fc
  .oneof({ weight: 8, arbitrary: fc.bigInt({ min: 0n, max: 5000n * 10n ** 18n }) }, { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 10n ** 38n - 1n }) })
  .map((x) => formatUnits(x, 18));
const pricePlan: fc.Arbitrary<PricePlan> = fc.record({
  token: fc.constantFrom(0 as const, 1 as const),
  start: fc.integer({ min: -48, max: 24 * 40 }),
  steps: fc.array(
    fc.record({ gap: fc.oneof({ weight: 6, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 100 }) }), usd: usdText }),
    { maxLength: 300 },
  ),
});

/** Random vault histories, numeraires of 0–36 decimals, prices with gaps past 48 h, in a file. */
async function randomStore(name: string, world: WorldVault[], decimals: number[], plans: PricePlan[]): Promise<Store> {
  const store = await createStore(common, { path: join(dir, `${name}.duckdb`), threads: 1, memoryLimit: '512MB' });
  const vaults = world.map((v, i) => ({ ...v, numeraire_decimals: decimals[i % decimals.length]! }));
  await writeWorld(store, vaults, 'clustered-then-interleaved');
  // one transaction for the set-up rows: a commit per row on a file was most of the test's time
  await store.transaction('test.setup', async () => {
    for (const [i, v] of vaults.entries()) {
      await store.run('test.numeraire', 'UPDATE vaults SET numeraire_address = $1 WHERE vault_id = $2', [TOKENS[i % TOKENS.length]!, v.vault_id]);
    }
    const T0 = 1_704_067_200;
    for (const p of plans) {
      let t = T0 + p.start * HOUR;
      const seen = new Set<number>();
      for (const s of p.steps) {
        t += s.gap * HOUR;
        if (seen.has(t)) continue;
        seen.add(t);
        await store.run('test.price', `INSERT INTO prices VALUES (1, $1, to_timestamp($2)::TIMESTAMP, $3::DECIMAL(38, 18), 'test')`, [
          TOKENS[p.token]!.toLowerCase(),
          t,
          s.usd,
        ]);
      }
    }
  });
  return store;
}

async function computedWorld(store: Store): Promise<World> {
  const world = await loadWorld(common, store);
  for (const s of world.series.values()) {
    computeUnitPrices(s);
    computeApy(s);
  }
  return world;
}

const decimalsArb = fc.array(fc.constantFrom(0, 6, 8, 18, 24, 36), { minLength: 1, maxLength: 4 });

/**
 * The budget of a property test here: each run opens a fresh file store (migrations), writes it
 * and runs the SQL twin, ~0.3–1 s on a quiet machine and several times that on a loaded one;
 * the run counts stay, and the time allowed is what the slowest machine needs for them.
 */
const PROPERTY_BUDGET = { timeout: 240_000 };

describe('writeVaultMetrics', () => {
  let run = 0;

  it('random worlds: the table equals the SQL-only table both ways (EXCEPT ALL), NULLs included', PROPERTY_BUDGET, async () => {
    await fc.assert(
      fc.asyncProperty(worldArb(4), decimalsArb, fc.array(pricePlan, { maxLength: 3 }), async (world, decimals, plans) => {
        const store = await randomStore(`w-${run++}`, world, decimals, plans);
        try {
          const w = await computedWorld(store);
          const rows = await store.transaction('test.write', () => writeVaultMetrics(store, w));
          expect(rows).toBe([...w.series.values()].reduce((n, s) => n + s.length, 0));
          await runSqlTwin(store);
          await createSqlMetricsTable(store, 'sql_metrics');
          const d = await diffMetricsTables(store, 'vault_metrics_hourly', 'sql_metrics');
          expect(d).toMatchObject({ rows_a: rows, rows_b: rows, only_a: 0, only_b: 0, apy_far: 0 });
        } finally {
          await store.close();
        }
      }),
      { numRuns: 8 },
    );
  });

  it('incremental: hours past the last one written complete the table exactly as a full write', PROPERTY_BUDGET, async () => {
    await fc.assert(
      fc.asyncProperty(
        worldArb(3),
        decimalsArb,
        fc.array(pricePlan, { maxLength: 2 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (world, decimals, plans, cutAt) => {
          const store = await randomStore(`inc-${run++}`, world, decimals, plans);
          try {
            const w = await computedWorld(store);
            await writeVaultMetrics(store, w);
            await store.run('test.copy', 'CREATE TEMP TABLE full_write AS SELECT * FROM vault_metrics_hourly');
            const all = [...w.series.values()].flatMap((s) => Array.from(s.ts.subarray(0, s.length)));
            const cut = all.length === 0 ? 0 : Math.min(...all) + Math.floor((cutAt * (Math.max(...all) - Math.min(...all))) / HOUR) * HOUR;
            // a stale tail (as if the hours after `cut` had been written from other values) is replaced
            await store.run('test.stale', 'UPDATE vault_metrics_hourly SET apy_7d = -1 WHERE ts > to_timestamp($1)::TIMESTAMP', [cut]);
            const rows = await writeVaultMetrics(store, w, cut);
            expect(rows).toBe(all.filter((t) => t > cut).length);
            const d = await diffMetricsTables(store, 'vault_metrics_hourly', 'full_write');
            expect(d).toMatchObject({ only_a: 0, only_b: 0, apy_inexact: 0 });
          } finally {
            await store.close();
          }
        },
      ),
      { numRuns: 6 },
    );
  });
});

describe('USD TVL at ties and next to them', () => {
  /** oracle: plain bigint half-even */
  const halfEven = (x: bigint, k: number) => {
    const m = 10n ** BigInt(k);
    const q = x / m;
    const r = x % m;
    return 2n * r > m || (2n * r === m && q % 2n === 1n) ? q + 1n : q;
  };

  it('the engine table and the SQL-only one both round half-even, as bigint does', PROPERTY_BUDGET, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0, 6, 8, 18, 24, 36),
        fc.array(
          fc.tuple(
            fc.bigInt({ min: 0n, max: 10n ** 12n }),
            fc.constantFrom(...Array.from({ length: 48 }, (_, x) => x)),
            fc.constantFrom(-1n, 0n, 1n),
            fc.boolean(),
          ),
          { minLength: 1, maxLength: 40 },
        ),
        async (dec, cases) => {
          const k = dec + 12;
          const T0 = 1_704_067_200;
          // amount · price = (2q + 1) · 10^k / 2 (a tie) or q · 10^k, nudged by ±1 on the amount
          const rows = cases
            .map(([q, xs, nudge, tie]) => {
              const x = xs % Math.min(k, 20);
              const a = (tie ? 2n * q + 1n : q) * 10n ** BigInt(x) + nudge;
              const p = tie ? 5n * 10n ** BigInt(k - x - 1) : 10n ** BigInt(k - x);
              return { a, p };
            })
            .filter(({ a, p }) => a >= 0n && p < 10n ** 38n);
          fc.pre(rows.length > 0);
          const store = await createStore(common, { path: join(dir, `ties-${dec}-${Math.random().toString(36).slice(2)}.duckdb`), threads: 1 });
          try {
            const vault: WorldVault = {
              vault_id: '1:0x00000000000000000000000000000000000000aa',
              numeraire_decimals: dec,
              vault_type: 'morpho_v1',
              // supply ≈ assets in share units, at most 10^30: unit prices stay far inside both implementations' range
              rows: rows.map(({ a }, i) => {
                const shares = (a * 10n ** 18n) / 10n ** BigInt(dec) + 1n;
                return {
                  vault_id: '1:0x00000000000000000000000000000000000000aa',
                  ts: T0 + i * HOUR,
                  block_number: i + 1,
                  total_assets: a,
                  total_supply: shares < 10n ** 30n ? shares : 10n ** 30n,
                  unit_price: null,
                };
              }),
            };
            await writeWorld(store, [vault]);
            await store.transaction('test.setup', async () => {
              await store.run('test.numeraire', "UPDATE vaults SET numeraire_address = '0xaa'");
              for (const [i, { p }] of rows.entries()) {
                await store.run('test.price', `INSERT INTO prices VALUES (1, '0xaa', to_timestamp($1)::TIMESTAMP, $2::DECIMAL(38, 18), 'test')`, [
                  T0 + i * HOUR,
                  formatUnits(p, 18),
                ]);
              }
            });
            await store.transaction('test.write', async () => void (await writeVaultMetrics(store, await computedWorld(store))));
            await runSqlTwin(store);
            await createSqlMetricsTable(store, 'sql_metrics');
            const want = rows.map(({ a, p }) => halfEven(a * p, k));
            for (const table of ['vault_metrics_hourly', 'sql_metrics']) {
              const got = await store.rows<{ usd: string | null }>('test.read', `SELECT tvl_usd::VARCHAR AS usd FROM ${table} ORDER BY ts`);
              expect(got.map((r) => (r.usd === null ? null : BigInt(r.usd.replace('.', ''))))).toEqual(want.map((u) => (u < 10n ** 38n ? u : null)));
            }
          } finally {
            await store.close();
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});

describe('unitsSelect over staged 128-bit words (the activity writer formats its deltas with it)', () => {
  let store: Store;
  beforeAll(async () => {
    store = await createStore(common, { path: ':memory:' });
  });
  afterAll(async () => {
    await store.close();
  });

  const amount = fc.oneof(
    fc.bigInt({ min: -(1n << 126n), max: 1n << 126n }),
    fc.bigInt({ min: -1000n, max: 1000n }),
    fc.constantFrom(0n, 1n, -1n, 10n ** 18n, 10n ** 18n - 1n, (1n << 127n) - 1n),
  );

  it('equals formatUnits for any value and decimals (oracle), and keeps NULL', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.option(amount, { nil: null }), fc.integer({ min: 0, max: 30 })), { minLength: 1, maxLength: 300 }),
        async (rows) => {
          await store.run('test.stage', 'CREATE OR REPLACE TEMP TABLE t_stage (i INTEGER, d INTEGER, x HUGEINT)');
          const app = await createColumnAppender(store, 't_stage', ['integer', 'integer', 'hugeint']);
          const words = new I128Array(rows.length);
          rows.forEach(([x], k) => words.set(k, x ?? 0n));
          app.batch(rows.length, (b) => {
            rows.forEach(([x, d], k) => {
              b.int32(0)[k] = k;
              b.int32(1)[k] = d;
              if (x === null) b.setNull(2, k);
            });
            b.hugeint(2).set(new Uint8Array(words.words.buffer, 0, rows.length * 16));
          });
          app.close();
          const out = await store.rows<{ i: number; s: string | null }>(
            'test.format',
            `SELECT i, s FROM (${unitsSelect('t_stage', ['i'], [{ expr: 'x', decimals: 'd', as: 's' }])}) ORDER BY i`,
          );
          expect(out.map((r) => r.s)).toEqual(rows.map(([x, d]) => (x === null ? null : formatUnits(x, d))));
        },
      ),
      { numRuns: 60 },
    );
  });
});
