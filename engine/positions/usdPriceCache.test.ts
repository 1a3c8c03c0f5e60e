import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { usdIndexAt } from '../series/asOf.js';
import { makePrices } from '../../test/helpers/positionFixtures.js';
import { usdBig, usdE18, usdFloat, usdIndexIn, usdTable } from './usdPriceCache.js';

const H = 3600;

describe('USD price table', () => {
  it('holds every price exactly (one 64-bit word each when all fit, two otherwise) and as a double', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.constant(64n), fc.constant(128n)),
        fc.array(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), { minLength: 1, maxLength: 30 }),
        (bits, raw) => {
          const values = raw.map((v) => v & ((1n << bits) - 1n)); // 64: every price in one word
          const strs = values.map((v) => {
            const s = v.toString().padStart(19, '0');
            return `${s.slice(0, -18)}.${s.slice(-18)}`;
          });
          const prices = makePrices(
            values.map((_, i) => i * H),
            strs,
          );
          const table = usdTable(prices);
          if (bits === 64n) expect(table.hi).toBeNull();
          values.forEach((v, i) => {
            expect(usdBig(table, i)).toBe(v);
            expect(usdFloat(table, i)).toBe(Number(strs[i]));
          });
        },
      ),
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

  it('hourly price series (the arithmetic path) answer exactly what usdIndexAt answers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.integer({ min: -H, max: 210 * H }), { maxLength: 30 }),
        (n, gapAt, qs) => {
          const t0 = 1_699_999_200;
          const hourly = Array.from({ length: n }, (_, i) => t0 + i * H);
          const gappy = hourly.map((t, i) => (i > gapAt ? t + 50 * H : t));
          for (const ts of [hourly, gappy]) {
            const prices = makePrices(
              ts,
              ts.map(() => '2'),
            );
            const table = usdTable(prices);
            expect(table.hourly).toBe(ts === hourly || n <= gapAt + 1);
            for (const q of [...qs.map((x) => t0 + x), ...ts.flatMap((t) => [t - 1, t, t + 48 * H, t + 48 * H + 1])]) {
              expect(usdIndexIn(table, q)).toBe(usdIndexAt(prices, q));
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
