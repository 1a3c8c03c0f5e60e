// Precompressed pages whose request id is spliced in per request without recompressing
// (DESIGN §5.6, §5.7). At publish time the constant `prefix` is compressed into a byte-aligned,
// NON-final stream; per request we append the id and `"}}` as an uncompressed final block.
//   gzip:   header ‖ deflate(prefix, Z_SYNC_FLUSH) ‖ stored block(BFINAL=1) ‖ CRC32 ‖ ISIZE  (RFC 1951/1952)
//   brotli: stream(prefix, OPERATION_FLUSH) ‖ uncompressed meta-block ‖ empty last meta-block (RFC 7932)
import zlib from 'node:zlib';
import { VaultdError } from '../../common/errors.js';
import { PAGE_SUFFIX, type DeflatedItems, type Page } from '../../engine/publish/index.js';
import { REQUEST_ID_MAX_LENGTH } from '../requestId.js';
import { crc32, crc32Combine, crc32Range } from '../../common/crc32.js';
import { storedHeader, STORED_MAX } from '../../common/deflateStored.js';

/** Bodies at or below this size are served raw (DESIGN §5.6: "bodies over 1 KiB"). */
export const PRECOMPRESS_MIN_BYTES = 1024;

export interface GzipVariant {
  /** gzip member header + the non-final deflate stream of the prefix */
  head: Buffer;
  /** CRC-32 of the prefix (finalized form, as zlib.crc32 returns it) */
  crcAfterPrefix: number;
  prefixLength: number;
}

export interface BrotliVariant {
  /** stream header + the non-final, byte-aligned brotli stream of the prefix */
  head: Buffer;
}

// 1f 8b = magic, 08 = deflate, FLG 0 (no name/comment/extra), MTIME 0 (reproducible bytes),
// XFL 0, OS 255 (unknown). See RFC 1952 §2.3.
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);

/** The gzip variant of a page's constant prefix (zlib level 1–9; made once per snapshot, not per request). */
export function gzipVariant(prefix: Buffer, level = 9): GzipVariant {
  const deflated = zlib.deflateRawSync(prefix, {
    level,
    // A sync flush ends on an empty stored block (00 00 ff ff): byte-aligned and not final.
    finishFlush: zlib.constants.Z_SYNC_FLUSH,
  });
  // Buffer.concat copies: the sync API returns a view into a 16 KiB+ chunk we must not retain.
  return { head: Buffer.concat([GZIP_HEADER, deflated]), crcAfterPrefix: crc32Native(prefix), prefixLength: prefix.length };
}

/** The brotli variant of a page's constant prefix (quality 0–11). */
export function brVariant(prefix: Buffer, quality = 11): BrotliVariant {
  const brotli = zlib.brotliCompressSync(prefix, {
    // OPERATION_FLUSH pads to a byte boundary (with an empty metadata block if needed) and
    // leaves the stream open; the sync API honours finishFlush like the zlib formats do.
    finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: prefix.length,
    },
  });
  return { head: Buffer.concat([brotli]) }; // a copy, as above
}

/**
 * The gzip body for one request, as parts to write in order. `requestId` must match
 * REQUEST_ID_PATTERN (requestIdFrom guarantees it): it is written as Latin-1, one byte a char.
 */
export function gzipBody(variant: GzipVariant, requestId: string): Buffer[] {
  const tail = Buffer.allocUnsafe(GZIP_TAIL + checkedLength(requestId));
  writeGzipTail(tail, 0, variant, requestId);
  return [variant.head, tail];
}

/** The brotli body for one request; same precondition on `requestId` as gzipBody. */
export function brBody(variant: BrotliVariant, requestId: string): Buffer[] {
  const tail = Buffer.allocUnsafe(BR_TAIL + checkedLength(requestId));
  writeBrTail(tail, 0, requestId);
  return [variant.head, tail];
}

/** Bytes of a gzip tail besides the request id: stored-block header, `"}}`, CRC-32, ISIZE. */
const GZIP_TAIL = 5 + PAGE_SUFFIX.length + 8;
/** Bytes of a brotli tail besides the request id: meta-block header, `"}}`, last meta-block. */
const BR_TAIL = 3 + PAGE_SUFFIX.length + 1;

/** Write the gzip tail for `requestId` at `at`; returns the end offset. */
function writeGzipTail(buf: Uint8Array, at: number, variant: GzipVariant, requestId: string): number {
  const n = requestId.length + PAGE_SUFFIX.length;
  // Final stored block: BFINAL=1, BTYPE=00, padding (the head ends byte-aligned), LEN, NLEN.
  buf[at] = 0x01;
  buf[at + 1] = n & 0xff;
  buf[at + 2] = n >>> 8;
  buf[at + 3] = ~n & 0xff;
  buf[at + 4] = (~n >>> 8) & 0xff;
  writeSuffix(buf, at + 5, requestId);
  const end = at + 5 + n;
  writeUInt32LE(buf, crc32Range(buf, at + 5, end, variant.crcAfterPrefix), end);
  writeUInt32LE(buf, (variant.prefixLength + n) >>> 0, end + 4); // ISIZE is the length mod 2^32
  return end + 8;
}

