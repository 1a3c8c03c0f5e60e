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
