// O(1) as-of lookups into vault series for the replay's hot loop. A vault series is hourly on
// the hour; when it has no gap the index is plain arithmetic, otherwise (t − ts[0]) / mean step
// is a guess checked against the as-of definition, and engine/series/asOf.ts answers a miss.
import { asOfIndex } from '../series/asOf.js';
import type { VaultSeries } from '../../model/world.js';

/** Same result as asOfIndex(ts, length, t) for strictly ascending ts. */
export function asOfIndexFast(ts: Float64Array, length: number, t: number): number {
  if (length > 1) {
    const t0 = ts[0]!;
    if (t < t0) return -1;
    let g = Math.floor(((t - t0) * (length - 1)) / (ts[length - 1]! - t0));
    if (g >= length) g = length - 1;
    if (ts[g]! <= t && (g + 1 === length || ts[g + 1]! > t)) return g;
  }
  return asOfIndex(ts, length, t);
}

const HOUR = 3600;
const contiguity = new WeakMap<VaultSeries, { checked: number; ok: boolean }>();

/**
 * True when ts[i] = ts[0] + i h for every i < length (checked once, then only for appended
 * points): then asOfIndex(t) = min(floor((t − ts[0]) / 1 h), length − 1) for t ≥ ts[0].
 */
export function isHourlyContiguous(series: VaultSeries): boolean {
  let c = contiguity.get(series);
  if (c === undefined) contiguity.set(series, (c = { checked: 0, ok: true }));
  if (c.ok && c.checked < series.length) {
    const ts = series.ts;
    const t0 = ts[0]!;
    for (let i = c.checked; i < series.length; i++) {
      if (ts[i] !== t0 + i * HOUR) {
        c.ok = false;
        break;
      }
    }
    c.checked = series.length;
  }
  return c.ok;
}

/**
 * Record what isHourlyContiguous(series) answers for its first `length` points, known elsewhere
 * (a pool worker's copy of a series checked on the publishing thread is not scanned again).
 */
export function primeHourlyContiguous(series: VaultSeries, ok: boolean): void {
  contiguity.set(series, { checked: series.length, ok });
}