/** Write the brotli tail for `requestId` at `at`; returns the end offset. */
function writeBrTail(buf: Uint8Array, at: number, requestId: string): number {
  const n = requestId.length + PAGE_SUFFIX.length;
  // Meta-block header, bits LSB-first (RFC 7932 §9.2): ISLAST=0 (bit 0), MNIBBLES=4 coded as 00
  // (bits 1–2), MLEN−1 in 16 bits (bits 3–18), ISUNCOMPRESSED=1 (bit 19), zero padding to bit 24.
  const header = ((n - 1) << 3) | (1 << 19);
  buf[at] = header & 0xff;
  buf[at + 1] = (header >>> 8) & 0xff;
  buf[at + 2] = header >>> 16;
  writeSuffix(buf, at + 3, requestId);
  // Last meta-block: ISLAST=1, ISLASTEMPTY=1, padding.
  buf[at + 3 + n] = 0x03;
  return at + 4 + n;
}

/** Write the identity tail (the id and `"}}`) at `at`; returns the end offset. */
function writeIdentityTail(buf: Uint8Array, at: number, requestId: string): number {
  return writeSuffix(buf, at, requestId);
}

function writeUInt32LE(buf: Uint8Array, value: number, at: number): void {
  buf[at] = value & 0xff;
  buf[at + 1] = (value >>> 8) & 0xff;
  buf[at + 2] = (value >>> 16) & 0xff;
  buf[at + 3] = value >>> 24;
}

function checkedLength(requestId: string): number {
  if (requestId.length > REQUEST_ID_MAX_LENGTH) {
    throw new VaultdError('INTERNAL', `request id of ${requestId.length} chars exceeds ${REQUEST_ID_MAX_LENGTH}; use requestIdFrom`);
  }
  return requestId.length;
}

/** The id (ASCII by REQUEST_ID_PATTERN: one byte a char, written without a native call) and `"}}`. */
function writeSuffix(buf: Uint8Array, at: number, requestId: string): number {
  for (let i = 0; i < requestId.length; i++) buf[at + i] = requestId.charCodeAt(i);
  const end = at + requestId.length;
  buf[end] = 0x22; // "
  buf[end + 1] = 0x7d; // }
  buf[end + 2] = 0x7d; // }
  return end + 3;
}

/**
 * One encoding of one page, ready to send: the constant bytes copied once into a private
 * buffer with room for the longest request-id tail, so a request writes its id and the tail
 * in place and sends one view (no allocation, no copy of the page). `fill`'s view is valid
 * until the next fill of the same template: only for a transport that copies or sends the
 * bytes before it returns (uWS's end/tryEnd; see server/httpServer.ts); `parts` are durable.
 */
export interface BodyTemplate {
  fill(requestId: string): Uint8Array;
  parts(requestId: string): Buffer[];
  /** the body's length for `requestId` */
  length(requestId: string): number;
}

function template(
  head: Buffer,
  tailBytes: number,
  writeTail: (buf: Uint8Array, at: number, id: string) => number,
  parts: (id: string) => Buffer[],
): BodyTemplate {
  const buf = new Uint8Array(head.length + tailBytes + REQUEST_ID_MAX_LENGTH);
  buf.set(head, 0);
  let view = buf.subarray(0, 0);
  return {
    fill(requestId) {
      checkedLength(requestId);
      const end = writeTail(buf, head.length, requestId);
      // the view of the last length is kept: ids of one process mostly have one length
      if (view.length !== end) view = buf.subarray(0, end);
      return view;
    },
    parts,
    length: (requestId) => head.length + tailBytes + requestId.length,
  };
}

/** The identity body of `page` (prefix, id, `"}}`). */
export function identityTemplate(page: Pick<Page, 'prefix'>): BodyTemplate {
  return template(page.prefix, PAGE_SUFFIX.length, writeIdentityTail, (id) => [page.prefix, Buffer.from(id, 'latin1'), PAGE_SUFFIX]);
}

export function gzipTemplate(variant: GzipVariant): BodyTemplate {
  return template(
    variant.head,
    GZIP_TAIL,
    (buf, at, id) => writeGzipTail(buf, at, variant, id),
    (id) => gzipBody(variant, id),
  );
}

export function brTemplate(variant: BrotliVariant): BodyTemplate {
  return template(variant.head, BR_TAIL, writeBrTail, (id) => brBody(variant, id));
}

/**
 * The gzip body of `open` ‖ items ‖ `tail` ‖ requestId ‖ `"}}` whose items are prepared deflate
 * runs between uncompressed pieces (a timeseries window: engine/publish/seriesBuffers.ts), as a
 * template written straight from the pieces' offsets into one buffer: the opening stored block
 * carries `open` and the items' uncompressed head, the runs are copied as they are, and the
 * final stored block carries the items' uncompressed tail with the per-request end. The CRC-32
 * is combined from the parts' CRCs — a copy of prepared bytes, no compression and no view or
 * part list per request. `fill` writes into a buffer shared by every window (valid until the
 * next fill; see BodyTemplate); `parts` is a buffer of its own. `open` fits one stored block.
 */
