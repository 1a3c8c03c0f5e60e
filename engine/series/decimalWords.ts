// Exact 128-bit decimal words for the typed hourly metrics table (DESIGN §3, §4.1, §4.7): a
// base-unit amount rescaled to 18 decimals, and amount × USD price rounded half-even to 6
// decimals, written as DECIMAL(38, s) vector words (two's-complement int128, the I128Array
// layout). The common case runs on doubles holding 32- and 24-bit limbs, every intermediate
// below 2^53 so all of it is exact (~0.1 µs a row for both, where BigInt takes ~0.8 µs);
// anything outside it (a negative value, a numeraire above 18 decimals, a result of 2^62 or
// more) takes a BigInt path. A DECIMAL(38, s) holds |x| < 10^38: a value beyond that, or one
// with digits past the scale, has no representation, and the functions say so (the column is
// then NULL, never a rounded or invented value).
import { halfEven, pow10 } from '../../model/format/numbers.js';

export const DECIMAL38_LIMIT = 10n ** 38n;
const T32 = 4294967296;
const INV32 = 1 / T32;
const MASK64 = (1n << 64n) - 1n;
/** 10^38 as u32 words, most significant first */
const L3 = 0x4b3b4ca8;
const L2 = 0x5a86c47a;
const L1 = 0x098a2240;
const L0 = 0x00000000;
const POW10_NUM = Array.from({ length: 11 }, (_, e) => 10 ** e);

/** w3..w0 (non-negative, w3 < 2^31) below 10^38 */
function below1e38(w3: number, w2: number, w1: number, w0: number): boolean {
  return w3 < L3 || (w3 === L3 && (w2 < L2 || (w2 === L2 && (w1 < L1 || (w1 === L1 && w0 < L0)))));
}

/** The 128-bit value at word offset b of `w` (four little-endian u32 words) as a bigint. */
export function wordsAt(w: Uint32Array, b: number): bigint {
  return BigInt.asIntN(128, (BigInt(w[b + 3]!) << 96n) | (BigInt(w[b + 2]!) << 64n) | (BigInt(w[b + 1]!) << 32n) | BigInt(w[b]!));
}

/** Write x (|x| < 2^127) at word offset b of `w`. */
export function setWordsAt(w: Uint32Array, b: number, x: bigint): void {
  const lo = x & MASK64;
  const hi = BigInt.asUintN(64, x >> 64n);
  w[b] = Number(lo & 0xffffffffn);
  w[b + 1] = Number(lo >> 32n);
  w[b + 2] = Number(hi & 0xffffffffn);
  w[b + 3] = Number(hi >> 32n);
}

/** x as a DECIMAL(38, s) word when |x| < 10^38, else null (the BigInt reference of both kernels). */
export const decimal38 = (x: bigint): bigint | null => (x > -DECIMAL38_LIMIT && x < DECIMAL38_LIMIT ? x : null);

/** Reference (BigInt) of scaleTo18Into: base units of a `decimals` token as an 18-decimal integer, if exact and in range. */
export function scaleTo18(units: bigint, decimals: number): bigint | null {
  if (decimals <= 18) return decimal38(units * pow10(18 - decimals));
  const m = pow10(decimals - 18);
  return units % m === 0n ? decimal38(units / m) : null;
}

/** Reference (BigInt) of usdHalfEvenInto: amount × price (18-decimal) in 6-decimal USD units, half-even, if in range. */
export function usdHalfEven(units: bigint, decimals: number, priceE18: bigint): bigint | null {
  return decimal38(halfEven(units * priceE18, decimals + 18 - 6));
}

/**
 * out[o..o+4) = src[b..b+4) (base units of a token with `decimals`) rescaled to 18 decimals:
 * × 10^(18 − decimals), or ÷ 10^(decimals − 18) when that division is exact. Returns false,
 * writing nothing, when the value has no DECIMAL(38,18) representation (|x| ≥ 10^38, or
 * non-zero digits past the 18th fractional one).
 */
