// The limb arithmetic of the typed metrics columns against plain bigint (the oracle is written
// here, independently of the kernels' BigInt fallbacks): rescaling to 18 decimals and USD
// values half-even at 6, for every sign, size, numeraire decimals (0–36) and price width, and
// "no representation" exactly when the DECIMAL(38, s) range or scale cannot hold the value.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { usdUnits } from '../metrics/usdValue.js';
import { scaleTo18Into, setWordsAt, usdHalfEvenInto, wordsAt } from './decimalWords.js';

const LIMIT = 10n ** 38n;
const inRange = (x: bigint): bigint | null => (x < LIMIT && x > -LIMIT ? x : null);

/** Oracle: x / 10^k, ties to the even neighbour, by plain bigint division. */
function oracleHalfEven(x: bigint, k: number): bigint {
  const m = 10n ** BigInt(k);
  const sign = x < 0n ? -1n : 1n;
  const a = x * sign;
  const q = a / m;
  const r = a % m;
  const up = 2n * r > m || (2n * r === m && q % 2n === 1n);
  return sign * (up ? q + 1n : q);
}

function oracleScale(units: bigint, decimals: number): bigint | null {
  if (decimals <= 18) return inRange(units * 10n ** BigInt(18 - decimals));
  const m = 10n ** BigInt(decimals - 18);
  return units % m === 0n ? inRange(units / m) : null;
}

const words = (x: bigint): Uint32Array => {
  const w = new Uint32Array(4);
  setWordsAt(w, 0, x);
  return w;
};

function scale(units: bigint, decimals: number): bigint | null {
  const out = new Uint32Array(8).fill(0xdeadbeef);
  // a non-zero output offset, so the offsets are honoured
  return scaleTo18Into(words(units), 0, decimals, out, 4) ? wordsAt(out, 4) : null;
}

function usd(units: bigint, decimals: number, price: bigint): bigint | null {
  // the price is entry 1 of a two-entry table (u32 views of 64-bit halves, as usdTable keeps them)
  const lo = new BigUint64Array([7n, price & ((1n << 64n) - 1n)]);
  const hi = price >> 64n === 0n ? null : new BigUint64Array([9n, price >> 64n]);
  const u32 = (x: BigUint64Array) => new Uint32Array(x.buffer, x.byteOffset, x.length * 2);
  const out = new Uint32Array(4);
  return usdHalfEvenInto(words(units), 0, decimals, u32(lo), hi === null ? null : u32(hi), 1, out, 0) ? wordsAt(out, 0) : null;
}

const bitsBig = (maxBits: number) => fc.integer({ min: 0, max: maxBits }).chain((b) => fc.bigInt({ min: 0n, max: (1n << BigInt(b)) - 1n }));
const amount = fc.oneof(
  { weight: 6, arbitrary: bitsBig(127) },
  { weight: 1, arbitrary: bitsBig(127).map((x) => -x) },
  { weight: 1, arbitrary: fc.constantFrom(0n, 1n, (1n << 127n) - 1n, -(1n << 127n), LIMIT - 1n, LIMIT, 10n ** 20n - 1n, 10n ** 20n, 10n ** 26n) },
);
const price = fc.oneof(
  { weight: 4, arbitrary: bitsBig(128) },
  { weight: 2, arbitrary: fc.bigInt({ min: 0n, max: 10n ** 24n }) },
  { weight: 1, arbitrary: fc.constantFrom(0n, 1n, 10n ** 18n, 5n * 10n ** 17n, (1n << 64n) - 1n, 1n << 64n, (1n << 128n) - 1n) },
);
const decimals = fc.oneof(fc.integer({ min: 0, max: 36 }), fc.constantFrom(0, 6, 8, 18));

describe('scaleTo18Into', () => {
  it('equals bigint rescaling to 18 decimals, and refuses exactly what DECIMAL(38,18) cannot hold', () => {
    fc.assert(
      fc.property(amount, decimals, (x, d) => {
        expect(scale(x, d)).toBe(oracleScale(x, d));
      }),
      { numRuns: 20_000 },
    );
  });

  it('edges: the last value below 10^38 fits, 10^38 does not; above 18 decimals only exact divisions fit', () => {
    expect(scale(10n ** 20n - 1n, 0)).toBe(10n ** 38n - 10n ** 18n);
    expect(scale(10n ** 20n, 0)).toBeNull();
    expect(scale(LIMIT - 1n, 18)).toBe(LIMIT - 1n);
    expect(scale(LIMIT, 18)).toBeNull();
    expect(scale(-(LIMIT - 1n), 18)).toBe(-(LIMIT - 1n));
    expect(scale(123_000_000n, 24)).toBe(123n);
    expect(scale(123_000_001n, 24)).toBeNull();
    expect(scale(1n, 6)).toBe(10n ** 12n);
  });
});

