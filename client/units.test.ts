import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AmountError } from './errors.js';
import { fromBaseUnits, toBaseUnits } from './units.js';

// DESIGN §4.7: no exponent, "0" for zero, no leading zeros, no trailing fractional zeros, "-" only on non-zero
const CANONICAL = /^(?:0|-?(?:0\.\d*[1-9]|[1-9]\d*(?:\.\d*[1-9])?))$/;

// ---- naive oracles: digit by digit, and division with remainder ----

function naiveToBase(s: string, decimals: number): bigint {
  const negative = s.startsWith('-');
  const [int, frac = ''] = (negative ? s.slice(1) : s).split('.');
  let n = 0n;
  for (const ch of int!) n = n * 10n + BigInt(ch.charCodeAt(0) - 48);
  for (let i = 0; i < decimals; i++) n = n * 10n + BigInt(i < frac.length ? frac.charCodeAt(i) - 48 : 0);
  return negative ? -n : n;
}

function naiveFromBase(n: bigint, decimals: number): string {
  const abs = n < 0n ? -n : n;
  const unit = 10n ** BigInt(decimals);
  let frac = decimals === 0 ? '' : (abs % unit).toString().padStart(decimals, '0');
  while (frac.endsWith('0')) frac = frac.slice(0, -1);
  const text = (abs / unit).toString() + (frac ? `.${frac}` : '');
  return n < 0n ? `-${text}` : text;
}

const decimalsArb = fc.oneof(fc.constantFrom(0, 6, 8, 18), fc.integer({ min: 0, max: 40 }));
const bigArb = fc.oneof(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.constantFrom(0n, 1n, -1n, 10n ** 18n, -(10n ** 18n) + 1n));

/** A decimal string with at most `decimals` fractional digits, possibly with leading/trailing zeros. */
const amountArb = decimalsArb.chain((decimals) =>
  fc
    .record({
      sign: fc.boolean(),
      int: fc.stringMatching(/^\d{1,30}$/),
      frac: fc.stringMatching(new RegExp(`^\\d{0,${decimals}}$`)),
    })
    .map(({ sign, int, frac }) => ({ decimals, text: `${sign ? '-' : ''}${int}${frac ? `.${frac}` : ''}` })),
);

describe('toBaseUnits / fromBaseUnits: properties against naive oracles', () => {
  it('fromBaseUnits agrees with division and remainder, in canonical form', () => {
    fc.assert(
      fc.property(bigArb, decimalsArb, (n, d) => {
        const s = fromBaseUnits(n, d);
        expect(s).toBe(naiveFromBase(n, d));
        expect(s).toMatch(CANONICAL);
      }),
      { numRuns: 2000 },
    );
  });

  it('toBaseUnits agrees with a digit-by-digit reading, for any spelling within the decimals', () => {
    fc.assert(
      fc.property(amountArb, ({ text, decimals }) => {
        expect(toBaseUnits(text, decimals)).toBe(naiveToBase(text, decimals));
      }),
      { numRuns: 2000 },
    );
  });

  it('round trips: base units → string → base units, and canonical string → units → string', () => {
    fc.assert(
      fc.property(bigArb, decimalsArb, (n, d) => {
        const s = fromBaseUnits(n, d);
        expect(toBaseUnits(s, d)).toBe(n);
        expect(fromBaseUnits(toBaseUnits(s, d), d)).toBe(s);
      }),
      { numRuns: 2000 },
    );
  });

  it('a digit past the decimals is EXCESS_PRECISION unless it is a trailing zero', () => {
    fc.assert(
      fc.property(bigArb, fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 9 }), (n, d, extra) => {
        const text = `${naiveFromBase(n, 0)}.${'0'.repeat(d)}${extra}`;
        if (extra === 0) expect(toBaseUnits(text, d)).toBe(n * 10n ** BigInt(d));
        else expect(() => toBaseUnits(text, d)).toThrow(expect.objectContaining({ code: 'EXCESS_PRECISION' }));
      }),
      { numRuns: 500 },
    );
  });
});

describe('toBaseUnits / fromBaseUnits: examples and exact errors', () => {
  it('examples', () => {
    expect(toBaseUnits('-12.5', 6)).toBe(-12_500_000n);
    expect(toBaseUnits('0.000000000000000001', 18)).toBe(1n);
    expect(toBaseUnits('1.50', 1)).toBe(15n);
    expect(toBaseUnits('-0', 6)).toBe(0n);
    expect(fromBaseUnits(-12_500_000n, 6)).toBe('-12.5');
    expect(fromBaseUnits(0n, 18)).toBe('0');
    expect(fromBaseUnits(1n, 18)).toBe('0.000000000000000001');
    expect(fromBaseUnits(123n, 0)).toBe('123');
  });

  it('error: malformed strings are INVALID_AMOUNT with the value quoted', () => {
    for (const bad of ['1e5', '', ' 1', '1 ', '+1', '.5', '5.', '1.2.3', '0x10', '١']) {
      let caught: unknown;
      try {
        toBaseUnits(bad, 6);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(AmountError);
      expect(caught).toMatchObject({
        code: 'INVALID_AMOUNT',
        message: `toBaseUnits: ${JSON.stringify(bad)} is not a decimal string; expected digits with an optional "-" and fraction, e.g. "-12.5"`,
        details: { value: bad },
      });
    }
    expect(() => toBaseUnits(12 as unknown as string, 6)).toThrow(
      'toBaseUnits: 12 is not a decimal string; expected digits with an optional "-" and fraction, e.g. "-12.5"',
    );
  });

  it('error: excess precision is EXCESS_PRECISION, never rounded', () => {
    expect(() => toBaseUnits('1.0000001', 6)).toThrow('toBaseUnits: "1.0000001" has more fractional digits than 6 decimals hold');
    expect(() => toBaseUnits('0.5', 0)).toThrow('toBaseUnits: "0.5" has more fractional digits than 0 decimals hold');
    try {
      toBaseUnits('-0.0000000000000000001', 18);
    } catch (e) {
      expect(e).toMatchObject({ name: 'AmountError', code: 'EXCESS_PRECISION', details: { value: '-0.0000000000000000001', decimals: 18 } });
    }
  });

  it('error: decimals out of range and a non-bigint value are INVALID_ARGUMENT', () => {
    expect(() => toBaseUnits('1', -1)).toThrow('toBaseUnits: decimals must be an integer from 0 to 255, got -1');
    expect(() => toBaseUnits('1', 1.5)).toThrow('toBaseUnits: decimals must be an integer from 0 to 255, got 1.5');
    expect(() => fromBaseUnits(1n, 256)).toThrow('fromBaseUnits: decimals must be an integer from 0 to 255, got 256');
    expect(() => fromBaseUnits(1 as unknown as bigint, 6)).toThrow('fromBaseUnits: value must be a bigint, got number');
  });
});
