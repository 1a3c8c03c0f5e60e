import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalString, scaledDecimal } from '../../model/format/numbers.js';
import { displayUrl, JsonNumber, parseExactJson, pathValue, type ExactJson } from './exactJson.js';

/** Numbers back to JS numbers, to compare with JSON.parse. */
function toPlain(v: ExactJson): unknown {
  if (v instanceof JsonNumber) return Number(v.text);
  if (Array.isArray(v)) return v.map(toPlain);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) Object.defineProperty(out, k, { value: toPlain(x), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

const parseError = (text: string): string => {
  try {
    parseExactJson(text);
  } catch (e) {
    expect(e).toBeInstanceOf(SyntaxError);
    return (e as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(text)} to fail`);
};

/** Independent oracle: decimal.js at the given rounding, trailing zeros stripped. */
function oracle(text: string, dp: number, mode: 'down' | 'half-even'): string {
  const D = Decimal.clone({ precision: 200 });
  const s = new D(text).toDecimalPlaces(dp, mode === 'down' ? Decimal.ROUND_DOWN : Decimal.ROUND_HALF_EVEN).toFixed();
  const t = s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
  return t === '-0' ? '0' : t;
}

describe('parseExactJson', () => {
  it('keeps number literals as their source text', () => {
    const v = parseExactJson(
      ' {"a": 0.99987654321, "b": [1.2e9, -0, 1E-7, 12345678901234567890123], "c": "x\\u00e9\\n\\"", "d": true, "e": null, "f": {}, "g": []} ',
    );
    expect(v).toEqual({
      a: new JsonNumber('0.99987654321'),
      b: [new JsonNumber('1.2e9'), new JsonNumber('-0'), new JsonNumber('1E-7'), new JsonNumber('12345678901234567890123')],
      c: 'xé\n"',
      d: true,
      e: null,
      f: {},
      g: [],
    });
  });

  it('reads "__proto__" as a plain key, as JSON.parse does', () => {
    const v = parseExactJson('{"__proto__": {"x": 1}}') as Record<string, ExactJson>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['__proto__']);
    expect(pathValue(v, '__proto__.x')).toEqual({ found: true, value: new JsonNumber('1') });
  });

  it('agrees with JSON.parse on any JSON value (fuzz)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(toPlain(parseExactJson(text))).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('accepts exactly what JSON.parse accepts (fuzz over JSON-ish text)', () => {
    const chars = [
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"',
      '0',
      '1',
      '9',
      '.',
      'e',
      'E',
      '-',
      '+',
      ' ',
      '\n',
      'a',
      't',
      'r',
      'u',
      'n',
      'l',
      'f',
      's',
      '\\',
      'x',
      '\u0001',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...chars), { maxLength: 14 }), (parts) => {
        const text = parts.join('');
        let native = true;
        try {
          JSON.parse(text);
        } catch {
          native = false;
        }
        let ours = true;
        try {
          parseExactJson(text);
        } catch {
          ours = false;
        }
        expect(ours).toBe(native);
      }),
      { numRuns: 3000 },
    );
  });

  it('error: names what was expected and where', () => {
    expect(parseError('')).toBe('Unexpected end of JSON input (expected a value) at position 0');
    expect(parseError('<html>')).toBe('Unexpected "<" (expected a value) at position 0');
    expect(parseError('{"a":1,}')).toBe('Unexpected "}" (expected a key) at position 7');
    expect(parseError('[1 2]')).toBe('Unexpected "2" (expected "," or "]") at position 3');
    expect(parseError('01')).toBe('Unexpected "1" (expected the end of the body) at position 1');
    expect(parseError('{"coins":{"a":{"price":0.99,"sym')).toBe('Unexpected end of JSON input (unterminated string) at position 32');
    expect(parseError('"\\x"')).toBe('Unexpected "\\"" (bad escape in string) at position 0');
    expect(parseError('['.repeat(600))).toMatch(/^Unexpected "\[" \(nested too deeply\) at position 513$/);
  });
});

describe('decimalString', () => {
  it('formats exactly: no exponent, no trailing zeros, "0" for zero', () => {
    expect(decimalString('0.99987654321', 18, 'down')).toEqual({ ok: true, value: '0.99987654321' });
    expect(decimalString('1.2e9', 6, 'half-even')).toEqual({ ok: true, value: '1200000000' });
    expect(decimalString('1.2345E-7', 18, 'down')).toEqual({ ok: true, value: '0.00000012345' });
    expect(decimalString('2.50000', 6, 'half-even')).toEqual({ ok: true, value: '2.5' });
    expect(decimalString('0.1234567890123456789999', 18, 'down')).toEqual({ ok: true, value: '0.123456789012345678' });
    expect(decimalString('-0', 18, 'down')).toEqual({ ok: true, value: '0' });
    expect(decimalString('0e-5', 6, 'half-even')).toEqual({ ok: true, value: '0' });
    expect(decimalString('1e-999999999', 6, 'half-even')).toEqual({ ok: true, value: '0' });
    expect(decimalString('-1.5', 18, 'down')).toEqual({ ok: true, value: '-1.5' });
  });

  it('rounds half-even at 6 places and truncates toward zero', () => {
    expect(decimalString('0.0000005', 6, 'half-even')).toEqual({ ok: true, value: '0' });
    expect(decimalString('0.0000015', 6, 'half-even')).toEqual({ ok: true, value: '0.000002' });
    expect(decimalString('0.00000250000000001', 6, 'half-even')).toEqual({ ok: true, value: '0.000003' });
    expect(decimalString('-0.0000015', 6, 'half-even')).toEqual({ ok: true, value: '-0.000002' });
    expect(decimalString('0.9999999', 6, 'half-even')).toEqual({ ok: true, value: '1' });
    expect(decimalString('0.9999999', 6, 'down')).toEqual({ ok: true, value: '0.999999' });
    expect(decimalString('-0.9999999', 6, 'down')).toEqual({ ok: true, value: '-0.999999' });
  });

  it('error: not a number, or too large for DECIMAL(38, dp)', () => {
    for (const bad of ['', 'abc', '1.', '.5', '0x10', 'Infinity', 'NaN', '1e', '1,5'])
      expect(decimalString(bad, 6, 'half-even')).toEqual({ ok: false, reason: 'not a number' });
    expect(decimalString('1e32', 6, 'half-even')).toEqual({ ok: false, reason: 'too large' });
    expect(decimalString('99999999999999999999999999999999.999999', 6, 'half-even')).toEqual({ ok: true, value: '99999999999999999999999999999999.999999' });
    expect(decimalString('1e20', 18, 'down')).toEqual({ ok: false, reason: 'too large' });
    expect(decimalString('1e999999999', 18, 'down')).toEqual({ ok: false, reason: 'too large' });
  });

  it('matches a decimal.js oracle for any literal (fuzz)', () => {
    const literal = fc
      .tuple(
        fc.boolean(),
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        fc.integer({ min: 0, max: 25 }),
        fc.option(fc.integer({ min: -40, max: 20 })),
        fc.constantFrom('e', 'E'),
      )
      .map(([neg, coef, fracDigits, exp, e]) => {
        const s = coef.toString().padStart(fracDigits + 1, '0');
        const body = fracDigits > 0 ? `${s.slice(0, -fracDigits)}.${s.slice(-fracDigits)}` : s;
        return `${neg ? '-' : ''}${body}${exp === null ? '' : `${e}${exp}`}`;
      });
    fc.assert(
      fc.property(literal, fc.constantFrom(6, 18), fc.constantFrom<'down' | 'half-even'>('down', 'half-even'), (text, dp, mode) => {
        const got = decimalString(text, dp, mode);
        const want = oracle(text, dp, mode);
        if (want.replace(/^-/, '').split('.')[0]!.length > 38 - dp) expect(got).toEqual({ ok: false, reason: 'too large' });
        else expect(got).toEqual({ ok: true, value: want });
      }),
      { numRuns: 2000 },
    );
  });

  it('scaledDecimal floors milliseconds to seconds', () => {
    expect(scaledDecimal('1700000000999', -3, 'down')).toEqual({ units: 1700000000n });
    expect(scaledDecimal('1.7000000001e12', -3, 'down')).toEqual({ units: 1700000000n });
  });
});

describe('pathValue', () => {
  const body = parseExactJson('{"data":{"tvl":12.5,"chains":[{"usd":"1"},{"usd":2}]},"list":[[3]],"":{"x":1},"constructor":null}');

  it('walks keys and array indexes; the empty path is the body', () => {
    expect(pathValue(body, '')).toEqual({ found: true, value: body });
    expect(pathValue(body, 'data.tvl')).toEqual({ found: true, value: new JsonNumber('12.5') });
    expect(pathValue(body, 'data.chains.1.usd')).toEqual({ found: true, value: new JsonNumber('2') });
    expect(pathValue(body, 'data.chains.0.usd')).toEqual({ found: true, value: '1' });
    expect(pathValue(body, 'list.0.0')).toEqual({ found: true, value: new JsonNumber('3') });
    expect(pathValue(body, 'constructor')).toEqual({ found: true, value: null });
    expect(pathValue(parseExactJson('[10,20]'), '1')).toEqual({ found: true, value: new JsonNumber('20') });
  });

  it('error: says where the walk stopped', () => {
    expect(pathValue(body, 'data.total')).toEqual({ found: false, reason: '"data" has no key "total"' });
    expect(pathValue(body, 'tvl')).toEqual({ found: false, reason: 'the body has no key "tvl"' });
    expect(pathValue(body, 'data.chains.2.usd')).toEqual({ found: false, reason: '"data.chains" has no index 2 (length 2)' });
    expect(pathValue(body, 'data.chains.first')).toEqual({ found: false, reason: '"data.chains" is an array and "first" is not an index' });
    expect(pathValue(body, 'data.chains.01')).toEqual({ found: false, reason: '"data.chains" is an array and "01" is not an index' });
    expect(pathValue(body, 'data.tvl.usd')).toEqual({ found: false, reason: '"data.tvl" is a number, not an object or array' });
    expect(pathValue(body, 'toString')).toEqual({ found: false, reason: 'the body has no key "toString"' });
    expect(pathValue(body, 'constructor.x')).toEqual({ found: false, reason: '"constructor" is null, not an object or array' });
  });
});

describe('displayUrl', () => {
  it('hides query values not kept, and user-info', () => {
    expect(displayUrl('https://user:pw@api.example.com/v1/tvl?apikey=SECRET&start=5&x')).toBe('https://api.example.com/v1/tvl?apikey=***&start=***&x=***');
    expect(displayUrl('https://api.example.com/v1/tvl?apikey=SECRET&start=5', ['start'])).toBe('https://api.example.com/v1/tvl?apikey=***&start=5');
    expect(displayUrl('https://api.example.com/a/b')).toBe('https://api.example.com/a/b');
    expect(displayUrl('not a url')).toBe('<invalid url>');
    expect(displayUrl(`https://a.example/${'x'.repeat(400)}`)).toHaveLength(300);
  });
});
