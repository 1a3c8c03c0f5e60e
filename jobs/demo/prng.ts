// Seeded pseudo-random numbers for the demo world: xoshiro128** streams derived from
// (seed, label, index) by hashing, plus pure integer hashes formatted as hex identifiers.

// Everything here is 32-bit integer arithmetic (Math.imul, shifts) or V8's own
// fdlibm-derived Math.log/cos/sqrt, so a given seed yields the same numbers on every run.

import { fnv1a } from '../../common/fnv1a.js';

const TWO_POW_32 = 4294967296;

/** FNV-1a over UTF-16 code units: a cheap, stable hash of a label. */
export const hashString = fnv1a;

/** murmur3's finalizer: a bijection on 32-bit integers with full avalanche. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** One murmur3 body step: folds a 32-bit word into a running hash. */
export function mixIn(h: number, x: number): number {
  let k = Math.imul(x >>> 0, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) >>> 0;
}

/** Folds a safe integer (seeds may exceed 32 bits) as its low and high words. */
export function mixInSafe(h: number, x: number): number {
  return mixIn(mixIn(h, x >>> 0), Math.floor(x / TWO_POW_32) >>> 0);
}

/** A 32-bit hash of (seed, label, index): the root of every derived stream and identifier. */
export function hashKey(seed: number, label: string, index = 0): number {
  return fmix32(mixInSafe(mixIn(mixInSafe(0x9e3779b9, seed), hashString(label)), index));
}

// Scratch space for hex formatting: one native toString('hex') is ~7× faster than eight
// number.toString(16) calls, and hashes are formatted for every simulated event.
const scratch = Buffer.alloc(64);

/**
 * `words` × 8 hex digits that look random but are injective in (a, b) for one key: the last
 * word is a bijection of b, the one before a bijection of a masked by a function of b, so
 * distinct pairs can never collide (a purely random 64-bit core would, at a few million ids).
 */
export function uniqueHex(key: number, a: number, b: number, words: number): string {
  if (words < 2 || words > 16) throw new RangeError(`uniqueHex: words must be 2..16, got ${words}`);
  const base = mixIn(mixIn(key, a), b);
  for (let k = 0; k < words - 2; k++) scratch.writeUInt32BE(fmix32(mixIn(base, k)), k * 4);
  const wb = fmix32((b ^ fmix32(key)) >>> 0);
  scratch.writeUInt32BE((fmix32((a ^ key) >>> 0) ^ fmix32(mixIn(key, wb))) >>> 0, (words - 2) * 4);
  scratch.writeUInt32BE(wb, (words - 1) * 4);
  return scratch.toString('hex', 0, words * 4);
}

/** A deterministic, lowercase 20-byte address for (seed, label, index). */
export function deriveAddress(seed: number, label: string, index = 0): string {
  return '0x' + uniqueHex(hashKey(seed, label), hashString(label), index, 5);
}

/** A deterministic 32-byte hash (0x + 64 hex) unique per (a, b) within one (seed, label). */
export function deriveHash32(seed: number, label: string, a: number, b: number): string {
  return '0x' + uniqueHex(hashKey(seed, label), a, b, 8);
}

/** xoshiro128**: 128-bit state, fast on 32-bit integer ops, good statistical quality. */
export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;
  private spare = NaN;

  /** Four independently hashed state words (so two streams share a state with odds 2^-128). */
  constructor(w0: number, w1: number, w2: number, w3: number) {
    this.s0 = w0 >>> 0;
    this.s1 = w1 >>> 0;
    this.s2 = w2 >>> 0;
    this.s3 = (w3 | 1) >>> 0; // never the all-zero state
  }

  u32(): number {
    const s1 = this.s1;
    const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return r;
  }

  /** Uniform in [0, 1) with 32 bits of resolution. */
  float(): number {
    return this.u32() / TWO_POW_32;
  }

  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.float();
  }

  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.float() * items.length)] as T;
  }

  /** Standard normal by Box–Muller; the second value of each pair is kept for the next call. */
  normal(): number {
    if (!Number.isNaN(this.spare)) {
      const z = this.spare;
      this.spare = NaN;
      return z;
    }
    const u = 1 - this.float(); // (0, 1]: log never sees 0
    const v = this.float();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** Poisson count: Knuth's product method for small means, a rounded normal for large ones. */
  poisson(lambda: number): number {
    if (lambda <= 0) return 0;
    if (lambda > 30) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * this.normal()));
    const limit = Math.exp(-lambda);
    let k = 0;
    let p = this.float();
    while (p > limit) {
      k++;
      p *= this.float();
    }
    return k;
  }

  /** Exponential with the given mean. */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.float());
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** An independent stream for (seed, label, index). */
export function createRng(seed: number, label: string, index = 0): Rng {
  const l = hashString(label);
  const word = (salt: number) => fmix32(mixInSafe(mixIn(mixInSafe(salt, seed), l), index));
  return new Rng(word(0x243f6a88), word(0x85a308d3), word(0x13198a2e), word(0x03707344));
}
