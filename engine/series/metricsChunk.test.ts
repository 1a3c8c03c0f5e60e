// The metrics chunk kernel against the API's own values (engine/metrics/vaultPoint.ts, which
// formats with bigint): for random series and price histories — gaps past the 48 h age limit,
// malformed prices, huge amounts, numeraires above 18 decimals, warming-up APYs — every row
// of a chunk decodes to the timeseries point the API serves for that snapshot, and NULL is
// exactly where the API says null or the DECIMAL(38, s) column cannot hold the value.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatUnits, parseUnits } from '../../model/format/numbers.js';
import type { PriceSeries, VaultSeries } from '../../model/world.js';
import { makePrices } from '../../test/helpers/positionFixtures.js';
import { vaultArb } from '../../test/helpers/seriesWorld.js';
import { vaultPointValues } from '../metrics/vaultPoint.js';
import { computeApy } from './apyWindows.js';
import { wordsAt } from './decimalWords.js';
import {
  fillMetricsChunk,
  METRICS_CHUNK_BYTES,
  METRICS_CHUNK_ROWS,
  METRICS_COLUMNS,
  metricsPrices,
  metricsSeries,
  nullBit,
  type MetricsColumn,
} from './metricsChunk.js';
import { computeUnitPrices } from './unitPrices.js';
import { appendSnapshot, createVaultSeries } from './vaultSeries.js';

const HOUR = 3600;
const LIMIT = 10n ** 38n;

/** Row k of a filled chunk as values: decimal strings at the column's scale, null for NULL. */
function decode(buf: ArrayBuffer, k: number) {
  const valid = (c: MetricsColumn) => c.validity < 0 || ((new Uint8Array(buf, c.validity, METRICS_CHUNK_ROWS / 8)[k >> 3]! >> (k & 7)) & 1) === 1;
  const out: Record<string, string | number | null> = {};
  for (const c of METRICS_COLUMNS) {
    if (!valid(c)) out[c.name] = null;
    else if (c.type === 'timestamp') {
      const w = new Uint32Array(buf, c.offset, 2 * METRICS_CHUNK_ROWS);
      out[c.name] = (w[2 * k + 1]! | 0) * 4294967296 + w[2 * k]!;
    } else if (c.type === 'double') out[c.name] = new Float64Array(buf, c.offset, METRICS_CHUNK_ROWS)[k]!;
    else out[c.name] = formatUnits(wordsAt(new Uint32Array(buf, c.offset, 4 * METRICS_CHUNK_ROWS), 4 * k), c.scale);
  }
  return out;
}

/** What the API serves for snapshot i, in the table's units (null where the column cannot hold it). */
function expected(s: VaultSeries, i: number, prices: PriceSeries | undefined) {
  const p = vaultPointValues(s, i, prices);
  const fits = (x: bigint) => x < LIMIT && x > -LIMIT;
  const assets = s.total_assets.get(i);
  const d = s.numeraire_decimals;
  // the native TVL at 18 decimals, if exact and in range
  const native = d <= 18 ? assets * 10n ** BigInt(18 - d) : assets % 10n ** BigInt(d - 18) === 0n ? assets / 10n ** BigInt(d - 18) : null;
  const usdUnits = p.tvl.usd === null ? null : parseUnits(p.tvl.usd, 6);
  return {
    ts: s.ts[i]! * 1e6,
    unit_price: fits(s.unit_price.get(i)) ? p.unit_price : null,
    tvl_native: native !== null && fits(native) ? p.tvl.native : null,
    tvl_usd: usdUnits !== null && fits(usdUnits) ? p.tvl.usd : null,
    total_supply: fits(s.total_supply.get(i)) ? p.total_supply : null,
    apy_7d: p.apy_7d,
    apy_30d: p.apy_30d,
    apy_90d: p.apy_90d,
  };
}

const priceHistory = fc.array(
  fc.record({
    gap: fc.oneof({ weight: 8, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 80 }) }),
    usd: fc.oneof(
      { weight: 6, arbitrary: fc.bigInt({ min: 0n, max: 10n ** 22n }).map((x) => formatUnits(x, 18)) },
      { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map((x) => formatUnits(x, 18)) },
      { weight: 1, arbitrary: fc.constantFrom('oops', '-1', '0', '1') },
    ),
  }),
  { maxLength: 120 },
);

