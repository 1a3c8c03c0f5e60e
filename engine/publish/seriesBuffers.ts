// Serialized vault series for windowed timeseries (DESIGN §5.7): per (vault, granularity), all
// points of the published history, serialized a block of SERIES_BLOCK points at a time on
// first use (in each order) with offsets, so a window is a few zero-copy slices found by binary
// search, and a cold window serializes only the blocks it touches, not the whole history. Built
// by the engine the first time a snapshot is asked for that vault and granularity and kept with the
// snapshot (a snapshot never changes, so neither do its buffers); the server only slices.
//
// Compressed windows (issue #11): a block's points are also deflated in chunks of CHUNK_SMALL
// and CHUNK_LARGE points, each an independent raw deflate stream ended by a sync flush (byte
// aligned, not final), so any run of whole chunks concatenates into a valid deflate stream.
// A window is: its ragged ends as stored (uncompressed) blocks of at most 7 points, small chunks
// up to a large-chunk boundary, large chunks in the middle — a copy of prepared bytes, ~1.05×
// the size of compressing the window whole. Its CRC-32 comes from prefix CRCs kept per block
// (common/crc32.ts: crc(range) = P(end) ^ shift(P(start), length)), never from a pass over it.
import { deflateRawSync, constants as zlibConstants } from 'node:zlib';
import { crc32Range, crc32Shift } from '../../common/crc32.js';
import { lowerBound } from '../../common/search.js';
import { priceKey, type World } from '../../model/world.js';
import { vaultTimeseriesPoint } from '../metrics/vaultPoint.js';
import { gridWindow, type Granularity } from '../series/rollups.js';
import type { Snapshot } from './buildSnapshot.js';

/** Points per serialized block: a window serializes only the blocks it touches. */
export const SERIES_BLOCK = 256;

interface Block {
  /** the block's points joined by commas; point k spans [offsets[k], offsets[k + 1] - 1) */
  buf: Buffer;
  offsets: Uint32Array;
  /** CRC-32 of buf[0, offsets[k]) for every k (made on the first compressed window) */
  crc?: Uint32Array;
  /** deflated chunks of CHUNK_SMALL / CHUNK_LARGE points, each made on first use */
  small?: (Buffer | undefined)[];
  large?: (Buffer | undefined)[];
}

/** Points per chunk: small chunks reach the large-chunk boundary, large ones fill the middle. */
export const CHUNK_SMALL = 8;
export const CHUNK_LARGE = 64;

export interface SeriesBuffer {
  /** point instants, ascending */
  instants: Float64Array;
  /** JSON of point k (ascending position) */
  point(k: number): string;
  /** serialized blocks of SERIES_BLOCK points, each built on first use, in both orders */
  asc: (Block | undefined)[];
  desc: (Block | undefined)[];
}

function serialize(parts: string[]): Block {
  const offsets = new Uint32Array(parts.length + 1);
  const bytes = parts.map((p) => Buffer.from(p));
  let at = 0;
  for (let k = 0; k < bytes.length; k++) {
    offsets[k] = at;
    at += bytes[k]!.length + 1;
  }
  offsets[parts.length] = at;
  const buf = Buffer.allocUnsafe(Math.max(0, at));
  for (let k = 0; k < bytes.length; k++) {
    bytes[k]!.copy(buf, offsets[k]!);
    buf[offsets[k + 1]! - 1] = 44; // ','
  }
  return { buf, offsets };
}

/** Every point of the vault's history at `granularity` (null when it has no snapshot); points are serialized lazily, a block at a time. */
export function buildSeriesBuffer(world: World, vaultId: string, granularity: Granularity): SeriesBuffer | null {
  const s = world.series.get(vaultId);
  const v = world.vaults.get(vaultId);
  if (!s || !v || s.length === 0) return null;
  const prices = world.prices.get(priceKey(v.chain_id, v.numeraire_address));
  // hourly, every point in place: a view of the snapshot's own hours (an append for a later
  // hour writes past `length`, outside it), not a copy per vault — a copy and its index array
  // were ~280 KB a vault, kept for the snapshot's life (~280 MB once traffic had touched every
  // vault of the benchmark world); coarser grids pick their points (few: a copy is small)
  const grid = granularity === 'hour' ? null : gridWindow(s.ts, s.length, granularity, {});
  const instants = grid ? Float64Array.from(grid.instants) : s.ts.subarray(0, s.length);
  const indices = grid ? Int32Array.from(grid.indices) : null;
  const blocks = Math.ceil(instants.length / SERIES_BLOCK);
  return {
    instants,
    point: (k) => JSON.stringify(vaultTimeseriesPoint(s, indices ? indices[k]! : k, instants[k]!, prices)),
    asc: new Array<Block | undefined>(blocks),
    desc: new Array<Block | undefined>(blocks),
  };
}

/**
 * Serialized blocks and their deflated chunks are kept up to SERIES_CACHE_BYTES in all, least
 * recently used first out (a block dropped is serialized again when a window next needs it):
 * a crawler walking every vault's hourly history cannot grow the server by gigabytes. 64 MiB
 * holds every block the HTTP bench's random windows touch on the demo world (~30 MB with their
 * chunks); on the benchmark world's 17 M hours any budget fills, and it is that much RSS.
 */
