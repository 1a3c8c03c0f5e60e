import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asOfIndex, usdIndexAt } from '../series/asOf.js';
import { asOfIndexFast, isHourlyContiguous } from './fastAsOf.js';
import { makePrices, makeSeries } from '../../test/helpers/positionFixtures.js';
import { usdIndexIn, usdTable } from './usdPriceCache.js';

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
        const prices = makePrices(
          ts,
          ts.map(() => '1'),
        );
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
