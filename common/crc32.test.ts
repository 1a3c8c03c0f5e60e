import fc from 'fast-check';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, crc32Combine, crc32Range, crc32Shift, crc32ShiftBy, crc32ShiftOperator } from './crc32.js';

/**
 * The shift operator as zlib writes it (crc32.c: multmodp branching per bit, x2nmodp one
 * square per bit of the length): an independent reference the byte tables are held to.
 */
function shiftReference(crc: number, bytes: number): number {
  const POLY = 0xedb88320;
  const multmodp = (a: number, b: number): number => {
    let p = 0;
    for (let m = 0x80000000; ; m >>>= 1) {
      if (a & m) {
        p ^= b;
        if ((a & (m - 1)) === 0) break;
      }
      b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
    }
    return p >>> 0;
  };
  const x2n: number[] = [0x40000000]; // x^(2^k): x^1, x^2, x^4, …
  for (let k = 1; k < 32; k++) x2n.push(multmodp(x2n[k - 1]!, x2n[k - 1]!));
  let op = 0x80000000; // x^0
  for (let n = bytes, k = 3; n > 0; n = Math.floor(n / 2), k++) if (n % 2 === 1) op = multmodp(x2n[k & 31]!, op);
  return multmodp(op, crc >>> 0);
}

describe('crc32', () => {
  it('the standard check value, and zlib.crc32 on random bytes', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), (bytes) => {
        expect(crc32(bytes)).toBe(zlib.crc32(bytes) >>> 0);
      }),
    );
  });

  it('continues across a split, by range or by previous value', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.nat(), (bytes, cut) => {
        const at = bytes.length === 0 ? 0 : cut % bytes.length;
        expect(crc32Range(bytes, at, bytes.length, crc32(bytes.subarray(0, at)))).toBe(crc32(bytes));
      }),
    );
  });

  it('combine: crc(A‖B) from crc(A), crc(B) and |B|, for any split (empty parts included)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.uint8Array({ maxLength: 70_000 }), (a, b) => {
        const whole = zlib.crc32(Buffer.concat([a, b])) >>> 0;
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(whole);
      }),
      { numRuns: 60 },
    );
  });

  it('a middle range from two prefix CRCs: crc(R) = P(z) ^ shift(P(a), |R|)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 4000 }), fc.nat(), fc.nat(), (bytes, i, j) => {
        const [a, z] = [i % (bytes.length + 1), j % (bytes.length + 1)].sort((x, y) => x - y) as [number, number];
        const range = (crc32(bytes.subarray(0, z)) ^ crc32Shift(crc32(bytes.subarray(0, a)), z - a)) >>> 0;
        expect(range).toBe(crc32(bytes.subarray(a, z)));
      }),
    );
  });

  it("the byte-table shift equals zlib's operator built bit by bit, for any CRC and any length below 2^32", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.oneof(fc.nat({ max: 70_000 }), fc.integer({ min: 0, max: 0xffffffff })), (crc, bytes) => {
        expect(crc32Shift(crc, bytes)).toBe(shiftReference(crc, bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('a kept shift operator moves a CRC as the shift by its length does (0 bytes: unchanged)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.oneof(fc.nat({ max: 70_000 }), fc.integer({ min: 0, max: 0xffffffff })), (crc, bytes) => {
        expect(crc32ShiftBy(crc32ShiftOperator(bytes), crc)).toBe(shiftReference(crc, bytes));
      }),
      { numRuns: 1000 },
    );
    expect(crc32ShiftBy(crc32ShiftOperator(0), 0xdeadbeef)).toBe(0xdeadbeef);
  });

  it('combine over lengths past one and two table bytes (a window of hundreds of KB) matches zlib on the whole', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: 60_000, max: 400_000 }), fc.integer({ min: 0, max: 255 }), (a, n, fill) => {
        const b = Buffer.alloc(n, fill);
        b[n >> 1] = fill ^ 0x5a;
        expect(crc32Combine(crc32(a), crc32(b), n)).toBe(zlib.crc32(Buffer.concat([a, b])) >>> 0);
      }),
      { numRuns: 25 },
    );
  });
});
