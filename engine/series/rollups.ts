// Granularity rollups over a vault series (DESIGN §4.3): `hour` is every raw point, `day`,
// `week` and `month` are grid instants (00:00 UTC; Mondays; the 1st) carrying the as-of
// snapshot. windowPoints is what the server calls per request, so it costs
// O(points returned + log n), never O(history): two binary searches, then one galloping
// as-of step per grid instant, guessed from the hourly spacing.
import { lowerBound, upperBound } from '../../common/search.js';
import type { VaultSeries } from '../../model/world.js';

export const GRANULARITIES = ['hour', 'day', 'week', 'month'] as const;
export type Granularity = (typeof GRANULARITIES)[number];
export type GridGranularity = Exclude<Granularity, 'hour'>;
export type Order = 'asc' | 'desc';

const HOUR = 3600;
const DAY = 86400;
const WEEK = 7 * DAY;
/** 1970-01-05, the first Monday of the epoch */
const MONDAY0 = 4 * DAY;

export interface WindowQuery {
  /** inclusive, Unix seconds; default the first snapshot */
  start?: number;
  /** inclusive, Unix seconds; default the latest snapshot */
  end?: number;
  /** default 'asc' */
  order?: Order;
  /** at most this many points; default all */
  limit?: number;
  /** resume after this instant (a cursor's last emitted timestamp), exclusive in `order` */
  after?: number;
}

export interface WindowPoints {
  /** each point's timestamp: the raw ts for `hour`, the grid instant otherwise */
  instants: number[];
  /** the as-of snapshot index of each point (same length as `instants`) */
  indices: number[];
  /** another point follows the last one in this order and window */
  hasMore: boolean;
}

export type SeriesTimes = Pick<VaultSeries, 'ts' | 'length'>;

const empty = (): WindowPoints => ({ instants: [], indices: [], hasMore: false });

/**
 * The points of `series` at `granularity` inside the window, in `order`, at most `limit`.
 * Grid instants exist only between the first and the latest snapshot: before the first there
 * is no as-of snapshot (DESIGN §4.3), and after the latest one the value is not known yet.
 */
export function windowPoints(series: SeriesTimes, granularity: Granularity, query: WindowQuery = {}): WindowPoints {
  return gridWindow(series.ts, series.length, granularity, query);
}

/** windowPoints over any ascending time column (ts[0..n)), e.g. a USD price series. */
export function gridWindow(ts: Float64Array, n: number, granularity: Granularity, query: WindowQuery = {}): WindowPoints {
  const limit = query.limit ?? Number.POSITIVE_INFINITY;
  if (n === 0 || !(limit > 0)) return empty();
  const lo = Math.max(query.start ?? ts[0]!, ts[0]!);
  const hi = Math.min(query.end ?? ts[n - 1]!, ts[n - 1]!);
  if (lo > hi) return empty();
  const desc = query.order === 'desc';
  const after = query.after;
  if (granularity === 'hour') return hourPoints(ts, n, lo, hi, desc, limit, after);
  return gridPoints(ts, n, granularity, lo, hi, desc, limit, after);
}

function hourPoints(ts: Float64Array, n: number, lo: number, hi: number, desc: boolean, limit: number, after: number | undefined): WindowPoints {
  let first = lowerBound(ts, n, lo); // first ts ≥ lo
  let last = upperBound(ts, n, hi) - 1; // last ts ≤ hi
  if (after !== undefined) {
    if (desc) last = Math.min(last, lowerBound(ts, n, after) - 1);
    else first = Math.max(first, upperBound(ts, n, after));
  }
  const count = last - first + 1;
  if (count <= 0) return empty();
  const take = Math.min(count, limit);
  const instants: number[] = [];
  const indices: number[] = [];
  for (let k = 0; k < take; k++) {
    const i = desc ? last - k : first + k;
    instants.push(ts[i]!);
    indices.push(i);
  }
  return { instants, indices, hasMore: count > take };
}

