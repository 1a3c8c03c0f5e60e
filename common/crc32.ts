// CRC-32 (gzip's: reflected polynomial 0xEDB88320, RFC 1952) with the algebra that lets a
// gzip body be assembled from pieces compressed at different times: the CRC of a
// concatenation from the CRCs of its parts (zlib's crc32_combine), so a timeseries window's
// CRC costs a few multiplications, not a pass over its bytes.

const POLY = 0xedb88320;

const TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? POLY ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/**
 * CRC-32 of `data`, continuing from `previous` — the finalized CRC of the bytes before, with
 * the same convention as zlib.crc32(data, value).
 */
export function crc32(data: Uint8Array, previous = 0): number {
  return crc32Range(data, 0, data.length, previous);
}

/** crc32 of data[start, end) continuing from `previous` (indices, not a view: no allocation). */
export function crc32Range(data: Uint8Array, start: number, end: number, previous: number): number {
  let c = ~previous;
  for (let i = start; i < end; i++) c = TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** a·b modulo the CRC polynomial (bit-reflected, x^0 in the top bit), as zlib's multmodp. */
function multmodp(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, k = 0…31. */
const X2N = (() => {
  const t = new Uint32Array(32);
  let p = 0x40000000; // x^1
  t[0] = p;
  for (let k = 1; k < 32; k++) t[k] = p = multmodp(p, p);
  return t;
})();

/** x^(8·bytes) modulo the polynomial, bit by bit (the byte tables' start). */
function x8nBits(bytes: number): number {
  let p = 0x80000000; // x^0
  let k = 3;
  for (let n = bytes; n > 0; n = Math.floor(n / 2), k++) if (n % 2 === 1) p = multmodp(X2N[k & 31]!, p);
  return p;
}

/** X8N[j][d] = x^(8·d·256^j): a shift by any length below 2^32 bytes is at most four products, not one per bit. */
const X8N = (() => {
  const t: Uint32Array[] = [];
  for (let j = 0; j < 4; j++) {
    const row = new Uint32Array(256);
    row[0] = 0x80000000;
    row[1] = x8nBits(256 ** j);
    for (let d = 2; d < 256; d++) row[d] = multmodp(row[d - 1]!, row[1]!);
    t.push(row);
  }
  return t;
})();

/** x^(8·bytes) modulo the polynomial: the operator that moves a CRC past `bytes` bytes (bytes < 2^32). */
function x8n(bytes: number): number {
  let p = X8N[0]![bytes & 0xff]!;
  for (let j = 1, n = bytes >>> 8; n > 0; j++, n >>>= 8) if ((n & 0xff) !== 0) p = multmodp(X8N[j]![n & 0xff]!, p);
  return p;
}

/** crc(A) moved past `bytes` zero-CRC bytes: crc(A‖B) = crc32Shift(crc(A), |B|) ^ crc(B). */
export function crc32Shift(crc: number, bytes: number): number {
  if (bytes === 0) return crc >>> 0;
  return multmodp(x8n(bytes), crc);
}

/** @internal the operator bit by bit, for the test that holds the tables to it */
export const crc32ShiftBitsForTest = (crc: number, bytes: number): number => (bytes === 0 ? crc >>> 0 : multmodp(x8nBits(bytes), crc));

/** CRC of A‖B from crc(A), crc(B) and |B| (zlib's crc32_combine). */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (crc32Shift(crcA, lengthB) ^ crcB) >>> 0;
}
