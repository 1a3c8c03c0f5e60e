// floor(A · 10^k / S) for 128-bit A and S without BigInt: the unit-price division of DESIGN
// §4.1 at ~40 ns a point instead of ~175 ns with BigInt (17 M points a full recompute).
//
// Method: a double estimate of the quotient, lowered by a safe margin to q0 ≤ q; the exact
// remainder r = A·10^k − q0·S, computed modulo 2^120 in five 24-bit limbs held in doubles
// (every partial product < 2^48, every column sum < 2^53, so all of it is exact), is known to
// lie in [0, 2^18·S) and therefore equals the true remainder; q = q0 + floor(r / S), whose
// double estimate can only be off by one when r/S sits next to an integer, which an exact
// limb comparison then settles. Inputs outside the proven range return false: the caller
// falls back to BigInt (unitPriceE18).

const T24 = 16777216;
const INV24 = 1 / T24;
const T32 = 4294967296;
const T48 = T24 * T24;
const T64 = T32 * T32;
const T72 = T48 * T24;
const T96 = T64 * T32;
/** q0 margin factor: the estimate's relative error is below 9·2^-53 < 2^-46 */
const MARGIN = 2 ** -46;
const MAX_QUOTIENT = 2 ** 62;
const HALF_LIMB4 = 8388608; // 2^23: the sign bit of limb 4 (values mod 2^120)

/** The scale 10^k as limbs and as a double; k = 36 − numeraire decimals. */
export interface Scale {
  readonly k: number;
  readonly f: number;
  readonly m0: number;
  readonly m1: number;
  readonly m2: number;
  readonly m3: number;
  readonly m4: number;
}

/** The unit-price scale for a numeraire with `decimals`, or null when 10^(36−dec) does not fit (dec > 36). */
export function unitPriceScale(decimals: number): Scale | null {
  const k = 36 - decimals;
  if (!Number.isInteger(k) || k < 0 || k > 36) return null;
  let m = 10n ** BigInt(k);
  const limbs: number[] = [];
  for (let i = 0; i < 5; i++) {
    limbs.push(Number(m & 0xffffffn));
    m >>= 24n;
  }
  return { k, f: Number(10n ** BigInt(k)), m0: limbs[0]!, m1: limbs[1]!, m2: limbs[2]!, m3: limbs[3]!, m4: limbs[4]! };
}

/**
 * out[i] = floor(a[i] · 10^k / s[i]) on 128-bit values seen as four little-endian u32 words
 * each (I128Array layout). Returns false, writing nothing, when a[i] < 0, s[i] ≤ 0,
 * s[i] ≥ 2^100 or the quotient is ≥ 2^62; the caller then divides with BigInt.
 */
