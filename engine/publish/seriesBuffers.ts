// Serialized vault series for windowed timeseries (DESIGN §5.7): per (vault, granularity), all
// points of the published history serialized once into one Buffer (and its reverse for desc
// order) with offsets, so a window is one zero-copy slice found by binary search. Built by the
// engine the first time a snapshot is asked for that vault and granularity and kept with the
// snapshot (a snapshot never changes, so neither do its buffers); the server only slices.
import { lowerBound } from '../../common/search.js';
import { priceKey, type World } from '../../model/world.js';
import { vaultTimeseriesPoint } from '../metrics/vaultPoint.js';
import { gridWindow, type Granularity } from '../series/rollups.js';
import type { Snapshot } from './buildSnapshot.js';

export interface SeriesBuffer {
  /** point instants, ascending */
  instants: Float64Array;
  /** `p0,p1,...` ascending; point k spans [asc[k], asc[k+1] - 1) (the comma excluded) */
  asc: Buffer;
  ascOffsets: Uint32Array;
  /** the same points in descending order, built on first use */
  desc: { buf: Buffer; offsets: Uint32Array } | null;
}

function serialize(parts: string[]): { buf: Buffer; offsets: Uint32Array } {
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

/** Every point of the vault's history at `granularity` (null when it has no snapshot). */
export function buildSeriesBuffer(world: World, vaultId: string, granularity: Granularity): SeriesBuffer | null {
  const s = world.series.get(vaultId);
  const v = world.vaults.get(vaultId);
  if (!s || !v || s.length === 0) return null;
  const prices = world.prices.get(priceKey(v.chain_id, v.numeraire_address));
  const all = gridWindow(s.ts, s.length, granularity, {});
  const json = all.instants.map((t, k) => JSON.stringify(vaultTimeseriesPoint(s, all.indices[k]!, t, prices)));
  const { buf, offsets } = serialize(json);
  return { instants: Float64Array.from(all.instants), asc: buf, ascOffsets: offsets, desc: null };
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
  /** the points joined by commas (no brackets) */
  body: Buffer;
  count: number;
  lastInstant: number | null;
  hasMore: boolean;
}

/** The window [start, end] in `order`, after the cursor instant `after`, at most `limit` points. */
export function sliceSeries(sb: SeriesBuffer, start: number, end: number, order: 'asc' | 'desc', limit: number, after?: number): SeriesSlice {
  let lo = lowerBound(sb.instants, sb.instants.length, start);
  let hi = lowerBound(sb.instants, sb.instants.length, end + 0.5); // exclusive (instants are whole seconds)
  if (after !== undefined) {
    if (order === 'asc') lo = Math.max(lo, lowerBound(sb.instants, sb.instants.length, after + 0.5));
    else hi = Math.min(hi, lowerBound(sb.instants, sb.instants.length, after));
  }
  if (hi <= lo) return { body: Buffer.alloc(0), count: 0, lastInstant: null, hasMore: false };
  const n = sb.instants.length;
  const count = Math.min(limit, hi - lo);
  if (order === 'asc') {
    const end2 = lo + count;
    return {
      body: sb.asc.subarray(sb.ascOffsets[lo]!, sb.ascOffsets[end2]! - 1),
      count,
      lastInstant: sb.instants[end2 - 1]!,
      hasMore: end2 < hi,
    };
  }
  sb.desc ??= reverse(sb);
  // descending index r corresponds to ascending n - 1 - r
  const r0 = n - hi;
  const r1 = r0 + count;
  return {
    body: sb.desc.buf.subarray(sb.desc.offsets[r0]!, sb.desc.offsets[r1]! - 1),
    count,
    lastInstant: sb.instants[n - r1]!,
    hasMore: r1 < n - lo,
  };
}

function reverse(sb: SeriesBuffer): { buf: Buffer; offsets: Uint32Array } {
  const n = sb.instants.length;
  const parts: string[] = new Array(n);
  for (let k = 0; k < n; k++) parts[n - 1 - k] = sb.asc.toString('utf8', sb.ascOffsets[k]!, sb.ascOffsets[k + 1]! - 1);
  return serialize(parts);
}
