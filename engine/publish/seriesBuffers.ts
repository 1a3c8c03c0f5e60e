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
// A block's small chunks are laid end to end in one buffer, and its large chunks in another,
// so a run of chunks is one view. A window is: its ragged ends (at most 7 points each) left
// uncompressed for the response's own stored blocks to carry, small chunks up to a large-chunk
// boundary, large chunks in the middle — a few views of prepared bytes (~10 for 1,000 hours),
// ~1.05× the size of compressing the window whole. Its CRC-32 comes from prefix CRCs kept per
// block (common/crc32.ts: crc(range) = P(end) ^ shift(P(start), length)), never from a pass over it.
import { deflateRawSync, constants as zlibConstants } from 'node:zlib';
import { crc32Range, crc32Shift, crc32ShiftBy, crc32ShiftOperator } from '../../common/crc32.js';
import { lowerBound } from '../../common/search.js';
import { type PriceSeries, priceKey, type VaultSeries, type World } from '../../model/world.js';
import { vaultTimeseriesPoint } from '../metrics/vaultPoint.js';
import { gridWindow, type Granularity } from '../series/rollups.js';
import { createBoundedCache } from './boundedCache.js';
import type { Snapshot } from './buildSnapshot.js';

/** Points per serialized block: a window serializes only the blocks it touches. */
export const SERIES_BLOCK = 256;

export interface Block {
  /** the block's points joined by commas; point k spans [offsets[k], offsets[k + 1] - 1) */
  buf: Buffer;
  offsets: Uint32Array;
  /** CRC-32 of buf[0, offsets[k]) for every k (made on the first compressed window) */
  crc?: Uint32Array;
  /**
   * CRC-32 of buf[0, offsets[k + 1] - 1) for every point k: up to its end without its comma, as
   * a window's last point goes out (made with `crc`), so no request runs a CRC over bytes
   */
  crcBare?: Uint32Array;
  /**
   * crc32ShiftOperator of the bytes from point k to the block's end (`shiftToEnd[k]`) and of
   * those up to point k's end without its comma (`shiftToBare[k]`): every share of a window but
   * a window inside one block starts at a block's start or ends at its end, so it moves the
   * window's CRC in one product (made with `crc`)
   */
  shiftToEnd?: Uint32Array;
  shiftToBare?: Uint32Array;
  /** the block's chunks, made on the first compressed window that takes one */
  small?: ChunkRun;
  large?: ChunkRun;
}

/** Chunks of one size laid end to end: chunk k is bytes[at[k], at[k + 1]). */
export interface ChunkRun {
  bytes: Buffer;
  at: Uint32Array;
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
  return seriesBufferOf(s, world.prices.get(priceKey(v.chain_id, v.numeraire_address)), granularity);
}

