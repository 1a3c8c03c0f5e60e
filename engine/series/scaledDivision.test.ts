import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { I128Array } from '../../model/int128.js';
import { divScaledInto, u32View, unitPriceScale, wordsToNumber } from './scaledDivision.js';

// Oracle: plain bigint floor division.
const floorScaled = (a: bigint, s: bigint, k: number): bigint => (a * 10n ** BigInt(k)) / s;

function run(a: bigint, s: bigint, decimals: number): bigint | null {
  const A = new I128Array(1);
  const S = new I128Array(1);
  const Q = new I128Array(1);
  A.set(0, a);
  S.set(0, s);
  const ok = divScaledInto(u32View(A.words), u32View(S.words), 0, unitPriceScale(decimals)!, u32View(Q.words));
  return ok ? Q.get(0) : null;
}

const decimals = fc.constantFrom(0, 6, 8, 12, 18, 24, 36);
const bits = (max: number) => fc.integer({ min: 1, max }).chain((b) => fc.bigInt({ min: 0n, max: (1n << BigInt(b)) - 1n }));

describe('divScaledInto', () => {
  it('equals bigint floor(a·10^k / s) whenever it accepts the input', () => {
    fc.assert(
      fc.property(bits(127), bits(110), decimals, (a, s0, dec) => {
        const s = s0 + 1n;
        const q = run(a, s, dec);
        if (q !== null) expect(q).toBe(floorScaled(a, s, 36 - dec));
      }),
      { numRuns: 3000 },
    );
  });

  it('accepts every realistic unit price, exact divisions and remainders next to s included', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: (1n << 99n) - 1n }),
        fc.bigInt({ min: 0n, max: 4n * 10n ** 18n }),
        fc.constantFrom(-1n, 0n, 1n),
        decimals,
        (s, price, nudge, dec) => {
          const k = 36 - dec;
          // assets such that the quotient is `price` with remainder 0, 1 or s − 1
          const base = (price * s) / 10n ** BigInt(k);
          const a = base + nudge < 0n ? 0n : base + nudge;
          fc.pre(a < 1n << 126n); // assets themselves must fit HUGEINT
          fc.pre(floorScaled(a, s, k) < 1n << 62n); // a unit price, not a tiny-supply artefact
          const q = run(a, s, dec);
          expect(q).toBe(floorScaled(a, s, k));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('declines what it cannot prove: negative assets, supply ≥ 2^100, zero supply, quotients ≥ 2^62', () => {
    expect(run(-5n, 10n, 18)).toBeNull();
    expect(run(1n, 1n << 100n, 18)).toBeNull();
    expect(run(1n, 0n, 18)).toBeNull();
    expect(run(1n << 70n, 1n, 18)).toBeNull();
    expect(run(10n ** 18n, 10n ** 18n, 18)).toBe(10n ** 18n);
  });

  it('has no scale beyond 36 decimals', () => {
    expect(unitPriceScale(37)).toBeNull();
    expect(unitPriceScale(36)?.k).toBe(0);
  });
});

describe('wordsToNumber', () => {
  it('is the correctly rounded double of the 128-bit value, negatives included', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 127n), max: (1n << 127n) - 1n }), (v) => {
        const a = new I128Array(1);
        a.set(0, v);
        expect(wordsToNumber(u32View(a.words), 0)).toBe(Number(v));
      }),
    );
  });
});
