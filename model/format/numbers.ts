// Number and time formatting of DESIGN §4.7, the one module everything that emits numbers
// uses: exact decimal strings (never exponent notation, no trailing zeros, "0" for zero),
// token amounts at most at their decimals, unit prices truncated at 18 digits, USD half-even at 6.
import { Decimal } from 'decimal.js';

/** Decimal configured for replay arithmetic: 60 significant digits, no exponent output. */
export const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_DOWN, toExpNeg: -100, toExpPos: 100 });
export type Dec = InstanceType<typeof D>;

export const UNIT_PRICE_DECIMALS = 18;
export const SHARE_DECIMALS = 18;
export const USD_DECIMALS = 6;

const POW10: bigint[] = Array.from({ length: 80 }, (_, i) => 10n ** BigInt(i));
export function pow10(n: number): bigint {
  return POW10[n] ?? 10n ** BigInt(n);
}

const ZEROS = '0'.repeat(80);

/**
 * A base-unit integer as a human decimal string: 1500000n, 6 → "1.5". One conversion to
 * digits, then the point put in and trailing zeros cut (a division, a remainder and two
 * conversions cost half again as much: positions at an instant format ~20 amounts a request).
 */
export function formatUnits(value: bigint, decimals: number): string {
  let s = value.toString();
  if (decimals === 0) return s;
  const neg = s.charCodeAt(0) === 45;
  if (neg) s = s.slice(1);
  const point = s.length - decimals;
  // the significant end: trailing zeros of the fraction cut, never into the integer part
  let end = s.length;
  const floor = Math.max(point, 0);
  while (end > floor && s.charCodeAt(end - 1) === 48) end--;
  let out: string;
  if (point > 0) out = end > point ? `${s.slice(0, point)}.${s.slice(point, end)}` : s.slice(0, point);
  else if (end === 0) return '0';
  else out = `0.${decimals - s.length <= ZEROS.length ? ZEROS.slice(0, -point) : '0'.repeat(-point)}${s.slice(0, end)}`;
  return neg ? `-${out}` : out;
}

/**
 * The value at row `i` of `words` (little-endian 32-bit words, four per row: a two's-complement
 * 128-bit base-unit integer, as DuckDB's DECIMAL(38, s) holds it) as formatUnits' string and
 * as the double nearest to it, written to `text[i]` and `float[i]`. Prices carry few significant
 * digits: the integer is divided by 10 while it divides evenly, and when the rest fits in 53
 * bits, both come from it with no bigint (the double is one correctly rounded IEEE division of
 * two exact doubles, 10^k being exact to k = 22, so it equals Number(text)); any other value
 * goes through formatUnits and Number.
 */
export function formatUnitsWords(words: Uint32Array, i: number, decimals: number, text: string[], float: Float64Array): void {
  const o = 4 * i;
  let w3 = words[o + 3]!;
  let w2 = words[o + 2]!;
  let w1 = words[o + 1]!;
  let w0 = words[o]!;
  let k = decimals;
  if (w3 >>> 31 === 0 && decimals <= 22) {
    // by 10^4 while it divides (and then by 10): (r · 2^32 + w) / d with r < d ≤ 10^4 stays
    // below 2^46, exact in doubles
    for (let d = 10_000, step = 4; k > 0; ) {
      if (step > k) {
        d = 10;
        step = 1;
      }
      const q3 = Math.floor(w3 / d);
      let r = w3 - d * q3;
      let x = r * 4294967296 + w2;
      const q2 = Math.floor(x / d);
      r = x - d * q2;
      x = r * 4294967296 + w1;
      const q1 = Math.floor(x / d);
      r = x - d * q1;
      x = r * 4294967296 + w0;
      const q0 = Math.floor(x / d);
      if (x - d * q0 !== 0) {
        if (step === 1) break;
        d = 10;
        step = 1;
        continue;
      }
      w3 = q3;
      w2 = q2;
      w1 = q1;
      w0 = q0;
      k -= step;
    }
    if (w3 === 0 && w2 === 0 && w1 < 2 ** 21) {
      const m = w1 * 4294967296 + w0;
      text[i] = k === 0 ? String(m) : pointAt(String(m), k);
      float[i] = m / POW10_F[k]!;
      return;
    }
  }
  const v = (BigInt(words[o + 3]! | 0) << 96n) | (BigInt(words[o + 2]!) << 64n) | (BigInt(words[o + 1]!) << 32n) | BigInt(words[o]!);
  const s = formatUnits(v, decimals);
  text[i] = s;
  float[i] = Number(s);
}