export const SERIES_CACHE_BYTES = 64 * 1024 * 1024;
let budget = SERIES_CACHE_BYTES;
const lru = new Map<Block, { cache: (Block | undefined)[]; b: number; bytes: number; at: number }>();
let cachedBytes = 0;
/** Uses so far; a block used again within RECENT uses is not moved (a hot window's blocks are not re-inserted per request). */
let uses = 0;
const RECENT = 256;

function keep(block: Block, cache: (Block | undefined)[], b: number, bytes: number): void {
  const e = lru.get(block);
  uses++;
  if (e && bytes === 0 && uses - e.at < RECENT) return;
  if (e) {
    lru.delete(block);
    e.bytes += bytes;
    e.at = uses;
    lru.set(block, e);
  } else lru.set(block, { cache, b, bytes, at: uses });
  cachedBytes += bytes;
  for (const [old, x] of lru) {
    if (cachedBytes <= budget || old === block) break;
    lru.delete(old);
    cachedBytes -= x.bytes;
    if (x.cache[x.b] === old) x.cache[x.b] = undefined;
  }
}

/** Bytes held by serialized blocks and chunks now (tests, metrics). */
export function seriesCacheBytes(): number {
  return cachedBytes;
}

/** Change the budget (tests); returns the previous one. */
export function setSeriesCacheBudget(bytes: number): number {
  const old = budget;
  budget = bytes;
  return old;
}

function blockOf(sb: SeriesBuffer, b: number, order: 'asc' | 'desc'): Block {
  const cache = order === 'asc' ? sb.asc : sb.desc;
  let block = cache[b];
  if (block) {
    keep(block, cache, b, 0);
    return block;
  }
  const from = b * SERIES_BLOCK;
  const to = Math.min(sb.instants.length, from + SERIES_BLOCK);
  const parts: string[] = [];
  for (let k = from; k < to; k++) parts.push(sb.point(k));
  if (order === 'desc') parts.reverse();
  cache[b] = block = serialize(parts);
  keep(block, cache, b, block.buf.length + block.offsets.byteLength);
  return block;
}

const buffers = new WeakMap<Snapshot, Map<string, SeriesBuffer | null>>();

/** The vault's serialized series at `granularity` in this snapshot (null when it has no snapshot yet). */
export function seriesBuffer(snapshot: Snapshot, vaultId: string, granularity: Granularity): SeriesBuffer | null {
  let byKey = buffers.get(snapshot);
  if (!byKey) buffers.set(snapshot, (byKey = new Map()));
  const key = `${vaultId}|${granularity}`;
  let sb = byKey.get(key);
  if (sb === undefined) byKey.set(key, (sb = buildSeriesBuffer(snapshot.world, vaultId, granularity)));
  return sb;
}

export interface SeriesSlice {
  /** the points joined by commas (no brackets), as zero-copy parts of the serialized blocks */
  body: Buffer[];
  count: number;
  lastInstant: number | null;
  hasMore: boolean;
  /** the same points as a deflate stream (made on request: only gzip answers need it) */
  deflate(): DeflatedItems;
}

/** A window's points as a byte-aligned, non-final raw deflate stream (RFC 1951). */
export interface DeflatedItems {
  parts: Buffer[];
  /** CRC-32 and length of the points' bytes (what the stream inflates to) */
  crc: number;
  length: number;
}

/** One block's share of a window: its local points [l0, l1), the window's last point in the last one. */
interface Segment {
  block: Block;
  l0: number;
  l1: number;
  last: boolean;
}

const EMPTY_DEFLATE: DeflatedItems = { parts: [], crc: 0, length: 0 };

/** The window [start, end] in `order`, after the cursor instant `after`, at most `limit` points. */
export function sliceSeries(sb: SeriesBuffer, start: number, end: number, order: 'asc' | 'desc', limit: number, after?: number): SeriesSlice {
  const n = sb.instants.length;
  let lo = lowerBound(sb.instants, n, start);
  let hi = lowerBound(sb.instants, n, end + 0.5); // exclusive (instants are whole seconds)
  if (after !== undefined) {
    if (order === 'asc') lo = Math.max(lo, lowerBound(sb.instants, n, after + 0.5));
    else hi = Math.min(hi, lowerBound(sb.instants, n, after));
  }
  if (hi <= lo) return { body: [], count: 0, lastInstant: null, hasMore: false, deflate: () => EMPTY_DEFLATE };
  const count = Math.min(limit, hi - lo);
  // the ascending positions served: [x, y)
  const [x, y] = order === 'asc' ? [lo, lo + count] : [hi - count, hi];
  const body: Buffer[] = [];
  const segments: Segment[] = [];
  const firstBlock = Math.floor(x / SERIES_BLOCK);
  const lastBlock = Math.floor((y - 1) / SERIES_BLOCK);
  for (let i = 0; i <= lastBlock - firstBlock; i++) {
    const b = order === 'asc' ? firstBlock + i : lastBlock - i;
    const from = b * SERIES_BLOCK;
    const to = Math.min(n, from + SERIES_BLOCK);
    const a = Math.max(x, from);
    const z = Math.min(y, to);
    const block = blockOf(sb, b, order);
    // in a descending block, ascending position p sits at local index to - 1 - p
    const [l0, l1] = order === 'asc' ? [a - from, z - from] : [to - z, to - a];
    // every point is stored with its comma: a part that more parts follow keeps it (no 1-byte parts)
    const last = order === 'asc' ? b === lastBlock : b === firstBlock;
    body.push(block.buf.subarray(block.offsets[l0]!, block.offsets[l1]! - (last ? 1 : 0)));
    segments.push({ block, l0, l1, last });
  }
  return {
    body,
    count,
    lastInstant: order === 'asc' ? sb.instants[y - 1]! : sb.instants[x]!,
    hasMore: order === 'asc' ? y < hi : x > lo,
    deflate: () => deflateSegments(segments),
  };
}