/** The serialized series of `s` (priced with `prices`) at `granularity`; on any thread that has the series. */
export function seriesBufferOf(s: VaultSeries, prices: PriceSeries | undefined, granularity: Granularity): SeriesBuffer {
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
 * Block b of `sb` in `order`, built whole (serialized, its prefix CRCs and both chunk runs):
 * how the compute pool builds the blocks a cold window needs, so the serving thread only slices.
 */
export function buildBlock(sb: Pick<SeriesBuffer, 'instants' | 'point'>, b: number, order: 'asc' | 'desc'): Block {
  const from = b * SERIES_BLOCK;
  const to = Math.min(sb.instants.length, from + SERIES_BLOCK);
  const parts: string[] = [];
  for (let k = from; k < to; k++) parts.push(sb.point(k));
  if (order === 'desc') parts.reverse();
  const block = serialize(parts);
  withCrcs(block);
  block.small = chunkRunOf(block, CHUNK_SMALL);
  block.large = chunkRunOf(block, CHUNK_LARGE);
  return block;
}

/** Bytes a block holds (its cache weight). */
export function blockBytes(block: Block): number {
  return (
    block.buf.length +
    block.offsets.byteLength +
    (block.crc?.byteLength ?? 0) +
    (block.crcBare?.byteLength ?? 0) +
    (block.shiftToEnd?.byteLength ?? 0) +
    (block.shiftToBare?.byteLength ?? 0) +
    (block.small ? block.small.bytes.length + block.small.at.byteLength : 0) +
    (block.large ? block.large.bytes.length + block.large.at.byteLength : 0)
  );
}

/** The blocks a window touches, in serving order (the same bounds as sliceSeries). */
export function windowBlocks(sb: SeriesBuffer, start: number, end: number, order: 'asc' | 'desc', limit: number, after?: number): number[] {
  const range = windowRange(sb, start, end, order, limit, after);
  if (range === null) return [];
  const [x, y] = range;
  const first = Math.floor(x / SERIES_BLOCK);
  const last = Math.floor((y - 1) / SERIES_BLOCK);
  return Array.from({ length: last - first + 1 }, (_, i) => (order === 'asc' ? first + i : last - i));
}

/** How many blocks of the window (windowBlocks' bounds) are not kept now: coldBlocks' length, with no list made (a warm window's usual question). */
export function coldCount(sb: SeriesBuffer, start: number, end: number, order: 'asc' | 'desc', limit: number, after?: number): number {
  const range = windowRange(sb, start, end, order, limit, after);
  if (range === null) return 0;
  const cache = order === 'asc' ? sb.asc : sb.desc;
  let cold = 0;
  for (let b = Math.floor(range[0] / SERIES_BLOCK), last = Math.floor((range[1] - 1) / SERIES_BLOCK); b <= last; b++) if (cache[b] === undefined) cold++;
  return cold;
}

/** Which of `blocks` are not kept now. */
export function coldBlocks(sb: SeriesBuffer, blocks: readonly number[], order: 'asc' | 'desc'): number[] {
  const cache = order === 'asc' ? sb.asc : sb.desc;
  return blocks.filter((b) => cache[b] === undefined);
}

/** Blocks built elsewhere (the pool) put in the buffer's cache, counted against its budget. */
export function putBlocks(sb: SeriesBuffer, order: 'asc' | 'desc', built: readonly { b: number; block: Block }[]): void {
  const cache = order === 'asc' ? sb.asc : sb.desc;
  for (const { b, block } of built) {
    if (cache[b] !== undefined) continue;
    cache[b] = block;
    keep(block, cache, b, blockBytes(block));
  }
}

/**
 * Serialized blocks and their deflated chunks are kept up to SERIES_CACHE_BYTES in all (a block
 * dropped is serialized again when a window next needs it), by second chance (boundedCache.ts):
 * a crawler walking every vault's hourly history cannot grow the server by gigabytes. 64 MiB
 * holds every block the HTTP bench's random windows touch on the demo world (~30 MB with their
 * chunks); on the benchmark world's 17 M hours any budget fills, and it is that much RSS. One
 * cache for every buffer of every snapshot: an entry says where its block sits, to clear it.
 */
export const SERIES_CACHE_BYTES = 64 * 1024 * 1024;
interface Kept {
  cache: (Block | undefined)[];
  b: number;
  bytes: number;
}
const blockCache = (bytes: number) =>
  createBoundedCache<Block, Kept>({
    entries: Number.MAX_SAFE_INTEGER,
    bytes,
    evicted: (block, at) => {
      if (at.cache[at.b] === block) at.cache[at.b] = undefined;
    },
  });
let budget = SERIES_CACHE_BYTES;
let kept = blockCache(budget);

/** Count `bytes` more of `block` (at cache[b]) against the budget; a use of it. A block past the whole budget is answered from once, not kept. */
function keep(block: Block, cache: (Block | undefined)[], b: number, bytes: number): void {
  const at = kept.get(block);
  if (at === undefined) kept.set(block, { cache, b, bytes }, bytes);
  else if (bytes > 0) kept.set(block, at, (at.bytes += bytes));
  else return;
  if (!kept.has(block) && cache[b] === block) cache[b] = undefined;
}

/** Bytes held by serialized blocks and chunks now (tests, metrics). */
export function seriesCacheBytes(): number {
  return kept.bytes;
}

/** Change the budget (tests): the blocks kept are dropped; returns the previous budget. */
export function setSeriesCacheBudget(bytes: number): number {
  const old = budget;
  budget = bytes;
  kept.clear();
  kept = blockCache(bytes);
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

const buffers = new WeakMap<Snapshot, Map<Granularity, Map<string, SeriesBuffer | null>>>();

/** The vault's serialized series at `granularity` in this snapshot (null when it has no snapshot yet). */
export function seriesBuffer(snapshot: Snapshot, vaultId: string, granularity: Granularity): SeriesBuffer | null {
  let byGranularity = buffers.get(snapshot);
  if (!byGranularity) buffers.set(snapshot, (byGranularity = new Map()));
  // by granularity, then vault: two lookups and no key string made per window
  let byVault = byGranularity.get(granularity);
  if (!byVault) byGranularity.set(granularity, (byVault = new Map()));
  let sb = byVault.get(vaultId);
  if (sb === undefined) byVault.set(vaultId, (sb = buildSeriesBuffer(snapshot.world, vaultId, granularity)));
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

/**
 * A window's points as pieces in order, each bytes [at[2i], at[2i + 1]) of `src[i]`: a prepared
 * run of raw deflate (RFC 1951: byte-aligned, non-final) where `stored[i]` is false, else
 * uncompressed bytes for the response to carry in stored blocks — the window's ragged ends,
 * which the response's opening and closing blocks take, and a partial block's run mid-window.
 * Offsets, not views: the response is written straight from them (server/transport/splice.ts).
 */
export interface DeflatedItems {
  src: Buffer[];
  at: number[];
  stored: boolean[];
  /** CRC-32 and length of the points' bytes (what the pieces stand for) */
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

const EMPTY_DEFLATE: DeflatedItems = { src: [], at: [], stored: [], crc: 0, length: 0 };

/** The ascending positions [x, y) a window serves and the bounds [lo, hi) it was cut from; null when empty. */
function windowRange(
  sb: SeriesBuffer,
  start: number,
  end: number,
  order: 'asc' | 'desc',
  limit: number,
  after?: number,
): [number, number, number, number] | null {
  const n = sb.instants.length;
  let lo = lowerBound(sb.instants, n, start);
  let hi = lowerBound(sb.instants, n, end + 0.5); // exclusive (instants are whole seconds)
  if (after !== undefined) {
    if (order === 'asc') lo = Math.max(lo, lowerBound(sb.instants, n, after + 0.5));
    else hi = Math.min(hi, lowerBound(sb.instants, n, after));
  }
  if (hi <= lo) return null;
  const count = Math.min(limit, hi - lo);
  return order === 'asc' ? [lo, lo + count, lo, hi] : [hi - count, hi, lo, hi];
}

/** The window [start, end] in `order`, after the cursor instant `after`, at most `limit` points. */
export function sliceSeries(sb: SeriesBuffer, start: number, end: number, order: 'asc' | 'desc', limit: number, after?: number): SeriesSlice {
  const n = sb.instants.length;
  const range = windowRange(sb, start, end, order, limit, after);
  if (range === null) return { body: [], count: 0, lastInstant: null, hasMore: false, deflate: () => EMPTY_DEFLATE };
  // the ascending positions served: [x, y)
  const [x, y, lo, hi] = range;
  const count = y - x;
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

/** The window's points as prepared chunk runs between uncompressed ends, with their CRC-32 and length. */
function deflateSegments(segments: Segment[]): DeflatedItems {
  const items: DeflatedItems = { src: [], at: [], stored: [], crc: 0, length: 0 };
  const piece = (src: Buffer, from: number, to: number, stored: boolean): void => {
    if (to <= from) return;
    items.src.push(src);
    items.at.push(from, to);
    items.stored.push(stored);
  };
  let crc = 0;
  let length = 0;
  for (const { block, l0, l1, last } of segments) {
    const { buf, offsets } = block;
    const P = block.crc ?? withCrcs(block).crc;
    // points [l0, end) go with their commas; the window's last point without its comma
    const end = last ? l1 - 1 : l1;
    const stop = last ? offsets[l1]! - 1 : offsets[end]!;
    // crc(running ‖ seg) = shift(running ^ P[l0], |seg|) ^ P[seg's end] (the prefix CRCs' algebra);
    // the last point's end is a prefix CRC of its own (crcBare), and a whole block's shift is kept
    const to = last ? block.crcBare![l1 - 1]! : P[end]!;
    if (last && l0 === 0)
      crc = (crc32ShiftBy(block.shiftToBare![l1 - 1]!, crc) ^ to) >>> 0; // P[0] is 0
    else if (!last && end === offsets.length - 1) crc = (crc32ShiftBy(block.shiftToEnd![l0]!, crc ^ P[l0]!) ^ to) >>> 0;
    else crc = (crc32Shift(crc ^ P[l0]!, stop - offsets[l0]!) ^ to) >>> 0;
    length += stop - offsets[l0]!;
    // whole small chunks [a, e), the large ones among them [A, E)
    const a = Math.ceil(l0 / CHUNK_SMALL) * CHUNK_SMALL;
    const e = Math.floor(end / CHUNK_SMALL) * CHUNK_SMALL;
    if (e <= a) {
      piece(buf, offsets[l0]!, stop, true);
      continue;
    }
    piece(buf, offsets[l0]!, offsets[a]!, true);
    const A = Math.ceil(a / CHUNK_LARGE) * CHUNK_LARGE;
    const E = Math.floor(e / CHUNK_LARGE) * CHUNK_LARGE;
    const small = (block.small ??= chunkRun(block, CHUNK_SMALL));
    if (E <= A) piece(small.bytes, small.at[a / CHUNK_SMALL]!, small.at[e / CHUNK_SMALL]!, false);
    else {
      const large = (block.large ??= chunkRun(block, CHUNK_LARGE));
      piece(small.bytes, small.at[a / CHUNK_SMALL]!, small.at[A / CHUNK_SMALL]!, false);
      piece(large.bytes, large.at[A / CHUNK_LARGE]!, large.at[E / CHUNK_LARGE]!, false);
      piece(small.bytes, small.at[E / CHUNK_SMALL]!, small.at[e / CHUNK_SMALL]!, false);
    }
    piece(buf, offsets[e]!, stop, true);
  }
  items.crc = crc;
  items.length = length;
  return items;
}

/** The block's prefix CRCs: at every point's start (`crc`) and at its end without its comma (`crcBare`), in one pass. */
function withCrcs(block: Block): Block & { crc: Uint32Array; crcBare: Uint32Array } {
  const { buf, offsets } = block;
  const n = offsets.length - 1;
  const P = new Uint32Array(n + 1);
  const bare = new Uint32Array(n);
  const toEnd = new Uint32Array(n + 1);
  const toBare = new Uint32Array(n);
  for (let k = 1; k <= n; k++) {
    bare[k - 1] = crc32Range(buf, offsets[k - 1]!, offsets[k]! - 1, P[k - 1]!);
    P[k] = crc32Range(buf, offsets[k]! - 1, offsets[k]!, bare[k - 1]!);
    toBare[k - 1] = crc32ShiftOperator(offsets[k]! - 1);
  }
  for (let k = 0; k <= n; k++) toEnd[k] = crc32ShiftOperator(offsets[n]! - offsets[k]!);
  block.crc = P;
  block.crcBare = bare;
  block.shiftToEnd = toEnd;
  block.shiftToBare = toBare;
  return block as Block & { crc: Uint32Array; crcBare: Uint32Array };
}

/** Every whole chunk of `size` points of the block, each an independent raw deflate stream ended by a sync flush, end to end. */
function chunkRun(block: Block, size: number): ChunkRun {
  const r = chunkRunOf(block, size);
  const at = kept.get(block);
  if (at) keep(block, at.cache, at.b, r.bytes.length + r.at.byteLength);
  return r;
}

/** Every whole chunk of `size` points of the block (pure). */
function chunkRunOf(block: Block, size: number): ChunkRun {
  const count = Math.floor((block.offsets.length - 1) / size);
  const chunks: Buffer[] = [];
  const at = new Uint32Array(count + 1);
  for (let k = 0; k < count; k++) {
    const c = deflateRawSync(block.buf.subarray(block.offsets[k * size]!, block.offsets[(k + 1) * size]!), {
      level: 6,
      // a small chunk is ~2 KB: a 4 KB window loses nothing and allocates less state
      ...(size === CHUNK_SMALL ? { windowBits: 12, memLevel: 4 } : {}),
      finishFlush: zlibConstants.Z_SYNC_FLUSH,
    });
    chunks.push(c);
    at[k + 1] = at[k]! + c.length;
  }
  // a copy: the sync API returns views into larger chunks we must not retain
  return { bytes: Buffer.concat(chunks, at[count]!), at };
}
