import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { compareDecimal, D, formatDown, formatUnits, formatUnitsWords, formatUsd, isoSeconds, parseUnits, unitPriceE18 } from './numbers.js';

// Oracle: string arithmetic only, written independently of the implementation.
function naiveUnits(v: bigint, decimals: number): string {
  const sign = v < 0n ? '-' : '';
  const digits = (v < 0n ? -v : v).toString().padStart(decimals + 1, '0');
  const int = digits.slice(0, digits.length - decimals);
  const frac = digits.slice(digits.length - decimals).replace(/0+$/, '');
  const out = frac ? `${int}.${frac}` : int;
  return out === '0' ? '0' : sign + out;
}

describe('formatUnitsWords', () => {
  /** a value as DuckDB's DECIMAL(38, s) holds it: four little-endian 32-bit words, two's complement */
  const wordsOf = (v: bigint) => {
    const u = BigInt.asUintN(128, v);
    return Uint32Array.from([0, 1, 2, 3], (k) => Number((u >> BigInt(32 * k)) & 0xffffffffn));
  };
  // few significant digits times a power of ten (the fast path), or any DECIMAL(38, s) value (the bigint path)
  const value = fc.oneof(
    fc
      .tuple(fc.bigInt({ min: 0n, max: 2n ** 60n }), fc.integer({ min: 0, max: 22 }))
      .map(([m, e]) => m * 10n ** BigInt(e))
      .filter((v) => v < 2n ** 127n),
    fc.bigInt({ min: -(2n ** 127n), max: 2n ** 127n - 1n }),
    fc.constantFrom(0n, 1n, -1n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 10n ** 18n, 2n ** 127n - 1n, -(2n ** 127n)),
  );
  it('gives the string oracle and the double of that string (Number), at any row', () => {
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 24 }), fc.integer({ min: 0, max: 3 }), (v, d, i) => {
        const words = new Uint32Array(16);
        words.set(wordsOf(v), 4 * i);
        const text: string[] = [];
        const float = new Float64Array(4);
        formatUnitsWords(words, i, d, text, float);
        expect(text[i]).toBe(naiveUnits(v, d));
        expect(Object.is(float[i], Number(naiveUnits(v, d)))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('formatUnits / parseUnits', () => {
  it('matches the string oracle and round-trips exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.integer({ min: 0, max: 36 }), (v, d) => {
        const s = formatUnits(v, d);
        expect(s).toBe(naiveUnits(v, d));
        expect(s).not.toMatch(/e|\.$|\.\d*0$/);
        expect(parseUnits(s, d)).toBe(v);
      }),
      { numRuns: 5000 },
    );
  });
  it('examples', () => {
    expect(formatUnits(0n, 6)).toBe('0');
    expect(formatUnits(1_500_000n, 6)).toBe('1.5');
    expect(formatUnits(-1n, 18)).toBe('-0.000000000000000001');
    expect(formatUnits(10n ** 30n, 18)).toBe('1000000000000');
  });
  it('error: excess precision is rejected, not rounded', () => {
    expect(() => parseUnits('1.1234567', 6)).toThrow(/more than 6 fractional digits/);
    expect(() => parseUnits('1e5', 6)).toThrow(/not a decimal string/);
  });
});

const Wide = Decimal.clone({ precision: 200, rounding: Decimal.ROUND_DOWN });

describe('unitPriceE18', () => {
  it('is (assets/10^dec)/(supply/10^18) truncated at 18 digits', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 32n }), fc.bigInt({ min: 1n, max: 10n ** 32n }), fc.constantFrom(0, 6, 8, 18, 24), (assets, supply, dec) => {
        const exact = new Wide(assets.toString()).mul(new Wide(10).pow(18)).div(new Wide(supply.toString()).mul(new Wide(10).pow(dec)));
        expect(formatUnits(unitPriceE18(assets, supply, dec), 18)).toBe(formatDown(exact, 18));
      }),
    );
  });
});

describe('formatUsd / formatDown', () => {
  it('USD rounds half-even at 6 places', () => {
    expect(formatUsd(new D('1.0000005'))).toBe('1');
    expect(formatUsd(new D('1.0000015'))).toBe('1.000002');
    expect(formatUsd(new D('-0.0000004'))).toBe('0');
    expect(formatUsd(new D('123456789012345678901234.5'))).toBe('123456789012345678901234.5');
    expect(formatUsd(new D('0.00000001'))).toBe('0');
  });
  it('formatDown truncates toward zero, never exponent notation', () => {
    expect(formatDown(new D('-1.99'), 1)).toBe('-1.9');
    expect(formatDown(new D('1e-30'), 18)).toBe('0');
    expect(formatDown(new D('1e30'), 18)).toBe('1000000000000000000000000000000');
  });
  it('isoSeconds: RFC 3339 UTC, whole seconds', () => {
    expect(isoSeconds(1_700_000_000)).toBe('2023-11-14T22:13:20Z');
    // by hand for whole seconds of years 1970–9999: what Date's ISO string gives, at any instant
    const viaDate = (s: number) => `${new Date(s * 1000).toISOString().slice(0, -5)}Z`;
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 0, max: 253_402_300_799 }), fc.integer({ min: 0, max: 4_102_444_800 }), fc.double({ min: -1e11, max: 3e11, noNaN: true })),
        (s) => {
          expect(isoSeconds(s)).toBe(viaDate(s));
        },
      ),
      { numRuns: 20_000, seed: 34 },
    );
    for (const s of [0, 59, 86_399, 86_400, 951_782_400, 951_868_800, 4_107_456_000, 253_402_300_799, 253_402_300_800, -1])
      expect(isoSeconds(s)).toBe(viaDate(s));
  });
});

describe('compareDecimal', () => {
  it('orders decimal strings as their exact values (oracle: bigints at a common scale)', () => {
    const dec = fc.tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 20 }));
    fc.assert(
      fc.property(dec, dec, ([a, da], [b, db]) => {
        const sa = formatUnits(a, da);
        const sb = formatUnits(b, db);
        const scale = Math.max(da, db);
        const ua = a * 10n ** BigInt(scale - da);
        const ub = b * 10n ** BigInt(scale - db);
        expect(compareDecimal(sa, sb)).toBe(ua < ub ? -1 : ua > ub ? 1 : 0);
        expect(compareDecimal(sa, sa)).toBe(0);
      }),
      { numRuns: 2000 },
    );
  });
});