export function scaleTo18Into(src: Uint32Array, b: number, decimals: number, out: Uint32Array, o: number): boolean {
  let w3 = src[b + 3]!;
  if (w3 >= 0x80000000 || decimals > 18) return scaleSlow(src, b, decimals, out, o);
  let w0 = src[b]!;
  let w1 = src[b + 1]!;
  let w2 = src[b + 2]!;
  // × 10^s, at most 10^6 a step: limb · 10^6 + carry < 2^52
  for (let s = 18 - decimals; s > 0; ) {
    const e = Math.min(s, 6);
    s -= e;
    const f = POW10_NUM[e]!;
    let t = w0 * f;
    let c = Math.floor(t * INV32);
    w0 = t - c * T32;
    t = w1 * f + c;
    c = Math.floor(t * INV32);
    w1 = t - c * T32;
    t = w2 * f + c;
    c = Math.floor(t * INV32);
    w2 = t - c * T32;
    t = w3 * f + c;
    c = Math.floor(t * INV32);
    w3 = t - c * T32;
    if (c !== 0) return false; // ≥ 2^128 > 10^38
  }
  if (!below1e38(w3, w2, w1, w0)) return false;
  out[o] = w0;
  out[o + 1] = w1;
  out[o + 2] = w2;
  out[o + 3] = w3;
  return true;
}

function scaleSlow(src: Uint32Array, b: number, decimals: number, out: Uint32Array, o: number): boolean {
  const x = scaleTo18(wordsAt(src, b), decimals);
  if (x === null) return false;
  setWordsAt(out, o, x);
  return true;
}

const T24 = 16777216;
const INV24 = 1 / T24;
const T48 = T24 * T24;
const T64 = T32 * T32;
const T72 = T48 * T24;
const T96 = T64 * T32;
/** the double estimate's relative error is below 9·2^-53 < 2^-49; the margin covers it 8 times */
const MARGIN = 2 ** -46;
const MAX_QUOTIENT = 2 ** 62;
/**
 * The rounding is read off the estimate below 2^50 (its fraction exact) when it lies outside
 * the estimate's error: 9 roundings of 2^-53 (3 per operand, the product, 10^k, the
 * division), below 2^-49.8 relative, bounded here by 2^-49.
 */
const DIRECT_BELOW = 2 ** 50;
const DIRECT_ERROR = 2 ** -49;
const HALF_LIMB4 = 8388608; // 2^23: the sign bit of limb 4 (values mod 2^120)

interface Divisor {
  readonly f: number;
  readonly m0: number;
  readonly m1: number;
  readonly m2: number;
  readonly m3: number;
  readonly m4: number;
}
/** 10^k in 24-bit limbs and as a double, for k = 12..30 (numeraires of 0–18 decimals) */
const DIVISORS: readonly Divisor[] = Array.from({ length: 31 }, (_, k) => {
  let m = 10n ** BigInt(k);
  const l: number[] = [];
  for (let i = 0; i < 5; i++) {
    l.push(Number(m & 0xffffffn));
    m >>= 24n;
  }
  return { f: Number(10n ** BigInt(k)), m0: l[0]!, m1: l[1]!, m2: l[2]!, m3: l[3]!, m4: l[4]! };
});

/**
 * out[o..o+4) = amount × price in USD base units (6 decimals), rounded half-even (DESIGN §4.7):
 * halfEven(a · p, decimals + 12) with a = a[b..b+4) (base units of a token with `decimals`)
 * and p the 18-decimal USD price given as its low and high 64-bit halves in u32 words
 * (pLo[2j], pLo[2j+1], and pHi likewise, or null when every high half is zero). Returns false,
 * writing nothing, when the result is 10^38 or more (no DECIMAL(38,6) representation).
 *
 * Method (as engine/series/scaledDivision.ts): with M = 10^k, a double estimate x of a·p/M
 * decides the rounding by itself when it is clearly away from a half (most rows); otherwise x
 * lowered by a safe margin gives q0 ≤ floor(a·p/M); the exact remainder r = a·p − q0·M,
 * computed modulo 2^120 in five 24-bit limbs held in doubles (partial products < 2^48,
 * column sums < 2^53), lies in [0, 2^17·M) and so is the true remainder; d = floor(r/M) from
 * a double estimate is fixed exactly by the sign and size of u = r − d·M, and u against M/2
 * decides the rounding. Results of 2^62 and above, negative amounts and numeraires above 18
 * decimals take the BigInt path.
 */