describe('fillMetricsChunk', () => {
  it('every row decodes to the API point of that snapshot; NULL where the API has null or DECIMAL(38, s) cannot hold it', () => {
    fc.assert(
      fc.property(
        vaultArb(1),
        fc.constantFrom(0, 6, 8, 18, 24, 36),
        fc.integer({ min: -100, max: 100 }),
        priceHistory,
        fc.boolean(),
        (v, decimals, start, history, priced) => {
          const s = createVaultSeries({ vault_id: v.vault_id, numeraire_decimals: decimals, vault_type: v.vault_type }, 1);
          for (const r of [...v.rows].sort((a, b) => a.ts - b.ts)) appendSnapshot(s, r);
          computeUnitPrices(s);
          computeApy(s);
          let t = (s.length > 0 ? s.ts[0]! : 0) + start * HOUR;
          const pts: number[] = [];
          const usd: string[] = [];
          for (const h of history) {
            t += h.gap * HOUR;
            pts.push(t);
            usd.push(h.usd);
          }
          const prices = priced ? makePrices(pts, usd) : undefined;
          const table = prices === undefined ? null : metricsPrices(prices);
          for (let at = 0; at < s.length; at += 97) {
            const n = Math.min(97, s.length - at);
            const buf = new ArrayBuffer(METRICS_CHUNK_BYTES);
            const nulls = fillMetricsChunk(metricsSeries(s), table, at, n, buf, 0);
            let seen = 0;
            for (let k = 0; k < n; k++) {
              const got = decode(buf, k);
              expect(got).toEqual(expected(s, at + k, prices));
              for (const c of METRICS_COLUMNS) if (got[c.name] === null) seen |= nullBit(c);
            }
            expect(nulls).toBe(seen);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('edges: amounts at and past 10^38 base units, non-finite APYs, a price exactly 48 h old and one second older', () => {
    const t0 = 1_700_000_000;
    const s = createVaultSeries({ vault_id: '1:0xv', numeraire_decimals: 18, vault_type: 'morpho_v1' }, 1);
    const big = [LIMIT - 1n, LIMIT, (1n << 127n) - 1n, 5n];
    big.forEach((x, i) => appendSnapshot(s, { ts: t0 + i * HOUR, total_assets: x, total_supply: x, unit_price: null }));
    computeUnitPrices(s);
    computeApy(s);
    s.apy_7d[0] = Number.POSITIVE_INFINITY;
    s.apy_30d[1] = Number.NEGATIVE_INFINITY;
    s.apy_90d[2] = 0.05;
    // one price at t0: rows 0–2 are within 48 h of it; row 3 is moved to exactly 48 h, then 48 h + 1 s
    const prices = makePrices([t0], ['2']);
    const buf = new ArrayBuffer(METRICS_CHUNK_BYTES);
    const nulls = fillMetricsChunk(metricsSeries(s), metricsPrices(prices), 0, 4, buf, 0);
    const rows = [0, 1, 2, 3].map((k) => decode(buf, k));
    expect(rows.map((r) => [r.tvl_native, r.total_supply])).toEqual([
      [formatUnits(LIMIT - 1n, 18), formatUnits(LIMIT - 1n, 18)],
      [null, null],
      [null, null],
      ['0.000000000000000005', '0.000000000000000005'],
    ]);
    expect(rows.map((r) => [r.apy_7d, r.apy_30d, r.apy_90d])).toEqual([
      [null, null, null],
      [null, null, null],
      [null, null, 0.05],
      [null, null, null],
    ]);
    expect(nulls & nullBit(METRICS_COLUMNS.find((c) => c.name === 'total_supply')!)).not.toBe(0);
    expect(rows.map((r) => r.unit_price)).toEqual(['1', '1', '1', '1']);
    // USD is priced from base units, so it exists where the native column cannot hold the amount
    expect(rows.map((r) => r.tvl_usd)).toEqual([
      '200000000000000000000',
      '200000000000000000000',
      formatUnits((((1n << 127n) - 1n) * 2n) / 10n ** 12n, 6),
      '0',
    ]);
    for (const [age, priced] of [
      [48 * HOUR, true],
      [48 * HOUR + 1, false],
    ] as const) {
      s.ts[3] = t0 + age;
      fillMetricsChunk(metricsSeries(s), metricsPrices(prices), 0, 4, buf, 0);
      expect(decode(buf, 3).tvl_usd).toBe(priced ? '0' : null);
    }
  });

  it('a full chunk at an offset of a larger buffer, and the row limit', () => {
    const s = createVaultSeries({ vault_id: '1:0xv', numeraire_decimals: 6, vault_type: 'morpho_v1' }, 1);
    for (let i = 0; i < METRICS_CHUNK_ROWS + 5; i++)
      appendSnapshot(s, { ts: 1_700_000_000 + i * HOUR, total_assets: BigInt(i) * 1_000_000n, total_supply: BigInt(i) * 10n ** 18n, unit_price: null });
    computeUnitPrices(s);
    computeApy(s);
    const buf = new ArrayBuffer(3 * METRICS_CHUNK_BYTES);
    fillMetricsChunk(metricsSeries(s), null, 5, METRICS_CHUNK_ROWS, buf, METRICS_CHUNK_BYTES);
    const chunk = buf.slice(METRICS_CHUNK_BYTES, 2 * METRICS_CHUNK_BYTES);
    expect(decode(chunk, METRICS_CHUNK_ROWS - 1)).toEqual(expected(s, METRICS_CHUNK_ROWS + 4, undefined));
    expect(() => fillMetricsChunk(metricsSeries(s), null, 0, METRICS_CHUNK_ROWS + 1, buf, 0)).toThrow(
      `a metrics chunk holds 0–${METRICS_CHUNK_ROWS} rows, not ${METRICS_CHUNK_ROWS + 1}`,
    );
  });
});