describe('usdHalfEvenInto', () => {
  it('equals bigint half-even rounding of amount × price at 6 decimals (and engine/metrics usdUnits), or no value beyond 10^38', () => {
    fc.assert(
      fc.property(amount, decimals, price, (x, d, p) => {
        const want = inRange(oracleHalfEven(x * p, d + 12));
        expect(usd(x, d, p)).toBe(want);
        if (want !== null) expect(want).toBe(usdUnits(x, d, p));
      }),
      { numRuns: 20_000 },
    );
  });

  it('at and next to exact multiples and ties of 10^k within the fast range (results below 2^62, up to 18 decimals)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 18 }),
        fc.bigInt({ min: 0n, max: (1n << 58n) - 1n }),
        fc.nat(),
        fc.constantFrom(-1n, 0n, 1n),
        fc.constantFrom(-1n, 0n, 1n),
        fc.boolean(),
        (d, q, xs, da, dp, tie) => {
          const k = d + 12;
          const x = xs % (k + 1);
          // a·p = q·10^k exactly, or (2q+1)·10^k / 2 (a tie), then nudged by ±1 on either factor
          const a0 = (tie ? 2n * q + 1n : q) * 10n ** BigInt(x);
          const p0 = tie ? (x < k ? 5n * 10n ** BigInt(k - x - 1) : 0n) : 10n ** BigInt(k - x);
          const a = a0 + da < 0n ? a0 : a0 + da;
          const p = p0 + dp < 0n ? p0 : p0 + dp;
          fc.pre(a < 1n << 127n); // an amount is a signed 128-bit word
          expect(usd(a, d, p)).toBe(inRange(oracleHalfEven(a * p, k)));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('a product a few units above or below a tie, where the double estimate cannot tell which side it is on', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 18 }),
        fc.bigInt({ min: 0n, max: (1n << 52n) - 1n }),
        fc.bigInt({ min: -(10n ** 6n), max: 10n ** 6n }),
        fc.constantFrom(1n, 2n, 7n),
        (d, q, delta, p) => {
          const m = 10n ** BigInt(d + 12);
          // a · p = (q + 1/2) · 10^k + delta · p: p small, so a carries the whole value
          const a = ((2n * q + 1n) * m) / (2n * p) + delta;
          fc.pre(a >= 0n && a < 1n << 127n);
          expect(usd(a, d, p)).toBe(inRange(oracleHalfEven(a * p, d + 12)));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('ties go to the even neighbour; just above and below a tie round to nearest', () => {
    // 6 decimals: 0.0000005 USD is a tie between 0 and 0.000001
    const half = 5n * 10n ** 17n; // price 0.5 USD
    expect(usd(1n, 6, half)).toBe(0n); // 0.0000005 → 0 (even)
    expect(usd(3n, 6, half)).toBe(2n); // 0.0000015 → 0.000002 (even)
    expect(usd(5n, 6, half)).toBe(2n); // 0.0000025 → 0.000002 (even)
    expect(usd(1n, 6, half + 1n)).toBe(1n); // just above a tie
    expect(usd(1n, 6, half - 1n)).toBe(0n); // just below
    // k = 30 is divided in passes of 10 digits: a remainder below the last pass breaks a tie
    expect(usd(1n, 18, 5n * 10n ** 29n)).toBe(0n); // exactly 0.5 units: even 0
    expect(usd(1n, 18, 5n * 10n ** 29n + 1n)).toBe(1n); // tie broken by the lowest digit
    expect(usd(3n, 18, 5n * 10n ** 29n)).toBe(2n);
  });

  it('zero amount or zero price is 0; the largest representable result fits and the next does not', () => {
    expect(usd(0n, 18, 10n ** 30n)).toBe(0n);
    expect(usd(10n ** 30n, 18, 0n)).toBe(0n);
    // amount 10^38 − 1 units of a 0-decimal token at 1 USD − 10^-18: rounds to 10^44 − …, out of range
    expect(usd(LIMIT - 1n, 0, 10n ** 18n)).toBeNull();
    // (10^32 − 1) USD with 0 decimals at 1 USD: 10^38 − 10^6 units of 10^-6, in range
    expect(usd(10n ** 32n - 1n, 0, 10n ** 18n)).toBe(LIMIT - 10n ** 6n);
    expect(usd(10n ** 32n, 0, 10n ** 18n)).toBeNull();
  });
});