export function usdHalfEvenInto(
  a: Uint32Array,
  b: number,
  decimals: number,
  pLo: Uint32Array,
  pHi: Uint32Array | null,
  j: number,
  out: Uint32Array,
  o: number,
): boolean {
  const a3 = a[b + 3]!;
  const M = DIVISORS[decimals + 12];
  if (a3 >= 0x80000000 || M === undefined || decimals < 0) return usdSlow(a, b, decimals, pLo, pHi, j, out, o);
  const p2 = pHi === null ? 0 : pHi[2 * j]!;
  const p3 = pHi === null ? 0 : pHi[2 * j + 1]!;
  const x = ((a3 * T96 + a[b + 2]! * T64 + a[b + 1]! * T32 + a[b]!) * (p3 * T96 + p2 * T64 + pLo[2 * j + 1]! * T32 + pLo[2 * j]!)) / M.f;
  // Most values sit far from a rounding boundary: the estimate's error is below x · 2^-49, so
  // when x's fraction is further than that from 1/2 the true value rounds as x does (a tie is
  // exactly 1/2 and always takes the exact path).
  if (x < DIRECT_BELOW) {
    const fl = Math.floor(x);
    const f = x - fl;
    if (Math.abs(f - 0.5) > x * DIRECT_ERROR + 2 ** -30) {
      const q = f > 0.5 ? fl + 1 : fl;
      const hi = Math.floor(q / T32);
      out[o] = q - hi * T32;
      out[o + 1] = hi;
      out[o + 2] = 0;
      out[o + 3] = 0;
      return true;
    }
  }
  if (!(x < MAX_QUOTIENT)) return usdSlow(a, b, decimals, pLo, pHi, j, out, o);
  return usdExact(a, b, decimals, pLo, pHi, j, out, o, x, M);
}