export function gzipItemsTemplate(open: Buffer, openCrc: number, items: DeflatedItems, tail: Buffer): BodyTemplate {
  const base = writeGzipItems(null, open, openCrc, items, tail, '');
  return {
    fill(requestId) {
      const n = base + checkedLength(requestId);
      if (windowScratch.length < n) windowScratch = new Uint8Array(Math.max(n, 2 * windowScratch.length));
      writeGzipItems(windowScratch, open, openCrc, items, tail, requestId);
      return windowScratch.subarray(0, n);
    },
    parts(requestId) {
      const body = Buffer.allocUnsafe(base + checkedLength(requestId));
      writeGzipItems(body, open, openCrc, items, tail, requestId);
      return [body];
    },
    length: (requestId) => base + requestId.length,
  };
}

/** The buffer window bodies are filled in (grown to the largest; a 1,000-point hourly window is ~63 KB). */
let windowScratch = new Uint8Array(128 * 1024);

/** Writes the gzip body of gzipItemsTemplate into `out` (or only measures it when null); returns its length. */
function writeGzipItems(out: Uint8Array | null, open: Buffer, openCrc: number, items: DeflatedItems, tail: Buffer, requestId: string): number {
  const { src, at: spans, stored } = items;
  const n = src.length;
  // a raw last piece goes in the final block; a raw first piece (not also the last) in the opening one
  const lastRaw = n > 0 && stored[n - 1]!;
  const firstRaw = n > 1 && stored[0]!;
  const headLength = firstRaw ? spans[1]! - spans[0]! : 0;
  const headIn = open.length + headLength <= STORED_MAX ? headLength : 0;
  let at = GZIP_HEADER.length + 5 + open.length + headIn;
  if (out !== null) {
    out.set(GZIP_HEADER, 0);
    storedHeader(out, GZIP_HEADER.length, open.length + headIn, false);
    out.set(open, GZIP_HEADER.length + 5);
    if (headIn > 0) src[0]!.copy(out, GZIP_HEADER.length + 5 + open.length, spans[0]!, spans[1]!);
  }
  for (let i = headIn > 0 ? 1 : 0; i < (lastRaw ? n - 1 : n); i++) {
    const from = spans[2 * i]!;
    const to = spans[2 * i + 1]!;
    if (stored[i]) at = storedInto(out, at, src[i]!, from, to);
    else {
      if (out !== null) src[i]!.copy(out, at, from, to);
      at += to - from;
    }
  }
  // the final block holds the items' tail, the page's tail, the id and `"}}`; what would make
  // it longer than a block can hold goes before it in non-final stored blocks
  const room = STORED_MAX - REQUEST_ID_MAX_LENGTH - PAGE_SUFFIX.length;
  let itemsTail = lastRaw ? spans[2 * n - 1]! - spans[2 * n - 2]! : 0;
  if (itemsTail > 0 && itemsTail + tail.length > room) {
    at = storedInto(out, at, src[n - 1]!, spans[2 * n - 2]!, spans[2 * n - 1]!);
    itemsTail = 0;
  }
  let crc = crc32Combine(openCrc, items.crc, items.length);
  let from = 0;
  for (; tail.length - from > room; from += room) {
    at = storedInto(out, at, tail, from, from + room);
    if (out !== null) crc = crc32Range(tail, from, from + room, crc);
  }
  const m = itemsTail + tail.length - from + requestId.length + PAGE_SUFFIX.length;
  if (out !== null) {
    storedHeader(out, at, m, true);
    if (itemsTail > 0) src[n - 1]!.copy(out, at + 5, spans[2 * n - 2]!, spans[2 * n - 1]!);
    tail.copy(out, at + 5 + itemsTail, from);
    writeSuffix(out, at + 5 + itemsTail + tail.length - from, requestId);
    // the items' tail is in items.crc already
    writeUInt32LE(out, crc32Range(out, at + 5 + itemsTail, at + 5 + m, crc), at + 5 + m);
    writeUInt32LE(out, (open.length + items.length + tail.length + requestId.length + PAGE_SUFFIX.length) >>> 0, at + 9 + m);
  }
  return at + 5 + m + 8;
}

/** src[from, to) as non-final stored blocks at `at` (measured only when `out` is null); returns the end. */
function storedInto(out: Uint8Array | null, at: number, src: Buffer, from: number, to: number): number {
  for (let p = from; p < to; p += STORED_MAX) {
    const k = Math.min(STORED_MAX, to - p);
    if (out !== null) {
      storedHeader(out, at, k, false);
      src.copy(out, at + 5, p, p + k);
    }
    at += 5 + k;
  }
  return at;
}

export { crc32 };

// zlib.crc32 exists from Node 20.15; the engines range starts at 20.10, so fall back to ours.
const crc32Native: (data: Uint8Array) => number = typeof zlib.crc32 === 'function' ? (data) => zlib.crc32(data) >>> 0 : (data) => crc32(data);