const POW10_F = Array.from({ length: 23 }, (_, k) => 10 ** k);

/** Digits of an integer with a point `k` places from the right ("5", 3 → "0.005"). */
function pointAt(digits: string, k: number): string {
  if (digits.length > k) return `${digits.slice(0, digits.length - k)}.${digits.slice(digits.length - k)}`;
  return `0.${'0'.repeat(k - digits.length)}${digits}`;
}

/** A human decimal string as base units; throws on excess precision or a malformed value. */
export function parseUnits(text: string, decimals: number): bigint {
  const m = /^(-)?(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new RangeError(`not a decimal string: "${text}"`);
  const frac = m[3] ?? '';
  if (frac.length > decimals) throw new RangeError(`"${text}" has more than ${decimals} fractional digits`);
  const v = BigInt(m[2]! + frac.padEnd(decimals, '0'));
  return m[1] ? -v : v;
}

/**
 * Unit price in human units as an 18-decimal base-unit integer, truncated toward zero
 * (DESIGN §4.1): (assets / 10^dec) / (supply / 10^18).
 */
export function unitPriceE18(totalAssets: bigint, totalSupply: bigint, numeraireDecimals: number): bigint {
  // assets·10^(36−dec) / supply, with dec > 36 handled by dividing instead.
  const shift = 36 - numeraireDecimals;
  return shift >= 0 ? (totalAssets * pow10(shift)) / totalSupply : totalAssets / (totalSupply * pow10(-shift));
}

/** x / 10^k rounded half-even (x · 10^-k when k ≤ 0): exact USD rounding in bigint (DESIGN §4.7). */
export function halfEven(x: bigint, k: number): bigint {
  if (k <= 0) return x * pow10(-k);
  const m = pow10(k);
  const neg = x < 0n;
  const a = neg ? -x : x;
  let q = a / m;
  const r2 = (a - q * m) * 2n;
  if (r2 > m || (r2 === m && (q & 1n) === 1n)) q += 1n;
  return neg ? -q : q;
}

/** A Decimal as a plain string rounded toward zero at `dp` places (token amounts, unit prices). */
export function formatDown(x: Dec | Decimal, dp: number): string {
  return trimZeros(new D(x).toDecimalPlaces(dp, Decimal.ROUND_DOWN).toFixed());
}

/** A Decimal as a USD string: half-even at 6 places (DESIGN §4.7). */
export function formatUsd(x: Dec | Decimal): string {
  return trimZeros(new D(x).toDecimalPlaces(USD_DECIMALS, Decimal.ROUND_HALF_EVEN).toFixed());
}

/** Strip trailing fractional zeros and normalize "-0" to "0" (also shortens DuckDB's DECIMAL::VARCHAR). */
export function trimZeros(s: string): string {
  if (s.includes('.')) {
    let end = s.length;
    while (s.charCodeAt(end - 1) === 48) end--;
    if (s.charCodeAt(end - 1) === 46) end--;
    s = s.slice(0, end);
  }
  return s === '-0' ? '0' : s;
}

/** Unix seconds as RFC 3339 UTC with Z and whole seconds. */
export function isoSeconds(seconds: number): string {
  // whole seconds of years 1970–9999 (every instant served) by hand: a Date and its ISO string
  // per call were ~0.8 µs of a request asking for the past (its as_of echoed in meta)
  if (Number.isInteger(seconds) && seconds >= 0 && seconds <= LAST_4_DIGIT_YEAR) return civilSeconds(seconds);
  // toISOString always ends in ".sssZ" (any year): slicing it off costs less than a regex
  return `${new Date(seconds * 1000).toISOString().slice(0, -5)}Z`;
}

/** 9999-12-31T23:59:59Z */
const LAST_4_DIGIT_YEAR = 253_402_300_799;

/** isoSeconds of whole seconds ≥ 0: the civil date of the day count (proleptic Gregorian, eras of 400 years from 0000-03-01). */
function civilSeconds(s: number): string {
  const days = Math.floor(s / 86_400);
  const sod = s - days * 86_400;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const h = Math.floor(sod / 3600);
  const mi = Math.floor((sod % 3600) / 60);
  const sec = sod % 60;
  return `${y}-${two(m)}-${two(d)}T${two(h)}:${two(mi)}:${two(sec)}Z`;
}

const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

export type Rounding = 'down' | 'half-even';

/**
 * A decimal literal (a JSON number, or a numeric string: leading zeros allowed) as a base-unit
 * integer at `dp` decimals — value·10^dp rounded toward zero (`down`) or half-even — in bigint,
 * so exponents and long fractions are exact. Null for text that is not a number; `tooLarge`
 * above 10^100 units (so a huge exponent never builds a huge bigint).
 */
export function scaledDecimal(text: string, dp: number, rounding: Rounding): { units: bigint } | { tooLarge: true } | null {
  const m = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m) return null;
  const frac = m[3] ?? '';
  const coef = BigInt(m[2]! + frac);
  const exp = Number(m[4] ?? '0') - frac.length; // value = coef · 10^exp
  if (coef === 0n) return { units: 0n };
  const shift = exp + dp; // units = coef · 10^shift
  const digits = (m[2]! + frac).replace(/^0+/, '').length;
  if (digits + shift > 100) return { tooLarge: true };
  let units: bigint;
  if (shift >= 0) units = coef * pow10(shift);
  else if (-shift > digits + 1)
    units = 0n; // below half a unit at dp: rounds to zero either way
  else units = rounding === 'down' ? coef / pow10(-shift) : halfEven(coef, -shift);
  return { units: m[1] ? -units : units };
}

