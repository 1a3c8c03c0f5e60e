// A numeraire's USD prices laid out for the replay's hot loop: one 32-byte record per price
// point — its time, the price as a double (ROI ratios) and exactly (128-bit 18-decimal base
// units) — so a lookup touches one cache line instead of four scattered objects, and no
// decimal string is parsed twice. Memoized per PriceSeries: a pure
// cache, since price series are append-only and their values never change.
import type { PriceSeries } from '../model/world.js';
import { parseUnits } from '../format/numbers.js';
import { PRICE_MAX_AGE_SECONDS, usdIndexAt } from '../series/asOf.js';

export const USD_PRICE_DECIMALS = 18;
/** per point: [ts, usd_f] as doubles, then the exact price's low and high 64-bit words */
const STRIDE = 4;
const MASK64 = (1n << 64n) - 1n;
/** high word of a malformed stored price: no price, never a throw */
const BAD_HI = MASK64;

export interface UsdTable {
  readonly prices: PriceSeries;
  /** doubles view of the records: rec[4i] = ts, rec[4i + 1] = usd_f */
  readonly rec: Float64Array;
  /** words view of the same records: words[4i + 2] = low, words[4i + 3] = high 64 bits of the exact price */
  readonly words: BigUint64Array;
  readonly n: number;
}

const tables = new WeakMap<PriceSeries, UsdTable>();

/** The table of `prices`, rebuilt when the series grew since the last call. */
export function usdTable(prices: PriceSeries): UsdTable {
  const n = prices.ts.length;
  const old = tables.get(prices);
  if (old !== undefined && old.n === n) return old;
  const buffer = new ArrayBuffer(Math.max(n, 1) * STRIDE * 8);
  const rec = new Float64Array(buffer);
  const words = new BigUint64Array(buffer);
  const from = old === undefined ? 0 : Math.min(old.n, n);
  if (old !== undefined) rec.set(old.rec.subarray(0, from * STRIDE));
  for (let i = from; i < n; i++) {
    const k = i * STRIDE;
    rec[k] = prices.ts[i]!;
    rec[k + 1] = prices.usd_f[i]!;
    const v = parse(prices.usd[i]);
    words[k + 2] = v < 0n ? 0n : v & MASK64;
    words[k + 3] = v < 0n ? BAD_HI : v >> 64n;
  }
  const table = { prices, rec, words, n };
  tables.set(prices, table);
  return table;
}

/** Same result as usdIndexAt(table.prices, t): the as-of price if at most 48 h old, else −1. */
export function usdIndexIn(table: UsdTable, t: number): number {
  const { rec, n } = table;
  if (n > 1) {
    const t0 = rec[0]!;
    if (t < t0) return -1;
    // prices are (nearly) evenly spaced: guess, check against the as-of definition
    let g = Math.floor(((t - t0) * (n - 1)) / (rec[(n - 1) * STRIDE]! - t0));
    if (g >= n) g = n - 1;
    const tg = rec[g * STRIDE]!;
    if (tg <= t && (g + 1 === n || rec[(g + 1) * STRIDE]! > t)) return t - tg <= PRICE_MAX_AGE_SECONDS ? g : -1;
  }
  return usdIndexAt(table.prices, t);
}

/** The exact price at index j (18-decimal base units), or null if the stored string is malformed. */
export function usdBig(table: UsdTable, j: number): bigint | null {
  const hi = table.words[j * STRIDE + 3]!;
  const lo = table.words[j * STRIDE + 2]!;
  if (hi === 0n) return lo;
  return hi === BAD_HI ? null : (hi << 64n) | lo;
}

/** The price at index j as a double (ROI ratios only). */
export function usdFloat(table: UsdTable, j: number): number {
  return table.rec[j * STRIDE + 1]!;
}

/** The exact USD price at index i of `prices` (callers outside hot loops). */
export function usdE18(prices: PriceSeries, i: number): bigint | null {
  return usdBig(usdTable(prices), i);
}

function parse(s: string | undefined): bigint {
  if (s === undefined) return -1n;
  try {
    const v = parseUnits(s, USD_PRICE_DECIMALS);
    return v < 0n || v >= 1n << 127n ? -1n : v;
  } catch {
    return -1n;
  }
}
