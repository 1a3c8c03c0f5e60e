// Serialized vault series for windowed timeseries (DESIGN §5.7): per (vault, granularity), all
// points of the published history, serialized a block of SERIES_BLOCK points at a time on
// first use (in each order) with offsets, so a window is a few zero-copy slices found by binary
// search, and a cold window serializes only the blocks it touches, not the whole history. Built
// by the engine the first time a snapshot is asked for that vault and granularity and kept with the
// snapshot (a snapshot never changes, so neither do its buffers); the server only slices.
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
}

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
  const all = gridWindow(s.ts, s.length, granularity, {});
  const blocks = Math.ceil(all.instants.length / SERIES_BLOCK);
  return {
    instants: Float64Array.from(all.instants),
    point: (k) => JSON.stringify(vaultTimeseriesPoint(s, all.indices[k]!, all.instants[k]!, prices)),
    asc: new Array<Block | undefined>(blocks),
    desc: new Array<Block | undefined>(blocks),
  };
}

function blockOf(sb: SeriesBuffer, b: number, order: 'asc' | 'desc'): Block {
  const cache = order === 'asc' ? sb.asc : sb.desc;
  let block = cache[b];
  if (block) return block;
  const from = b * SERIES_BLOCK;
  const to = Math.min(sb.instants.length, from + SERIES_BLOCK);
  const parts: string[] = [];
  for (let k = from; k < to; k++) parts.push(sb.point(k));
  if (order === 'desc') parts.reverse();
  cache[b] = block = serialize(parts);
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
}

/** The window [start, end] in `order`, after the cursor instant `after`, at most `limit` points. */
export function sliceSeries(sb: SeriesBuffer, start: number, end: number, order: 'asc' | 'desc', limit: number, after?: number): SeriesSlice {
  const n = sb.instants.length;
  let lo = lowerBound(sb.instants, n, start);
  let hi = lowerBound(sb.instants, n, end + 0.5); // exclusive (instants are whole seconds)
  if (after !== undefined) {
    if (order === 'asc') lo = Math.max(lo, lowerBound(sb.instants, n, after + 0.5));
    else hi = Math.min(hi, lowerBound(sb.instants, n, after));
  }
  if (hi <= lo) return { body: [], count: 0, lastInstant: null, hasMore: false };
  const count = Math.min(limit, hi - lo);
  // the ascending positions served: [x, y)
  const [x, y] = order === 'asc' ? [lo, lo + count] : [hi - count, hi];
  const body: Buffer[] = [];
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
  }
  return {
    body,
    count,
    lastInstant: order === 'asc' ? sb.instants[y - 1]! : sb.instants[x]!,
    hasMore: order === 'asc' ? y < hi : x > lo,
  };
}
