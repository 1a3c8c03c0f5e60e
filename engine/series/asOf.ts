// As-of lookups (DESIGN §4): "the snapshot at t" is the latest point with ts ≤ t; a USD
// price counts only if it is at most 48 h older than t (DESIGN §4.1).
import { upperBound } from '../../common/search.js';
import type { PriceSeries } from '../../model/world.js';

export const PRICE_MAX_AGE_SECONDS = 48 * 3600;

/** Index of the last element of ts[0..length) that is ≤ t, or −1. */
export function asOfIndex(ts: Float64Array, length: number, t: number): number {
  return upperBound(ts, length, t) - 1;
}

/** Index of the USD price valid at t (latest with ts ≤ t, not older than 48 h), or −1. */
export function usdIndexAt(prices: PriceSeries | undefined, t: number): number {
  if (!prices) return -1;
  const i = asOfIndex(prices.ts, prices.ts.length, t);
  return i >= 0 && t - prices.ts[i]! <= PRICE_MAX_AGE_SECONDS ? i : -1;
}