function gridPoints(
  ts: Float64Array,
  n: number,
  g: GridGranularity,
  lo: number,
  hi: number,
  desc: boolean,
  limit: number,
  after: number | undefined,
): WindowPoints {
  let t: number;
  if (desc) {
    t = gridFloor(g, after !== undefined ? Math.min(hi, after) : hi);
    if (after !== undefined && t >= after) t = gridPrev(g, t);
    if (t < lo) return empty();
  } else {
    t = gridCeil(g, after !== undefined ? Math.max(lo, after) : lo);
    if (after !== undefined && t <= after) t = gridNext(g, t);
    if (t > hi) return empty();
  }
  const instants: number[] = [];
  const indices: number[] = [];
  let k = 0;
  let j = asOfFrom(ts, n, t, desc ? n - 1 : 0);
  while (k < limit && (desc ? t >= lo : t <= hi)) {
    instants.push(t);
    indices.push(j);
    k++;
    const next = desc ? gridPrev(g, t) : gridNext(g, t);
    // hourly data: the next as-of index is about (next − t)/1h away
    j = asOfFrom(ts, n, next, j + Math.round((next - t) / HOUR));
    t = next;
  }
  return { instants, indices, hasMore: desc ? t >= lo : t <= hi };
}

// ---- grid arithmetic (UTC) ----

/** The first grid instant ≥ t. */
export function gridCeil(g: GridGranularity, t: number): number {
  if (g === 'day') return Math.ceil(t / DAY) * DAY;
  if (g === 'week') return MONDAY0 + Math.ceil((t - MONDAY0) / WEEK) * WEEK;
  const m = monthStart(t);
  return m >= t ? m : monthAfter(m);
}

/** The last grid instant ≤ t. */
export function gridFloor(g: GridGranularity, t: number): number {
  if (g === 'day') return Math.floor(t / DAY) * DAY;
  if (g === 'week') return MONDAY0 + Math.floor((t - MONDAY0) / WEEK) * WEEK;
  return monthStart(t);
}

/** The grid instant after instant t. */
export function gridNext(g: GridGranularity, t: number): number {
  if (g === 'day') return t + DAY;
  if (g === 'week') return t + WEEK;
  return monthAfter(t);
}

/** The grid instant before instant t. */
export function gridPrev(g: GridGranularity, t: number): number {
  if (g === 'day') return t - DAY;
  if (g === 'week') return t - WEEK;
  return monthStart(t - 1);
}

/** 00:00 UTC on the 1st of t's month. */
function monthStart(t: number): number {
  const d = new Date(t * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
}

/** The 1st of the month after the month that starts at instant m. */
function monthAfter(m: number): number {
  const d = new Date(m * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
}

// ---- searches ----

/**
 * The as-of index of t (last ts ≤ t, or −1), galloping from `guess`: O(1) when the guess is
 * right or off by a little, O(log distance) otherwise.
 */
export function asOfFrom(ts: Float64Array, n: number, t: number, guess: number): number {
  const g = guess < 0 ? 0 : guess >= n ? n - 1 : guess;
  if (ts[g]! <= t) {
    // ts[lo] ≤ t; find hi with ts[hi] > t (or n)
    let lo = g;
    let step = 1;
    let hi = g + 1;
    while (hi < n && ts[hi]! <= t) {
      lo = hi;
      step *= 2;
      hi = lo + step;
    }
    if (hi > n) hi = n;
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (ts[mid]! <= t) lo = mid;
      else hi = mid;
    }
    return lo;
  }
  // ts[hi] > t; find lo with ts[lo] ≤ t (or −1)
  let hi = g;
  let step = 1;
  let lo = g - 1;
  while (lo >= 0 && ts[lo]! > t) {
    hi = lo;
    step *= 2;
    lo = hi - step;
  }
  if (lo < -1) lo = -1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (ts[mid]! <= t) lo = mid;
    else hi = mid;
  }
  return lo;
}