export function divScaledInto(a: Uint32Array, s: Uint32Array, i: number, sc: Scale, out: Uint32Array): boolean {
  const b = 4 * i;
  const a0 = a[b]!,
    a1 = a[b + 1]!,
    a2 = a[b + 2]!,
    a3 = a[b + 3]!;
  const s0 = s[b]!,
    s1 = s[b + 1]!,
    s2 = s[b + 2]!,
    s3 = s[b + 3]!;
  if (a3 >= 0x80000000 || s3 >= 16) return false;
  const sf = s3 * T96 + s2 * T64 + s1 * T32 + s0;
  if (sf === 0) return false;
  const x = ((a3 * T96 + a2 * T64 + a1 * T32 + a0) * sc.f) / sf;
  if (!(x < MAX_QUOTIENT)) return false;

  // q0 ≤ q and q − q0 < 2^17 (the margin covers the estimate's error and its rounding)
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
  const S0 = s0 & 0xffffff,
    S1 = (s0 >>> 24) | ((s1 & 0xffff) << 8),
    S2 = (s1 >>> 16) | ((s2 & 0xff) << 16);
  const S3 = s2 >>> 8,
    S4 = s3 & 0xffffff;
  const m0 = sc.m0,
    m1 = sc.m1,
    m2 = sc.m2,
    m3 = sc.m3,
    m4 = sc.m4;

  // r = A·M − q0·S  (mod 2^120), column by column with carries
  let t = A0 * m0 - Q0 * S0;
  let c = Math.floor(t * INV24);
  const r0 = t - c * T24;
  t = A0 * m1 + A1 * m0 - Q0 * S1 - Q1 * S0 + c;
  c = Math.floor(t * INV24);
  const r1 = t - c * T24;
  t = A0 * m2 + A1 * m1 + A2 * m0 - Q0 * S2 - Q1 * S1 - Q2 * S0 + c;
  c = Math.floor(t * INV24);
  const r2 = t - c * T24;
  t = A0 * m3 + A1 * m2 + A2 * m1 + A3 * m0 - Q0 * S3 - Q1 * S2 - Q2 * S1 + c;
  c = Math.floor(t * INV24);
  const r3 = t - c * T24;
  t = A0 * m4 + A1 * m3 + A2 * m2 + A3 * m1 + A4 * m0 - Q0 * S4 - Q1 * S3 - Q2 * S2 + c;
  c = Math.floor(t * INV24);
  const r4 = t - c * T24;
  if (r4 >= HALF_LIMB4) return false; // cannot happen when the bounds above hold

  const qf = (r4 * T96 + r3 * T72 + r2 * T48 + r1 * T24 + r0) / sf;
  let d = Math.floor(qf);
  const frac = qf - d;
  if (frac < 1e-6 || frac > 1 - 1e-6) {
    // r/S is next to an integer: settle d exactly with u = r − d·S
    t = r0 - d * S0;
    c = Math.floor(t * INV24);
    const u0 = t - c * T24;
    t = r1 - d * S1 + c;
    c = Math.floor(t * INV24);
    const u1 = t - c * T24;
    t = r2 - d * S2 + c;
    c = Math.floor(t * INV24);
    const u2 = t - c * T24;
    t = r3 - d * S3 + c;
    c = Math.floor(t * INV24);
    const u3 = t - c * T24;
    t = r4 - d * S4 + c;
    c = Math.floor(t * INV24);
    const u4 = t - c * T24;
    if (u4 >= HALF_LIMB4) d -= 1;
    else if (u4 > S4 || (u4 === S4 && (u3 > S3 || (u3 === S3 && (u2 > S2 || (u2 === S2 && (u1 > S1 || (u1 === S1 && u0 >= S0)))))))) d += 1;
  }

  // q = q0 + d, back to u32 words
  let w = Q0 + d;
  c = Math.floor(w * INV24);
  const W0 = w - c * T24;
  w = Q1 + c;
  c = Math.floor(w * INV24);
  const W1 = w - c * T24;
  const W2 = Q2 + c;
  out[b] = W0 + (W1 & 0xff) * T24;
  out[b + 1] = (W1 >>> 8) + W2 * 65536;
  out[b + 2] = 0;
  out[b + 3] = 0;
  return true;
}

/** The u32-word view of a 128-bit column (I128Array.words). */
export function u32View(words: BigUint64Array): Uint32Array {
  return new Uint32Array(words.buffer, words.byteOffset, words.length * 2);
}

/** A 128-bit value from its u32 words as a correctly rounded double. */
export function wordsToNumber(w: Uint32Array, i: number): number {
  const b = 4 * i;
  const w2 = w[b + 2]!;
  const w3 = w[b + 3]!;
  // below 2^64 one rounding: hi·2^32 is exact and the sum rounds once
  if (w2 === 0 && w3 === 0) return w[b + 1]! * T32 + w[b]!;
  // w3 | 0 is the signed top word; BigInt's | works in two's complement
  return Number((BigInt(w3 | 0) << 96n) | (BigInt(w2) << 64n) | (BigInt(w[b + 1]!) << 32n) | BigInt(w[b]!));
}