/**
 * A JSON number literal as an exact decimal string with at most `dp` fractional digits
 * (no exponent, no trailing zeros, "0" for zero), or an error when it is not a number or does
 * not fit DECIMAL(38, dp).
 */
export function decimalString(text: string, dp: number, rounding: Rounding): { ok: true; value: string } | { ok: false; reason: 'not a number' | 'too large' } {
  const s = scaledDecimal(text, dp, rounding);
  if (s === null) return { ok: false, reason: 'not a number' };
  if ('tooLarge' in s || s.units >= pow10(38) || -s.units >= pow10(38)) return { ok: false, reason: 'too large' };
  return { ok: true, value: formatUnits(s.units, dp) };
}

/** Compares two plain decimal strings (either sign) exactly, without parsing them. */
export function compareDecimal(a: string, b: string): number {
  const na = a.startsWith('-');
  const nb = b.startsWith('-');
  if (na !== nb) return na ? -1 : 1;
  const sign = na ? -1 : 1;
  const [ai, af = ''] = (na ? a.slice(1) : a).split('.') as [string, string?];
  const [bi, bf = ''] = (nb ? b.slice(1) : b).split('.') as [string, string?];
  if (ai.length !== bi.length) return sign * (ai.length - bi.length > 0 ? 1 : -1);
  if (ai !== bi) return sign * (ai > bi ? 1 : -1);
  const w = Math.max(af.length, bf.length);
  const fa = af.padEnd(w, '0');
  const fb = bf.padEnd(w, '0');
  return fa === fb ? 0 : sign * (fa > fb ? 1 : -1);
}
