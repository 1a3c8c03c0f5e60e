import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asOfIndex, usdIndexAt } from '../series/asOf.js';
import { asOfIndexFast, isHourlyContiguous } from './fastAsOf.js';
import { makePrices, makeSeries } from './fixtures.js';
import { usdBig, usdE18, usdFloat, usdIndexIn, usdTable } from './usdPriceCache.js';

const H = 3600;

// Series: hourly with random holes and occasional off-grid points; queries around every point.
const seriesArb = fc
  .array(fc.record({ step: fc.constantFrom(H, H, H, H, 2 * H, 60 * H, 1, 1800), jitter: fc.constantFrom(0, 0, 0, 17) }), {
    minLength: 0,
    maxLength: 80,
  })
  .map((steps) => {
    const ts: number[] = [];
    let t = 1_700_000_000;
    for (const s of steps) {
      t += s.step + s.jitter;
      ts.push(t);
    }
    return ts;
  });

describe('fast as-of lookups', () => {
  it('asOfIndexFast and the USD table lookup give exactly what asOf.ts gives', () => {
    fc.assert(
      fc.property(seriesArb, fc.array(fc.integer({ min: -3 * H, max: 3 * H }), { minLength: 1, maxLength: 20 }), (ts, offsets) => {
        const arr = Float64Array.from(ts);
        const prices = makePrices(ts, ts.map(() => '1'));
        const table = usdTable(prices);
        const queries = [...ts.flatMap((t) => [t - 1, t, t + 1, t + 48 * H, t + 48 * H + 1]), ...offsets.map((o) => (ts[0] ?? 0) + o)];
        for (const q of queries) {
          expect(asOfIndexFast(arr, arr.length, q)).toBe(asOfIndex(arr, arr.length, q));
          expect(usdIndexIn(table, q)).toBe(usdIndexAt(prices, q));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('isHourlyContiguous: true only without gaps, and re-checked as the series grows', () => {
    const t0 = 1_699_999_200;
    const s = makeSeries([t0, t0 + H, t0 + 2 * H, t0 + 4 * H], ['1', '1', '1', '1'], 6);
    s.length = 3;
    expect(isHourlyContiguous(s)).toBe(true);
    s.length = 4;
    expect(isHourlyContiguous(s)).toBe(false);
  });
});

describe('USD price table', () => {
  it('holds every price exactly (split into two doubles) and as a double', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 0n, max: (1n << 127n) - 1n }), { minLength: 1, maxLength: 30 }), (values) => {
        const strs = values.map((v) => {
          const s = v.toString().padStart(19, '0');
          return `${s.slice(0, -18)}.${s.slice(-18)}`;
        });
        const prices = makePrices(values.map((_, i) => i * H), strs);
        const table = usdTable(prices);
        values.forEach((v, i) => {
          expect(usdBig(table, i)).toBe(v);
          expect(usdFloat(table, i)).toBe(Number(strs[i]));
        });
      }),
    );
  });

  it('a malformed stored price is no price, never a throw; a grown series is re-read', () => {
    const prices = makePrices([0, H, 2 * H], ['1.5', 'oops', '1.0000000000000000001']);
    expect(usdE18(prices, 0)).toBe(1_500_000_000_000_000_000n);
    expect(usdE18(prices, 1)).toBeNull();
    expect(usdE18(prices, 2)).toBeNull(); // 19 decimals: excess precision is not a price
    const grown = { ...prices, ts: Float64Array.from([0, H, 2 * H, 3 * H]), usd: [...prices.usd, '2'], usd_f: Float64Array.from([1.5, NaN, 1, 2]) };
    expect(usdE18(grown, 3)).toBe(2n * 10n ** 18n);
    prices.ts = Float64Array.from([0, H, 2 * H, 3 * H]);
    prices.usd.push('3');
    prices.usd_f = Float64Array.from([1.5, NaN, 1, 3]);
    expect(usdE18(prices, 3)).toBe(3n * 10n ** 18n);
  });
});