/** usdHalfEvenInto near a rounding boundary: the exact remainder (x < 2^62, a ≥ 0, decimals 0–18). */
function usdExact(
  a: Uint32Array,
  b: number,
  decimals: number,
  pLo: Uint32Array,
  pHi: Uint32Array | null,
  j: number,
  out: Uint32Array,
  o: number,
  x: number,
  M: Divisor,
): boolean {
  const a0 = a[b]!,
    a1 = a[b + 1]!,
    a2 = a[b + 2]!,
    a3 = a[b + 3]!;
  const p0 = pLo[2 * j]!,
    p1 = pLo[2 * j + 1]!;
  const p2 = pHi === null ? 0 : pHi[2 * j]!,
    p3 = pHi === null ? 0 : pHi[2 * j + 1]!;
  let q0 = Math.floor(x) - (Math.floor(x * MARGIN) + 4);
  if (q0 < 0) q0 = 0;
  const qh = Math.floor(q0 * INV24);
  const Q0 = q0 - qh * T24;
  const Q2 = Math.floor(qh * INV24);
  const Q1 = qh - Q2 * T24;

  const A0 = a0 & 0xffffff,
    A1 = (a0 >>> 24) | ((a1 & 0xffff) << 8),
    A2 = (a1 >>> 16) | ((a2 & 0xff) << 16);
  const A3 = a2 >>> 8,
    A4 = a3 & 0xffffff;
  const P0 = p0 & 0xffffff,
    P1 = (p0 >>> 24) | ((p1 & 0xffff) << 8),
    P2 = (p1 >>> 16) | ((p2 & 0xff) << 16);
  const P3 = p2 >>> 8,
    P4 = p3 & 0xffffff;
  const m0 = M.m0,
    m1 = M.m1,
    m2 = M.m2,
    m3 = M.m3,
    m4 = M.m4;

  // r = A·P − q0·M  (mod 2^120), column by column with carries
  let t = A0 * P0 - Q0 * m0;
  let c = Math.floor(t * INV24);
  const r0 = t - c * T24;
  t = A0 * P1 + A1 * P0 - Q0 * m1 - Q1 * m0 + c;
  c = Math.floor(t * INV24);
  const r1 = t - c * T24;
  t = A0 * P2 + A1 * P1 + A2 * P0 - Q0 * m2 - Q1 * m1 - Q2 * m0 + c;
  c = Math.floor(t * INV24);
  const r2 = t - c * T24;
  t = A0 * P3 + A1 * P2 + A2 * P1 + A3 * P0 - Q0 * m3 - Q1 * m2 - Q2 * m1 + c;
  c = Math.floor(t * INV24);
  const r3 = t - c * T24;
  t = A0 * P4 + A1 * P3 + A2 * P2 + A3 * P1 + A4 * P0 - Q0 * m4 - Q1 * m3 - Q2 * m2 + c;
  c = Math.floor(t * INV24);
  const r4 = t - c * T24;
  if (r4 >= HALF_LIMB4) return usdSlow(a, b, decimals, pLo, pHi, j, out, o); // cannot happen within the bounds above

  // d = floor(r / M) from an estimate off by at most one, fixed by u = r − d·M ∈ [0, M)
  let d = Math.floor((r4 * T96 + r3 * T72 + r2 * T48 + r1 * T24 + r0) / M.f);
  t = r0 - d * m0;
  c = Math.floor(t * INV24);
  let u0 = t - c * T24;
  t = r1 - d * m1 + c;
  c = Math.floor(t * INV24);
  let u1 = t - c * T24;
  t = r2 - d * m2 + c;
  c = Math.floor(t * INV24);
  let u2 = t - c * T24;
  t = r3 - d * m3 + c;
  c = Math.floor(t * INV24);
  let u3 = t - c * T24;
  let u4 = r4 - d * m4 + c; // signed: the top limb keeps the sign
  if (u4 < 0) {
    d -= 1;
    t = u0 + m0;
    c = t >= T24 ? 1 : 0;
    u0 = t - c * T24;
    t = u1 + m1 + c;
    c = t >= T24 ? 1 : 0;
    u1 = t - c * T24;
    t = u2 + m2 + c;
    c = t >= T24 ? 1 : 0;
    u2 = t - c * T24;
    t = u3 + m3 + c;
    c = t >= T24 ? 1 : 0;
    u3 = t - c * T24;
    u4 = u4 + m4 + c;
  } else if (u4 > m4 || (u4 === m4 && (u3 > m3 || (u3 === m3 && (u2 > m2 || (u2 === m2 && (u1 > m1 || (u1 === m1 && u0 >= m0)))))))) {
    d += 1;
    t = u0 - m0;
    c = t < 0 ? 1 : 0;
    u0 = t + c * T24;
    t = u1 - m1 - c;
    c = t < 0 ? 1 : 0;
    u1 = t + c * T24;
    t = u2 - m2 - c;
    c = t < 0 ? 1 : 0;
    u2 = t + c * T24;
    t = u3 - m3 - c;
    c = t < 0 ? 1 : 0;
    u3 = t + c * T24;
    u4 = u4 - m4 - c;
  }
  // 2u against M: above half rounds up, exactly half rounds to the even quotient
  t = 2 * u0;
  c = t >= T24 ? 1 : 0;
  const h0 = t - c * T24;
  t = 2 * u1 + c;
  c = t >= T24 ? 1 : 0;
  const h1 = t - c * T24;
  t = 2 * u2 + c;
  c = t >= T24 ? 1 : 0;
  const h2 = t - c * T24;
  t = 2 * u3 + c;
  c = t >= T24 ? 1 : 0;
  const h3 = t - c * T24;
  const h4 = 2 * u4 + c;
  const cmp = h4 !== m4 ? h4 - m4 : h3 !== m3 ? h3 - m3 : h2 !== m2 ? h2 - m2 : h1 !== m1 ? h1 - m1 : h0 - m0;

  // q = q0 + d (+ 1), back to u32 words
  let w = Q0 + d;
  const odd = (w & 1) === 1; // parity of q0 + d (Q0 + d ≡ q0 + d mod 2)
  if (cmp > 0 || (cmp === 0 && odd)) w += 1;
  c = Math.floor(w * INV24);
  const W0 = w - c * T24;
  w = Q1 + c;
  c = Math.floor(w * INV24);
  const W1 = w - c * T24;
  const W2 = Q2 + c;
  out[o] = W0 + (W1 & 0xff) * T24;
  out[o + 1] = (W1 >>> 8) + W2 * 65536;
  out[o + 2] = 0;
  out[o + 3] = 0;
  return true;
}

function usdSlow(a: Uint32Array, b: number, decimals: number, pLo: Uint32Array, pHi: Uint32Array | null, j: number, out: Uint32Array, o: number): boolean {
  const p = BigInt(pLo[2 * j]!) | (BigInt(pLo[2 * j + 1]!) << 32n) | (pHi === null ? 0n : (BigInt(pHi[2 * j]!) << 64n) | (BigInt(pHi[2 * j + 1]!) << 96n));
  const x = usdHalfEven(wordsAt(a, b), decimals, p);
  if (x === null) return false;
  setWordsAt(out, o, x);
  return true;
}
