// Deflate stored blocks (RFC 1951 §3.2.4): bytes carried uncompressed inside a deflate stream,
// byte-aligned, so they splice between prepared deflate runs (timeseries windows, page tails).

/** Largest LEN of a stored block. */
export const STORED_MAX = 65_535;

/** A stored block's header at `at`: BFINAL, BTYPE=00 and padding, LEN, NLEN. */
export function storedHeader(buf: Uint8Array, at: number, n: number, final: boolean): void {
  buf[at] = final ? 1 : 0;
  buf[at + 1] = n & 0xff;
  buf[at + 2] = n >>> 8;
  buf[at + 3] = ~n & 0xff;
  buf[at + 4] = (~n >>> 8) & 0xff;
}

/** `bytes` as non-final stored blocks appended to `parts` (a header, then a view, per block). */
export function pushStored(parts: Buffer[], bytes: Buffer): void {
  for (let at = 0; at < bytes.length; at += STORED_MAX) {
    const n = Math.min(STORED_MAX, bytes.length - at);
    const header = Buffer.allocUnsafe(5);
    storedHeader(header, 0, n, false);
    parts.push(header, bytes.subarray(at, at + n));
  }
}