/** The window's points as stored blocks and prepared chunks, with their CRC-32 and length. */
function deflateSegments(segments: Segment[]): DeflatedItems {
  const parts: Buffer[] = [];
  let crc = 0;
  let length = 0;
  for (const { block, l0, l1, last } of segments) {
    const { buf, offsets } = block;
    const P = (block.crc ??= prefixCrcs(block));
    // points [l0, end) go with their commas; the window's last point without its comma
    const end = last ? l1 - 1 : l1;
    const bytes = offsets[end]! - offsets[l0]!;
    crc = (crc32Shift(crc ^ P[l0]!, bytes) ^ P[end]!) >>> 0;
    length += bytes;
    let rawFrom = offsets[l0]!; // start of the uncompressed run not yet emitted
    let p = l0;
    const chunk = (k: number, size: number) => {
      if (rawFrom < offsets[p]!) stored(parts, buf, rawFrom, offsets[p]!);
      parts.push(chunkOf(block, k, size));
      p += size;
      rawFrom = offsets[p]!;
    };
    p = Math.min(end, Math.ceil(l0 / CHUNK_SMALL) * CHUNK_SMALL); // ragged start: stored
    while (p % CHUNK_LARGE !== 0 && p + CHUNK_SMALL <= end) chunk(p / CHUNK_SMALL, CHUNK_SMALL);
    while (p % CHUNK_LARGE === 0 && p + CHUNK_LARGE <= end) chunk(p / CHUNK_LARGE, CHUNK_LARGE);
    while (p + CHUNK_SMALL <= end && p % CHUNK_SMALL === 0) chunk(p / CHUNK_SMALL, CHUNK_SMALL);
    if (last) {
      const stop = offsets[l1]! - 1;
      crc = crc32Range(buf, offsets[end]!, stop, crc);
      length += stop - offsets[end]!;
      if (rawFrom < stop) stored(parts, buf, rawFrom, stop);
    } else if (rawFrom < offsets[end]!) stored(parts, buf, rawFrom, offsets[end]!);
  }
  return { parts, crc, length };
}

/** Largest LEN of a stored deflate block. */
const STORED_MAX = 65_535;

/** buf[from, to) as non-final stored blocks (BFINAL=0, BTYPE=00, LEN, NLEN; byte-aligned). */
function stored(parts: Buffer[], buf: Buffer, from: number, to: number): void {
  for (let at = from; at < to; at += STORED_MAX) {
    const n = Math.min(STORED_MAX, to - at);
    const header = Buffer.allocUnsafe(5);
    header[0] = 0;
    header.writeUInt16LE(n, 1);
    header.writeUInt16LE(n ^ 0xffff, 3);
    parts.push(header, buf.subarray(at, at + n));
  }
}

function prefixCrcs(block: Block): Uint32Array {
  const { buf, offsets } = block;
  const P = new Uint32Array(offsets.length);
  for (let k = 1; k < offsets.length; k++) P[k] = crc32Range(buf, offsets[k - 1]!, offsets[k]!, P[k - 1]!);
  return P;
}

/** Chunk k of `size` points: an independent raw deflate stream ended by a sync flush. */
function chunkOf(block: Block, k: number, size: number): Buffer {
  const cache = size === CHUNK_SMALL ? (block.small ??= []) : (block.large ??= []);
  let c = cache[k];
  if (c === undefined) {
    const from = block.offsets[k * size]!;
    const to = block.offsets[(k + 1) * size]!;
    const out = deflateRawSync(block.buf.subarray(from, to), {
      level: 6,
      // a small chunk is ~2 KB: a 4 KB window loses nothing and allocates less state
      ...(size === CHUNK_SMALL ? { windowBits: 12, memLevel: 4 } : {}),
      finishFlush: zlibConstants.Z_SYNC_FLUSH,
    });
    // a copy: the sync API returns a view into a larger chunk we must not retain
    cache[k] = c = Buffer.from(out);
    const e = lru.get(block);
    if (e) keep(block, e.cache, e.b, c.length);
  }
  return c;
}
