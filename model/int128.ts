// A column of signed 128-bit integers stored as little-endian (lo, hi) 64-bit pairs — the
// exact byte layout of DuckDB's HUGEINT vectors, so loading is a memcpy — on a
// SharedArrayBuffer that worker threads read and write without copies.

const MASK64 = (1n << 64n) - 1n;

export class I128Array {
  /** [lo0, hi0, lo1, hi1, ...]; hi words are read as signed */
  readonly words: BigUint64Array;
  readonly length: number;

  constructor(lengthOrWords: number | BigUint64Array) {
    if (typeof lengthOrWords === 'number') {
      this.words = new BigUint64Array(new SharedArrayBuffer(lengthOrWords * 16));
      this.length = lengthOrWords;
    } else {
      this.words = lengthOrWords;
      this.length = lengthOrWords.length / 2;
    }
  }

  get(i: number): bigint {
    const lo = this.words[2 * i]!;
    const hi = this.words[2 * i + 1]!;
    if (hi === 0n) return lo;
    return (BigInt.asIntN(64, hi) << 64n) | lo;
  }

  set(i: number, v: bigint): void {
    this.words[2 * i] = v & MASK64;
    this.words[2 * i + 1] = BigInt.asUintN(64, v >> 64n);
  }

  /** The value as a double (for APY ratios only; never for amounts). */
  toNumber(i: number): number {
    const lo = this.words[2 * i]!;
    const hi = this.words[2 * i + 1]!;
    if (hi === 0n) return Number(lo);
    return Number(BigInt.asIntN(64, hi)) * 2 ** 64 + Number(lo);
  }

  /** A copy with room for `capacity` values (for appending hours). */
  grow(capacity: number): I128Array {
    const next = new I128Array(capacity);
    next.words.set(this.words);
    return next;
  }

  /** Rebuild a view on the same memory (e.g. after postMessage to a worker). */
  static from(words: BigUint64Array): I128Array {
    return new I128Array(words);
  }
}

export function sharedFloat64(length: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(length * 8));
}
