import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { formatUnits } from '../../model/format/numbers.js';
import { halfEven } from '../../model/format/numbers.js';
import { usdString } from './usdValue.js';

const Wide = Decimal.clone({ precision: 200 });

describe('usdString', () => {
  it('equals the decimal.js product rounded half-even at 6 places', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.constantFrom(0, 6, 8, 18), fc.bigInt({ min: 0n, max: 10n ** 24n }), (amount, dec, price) => {
        const oracle = new Wide(formatUnits(amount, dec)).times(formatUnits(price, 18)).toDecimalPlaces(6, Decimal.ROUND_HALF_EVEN);
        expect(usdString(amount, dec, price)).toBe(formatUnits(BigInt(oracle.times(1e6).toFixed(0)), 6));
      }),
    );
  });
  it('half-even ties', () => {
    expect(halfEven(25n, 1)).toBe(2n);
    expect(halfEven(35n, 1)).toBe(4n);
    expect(halfEven(-25n, 1)).toBe(-2n);
    expect(usdString(1_000_000n, 6, 500_000_000_000n)).toBe('0'); // 1 × 0.0000005 → 0 (half to even)
    expect(usdString(3_000_000n, 6, 500_000_000_000n)).toBe('0.000002'); // 3 × 0.0000005 → 0.000002
  });
});
