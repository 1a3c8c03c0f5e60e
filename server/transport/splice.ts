// Precompressed pages whose request id is spliced in per request without recompressing
// (DESIGN §5.6, §5.7). At publish time the constant `prefix` is compressed into a byte-aligned,
// NON-final stream; per request we append the id and `"}}` as an uncompressed final block.
//   gzip:   header ‖ deflate(prefix, Z_SYNC_FLUSH) ‖ stored block(BFINAL=1) ‖ CRC32 ‖ ISIZE  (RFC 1951/1952)
//   brotli: stream(prefix, OPERATION_FLUSH) ‖ uncompressed meta-block ‖ empty last meta-block (RFC 7932)
import zlib from 'node:zlib';
import { VaultdError } from '../../common/errors.js';
import { PAGE_SUFFIX, type Page } from '../../engine/publish/page.js';
import { REQUEST_ID_MAX_LENGTH } from '../requestId.js';

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

export interface Variants {
  gzip: GzipVariant;
  br: BrotliVariant;
}

export interface BuildVariantsOptions {
  /** zlib level 1–9; default 9 (publish time, not per request) */
  gzipLevel?: number;
  /** brotli quality 0–11; default 11 */
  brotliQuality?: number;
}

// 1f 8b = magic, 08 = deflate, FLG 0 (no name/comment/extra), MTIME 0 (reproducible bytes),
// XFL 0, OS 255 (unknown). See RFC 1952 §2.3.
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);

export function buildVariants(page: Pick<Page, 'prefix'>, options: BuildVariantsOptions = {}): Variants {
  const { prefix } = page;
  const deflated = zlib.deflateRawSync(prefix, {
    level: options.gzipLevel ?? 9,
    // A sync flush ends on an empty stored block (00 00 ff ff): byte-aligned and not final.
    finishFlush: zlib.constants.Z_SYNC_FLUSH,
  });
  const brotli = zlib.brotliCompressSync(prefix, {
    // OPERATION_FLUSH pads to a byte boundary (with an empty metadata block if needed) and
    // leaves the stream open; the sync API honours finishFlush like the zlib formats do.
    finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: options.brotliQuality ?? 11,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: prefix.length,
    },
  });
  return {
    // Buffer.concat copies: the sync APIs return views into 16 KiB+ chunks we must not retain.
    gzip: { head: Buffer.concat([GZIP_HEADER, deflated]), crcAfterPrefix: crc32Native(prefix), prefixLength: prefix.length },
    br: { head: Buffer.concat([brotli]) },
  };
}

/**
 * The gzip body for one request, as parts to write in order. `requestId` must match
 * REQUEST_ID_PATTERN (requestIdFrom guarantees it): it is written as Latin-1, one byte a char.
 */
export function gzipBody(variant: GzipVariant, requestId: string): Buffer[] {
  const n = checkedLength(requestId) + PAGE_SUFFIX.length;
  const tail = Buffer.allocUnsafe(5 + n + 8);
  // Final stored block: BFINAL=1, BTYPE=00, padding (the head ends byte-aligned), LEN, NLEN.
  tail[0] = 0x01;
  tail.writeUInt16LE(n, 1);
  tail.writeUInt16LE(n ^ 0xffff, 3);
  writeSuffix(tail, 5, requestId);
  tail.writeUInt32LE(crc32Range(tail, 5, 5 + n, variant.crcAfterPrefix), 5 + n);
  tail.writeUInt32LE((variant.prefixLength + n) >>> 0, 9 + n); // ISIZE is the length mod 2^32
  return [variant.head, tail];
}

/** The brotli body for one request; same precondition on `requestId` as gzipBody. */
export function brBody(variant: BrotliVariant, requestId: string): Buffer[] {
  const n = checkedLength(requestId) + PAGE_SUFFIX.length;
  const tail = Buffer.allocUnsafe(3 + n + 1);
  // Meta-block header, bits LSB-first (RFC 7932 §9.2): ISLAST=0 (bit 0), MNIBBLES=4 coded as 00
  // (bits 1–2), MLEN−1 in 16 bits (bits 3–18), ISUNCOMPRESSED=1 (bit 19), zero padding to bit 24.
  const header = ((n - 1) << 3) | (1 << 19);
  tail[0] = header & 0xff;
  tail[1] = (header >>> 8) & 0xff;
  tail[2] = header >>> 16;
  writeSuffix(tail, 3, requestId);
  // Last meta-block: ISLAST=1, ISLASTEMPTY=1, padding.
  tail[3 + n] = 0x03;
  return [variant.head, tail];
}

function checkedLength(requestId: string): number {
  if (requestId.length > REQUEST_ID_MAX_LENGTH) {
    throw new VaultdError('INTERNAL', `request id of ${requestId.length} chars exceeds ${REQUEST_ID_MAX_LENGTH}; use requestIdFrom`);
  }
  return requestId.length;
}

function writeSuffix(buf: Buffer, at: number, requestId: string): void {
  const end = at + buf.write(requestId, at, 'latin1');
  buf[end] = 0x22; // "
  buf[end + 1] = 0x7d; // }
  buf[end + 2] = 0x7d; // }
}

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/**
 * CRC-32 (gzip's, reflected 0xEDB88320) of `data`, continuing from `previous` — the finalized
 * CRC of the bytes before, with the same convention as zlib.crc32(data, value).
 */
export function crc32(data: Uint8Array, previous = 0): number {
  return crc32Range(data, 0, data.length, previous);
}

// Indices rather than a subarray: making a Buffer view costs more than the CRC of an id.
function crc32Range(data: Uint8Array, start: number, end: number, previous: number): number {
  let c = ~previous;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

// zlib.crc32 exists from Node 20.15; the engines range starts at 20.10, so fall back to ours.
const crc32Native: (data: Uint8Array) => number =
  typeof zlib.crc32 === 'function' ? (data) => zlib.crc32(data) >>> 0 : (data) => crc32(data);
