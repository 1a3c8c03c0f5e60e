// A numeraire's USD prices laid out for the replay's hot loop. Each row looks one price up at a
// random time, so the table is made small enough to stay in cache: the exact prices (18-decimal
// base units) as 64-bit words — one word each when all fit, as for stablecoins — and, for an
// hourly series without gaps (the usual case), an index computed instead of searched. No
// decimal string is parsed twice. Memoized per PriceSeries: a pure cache, since price series
// are append-only and their values never change.
import type { PriceSeries } from '../../model/world.js';
import { parseUnits } from '../../model/format/numbers.js';
import { PRICE_MAX_AGE_SECONDS, usdIndexAt } from '../series/asOf.js';

export const USD_PRICE_DECIMALS = 18;
const HOUR = 3600;
const MASK64 = (1n << 64n) - 1n;

export interface UsdTable {
  readonly prices: PriceSeries;
  readonly n: number;
  /** ts[i] = ts[0] + i hours for every i: the as-of index is arithmetic */
  readonly hourly: boolean;
  /** low 64 bits of each exact price */
  readonly lo: BigUint64Array;
  /** high 64 bits, or null when every price fits in 64 bits */
  readonly hi: BigUint64Array | null;
  /** 1 where the stored string is malformed (no price, never a throw); null when none is */
  readonly bad: Uint8Array | null;
}

const tables = new WeakMap<PriceSeries, UsdTable>();

/** The table of `prices`, rebuilt when the series grew since the last call. */
export function usdTable(prices: PriceSeries): UsdTable {
  const n = prices.ts.length;
  const old = tables.get(prices);
  if (old !== undefined && old.n === n) return old;
  const values = new Array<bigint>(n);
  let wide = false;
  let anyBad = false;
  let hourly = true;
  const ts = prices.ts;
  for (let i = 0; i < n; i++) {
    const v = parse(prices.usd[i]);
    values[i] = v;
    if (v < 0n) anyBad = true;
    else if (v > MASK64) wide = true;
    if (ts[i] !== ts[0]! + i * HOUR) hourly = false;
  }
  const lo = new BigUint64Array(n);
  const hi = wide ? new BigUint64Array(n) : null;
  const bad = anyBad ? new Uint8Array(n) : null;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (v < 0n) bad![i] = 1;
    else {
      lo[i] = v & MASK64;
      if (hi !== null) hi[i] = v >> 64n;
    }
  }
  const table = { prices, n, hourly, lo, hi, bad };
  tables.set(prices, table);
  return table;
}

/**
 * Register the table of `prices` built elsewhere (the publishing thread parses a token's prices
 * once; a pool worker receives the words with a copy of the series and does not parse again).
 */
export function primeUsdTable(prices: PriceSeries, t: Pick<UsdTable, 'hourly' | 'lo' | 'hi' | 'bad'>): void {
  const known = tables.get(prices);
  if (known !== undefined && known.n === prices.ts.length) return;
  tables.set(prices, { prices, n: prices.ts.length, hourly: t.hourly, lo: t.lo, hi: t.hi, bad: t.bad });
}

/**
 * Register the table of `prices` from its exact values as 128-bit two's-complement numbers,
 * four little-endian 32-bit words each (lo to hi), as the columnar loader reads them: the same
 * table usdTable builds by parsing the strings (a negative price is marked bad), with no string
 * parsed and no bigint made.
 */
export function primeUsdTableWords(prices: PriceSeries, words: Uint32Array): void {
  const n = prices.ts.length;
  const ts = prices.ts;
  const lo = new Uint32Array(2 * n);
  let hi: Uint32Array | null = null;
  let bad: Uint8Array | null = null;
  let hourly = true;
  for (let i = 0; i < n; i++) {
    const h0 = words[4 * i + 2]!;
    const h1 = words[4 * i + 3]!;
    if (h1 >>> 31 === 1) (bad ??= new Uint8Array(n))[i] = 1;
    else {
      lo[2 * i] = words[4 * i]!;
      lo[2 * i + 1] = words[4 * i + 1]!;
      if (h0 !== 0 || h1 !== 0) {
        hi ??= new Uint32Array(2 * n);
        hi[2 * i] = h0;
        hi[2 * i + 1] = h1;
      }
    }
    if (ts[i] !== ts[0]! + i * HOUR) hourly = false;
  }
  primeUsdTable(prices, { hourly, lo: new BigUint64Array(lo.buffer), hi: hi && new BigUint64Array(hi.buffer), bad });
}

/** Same result as usdIndexAt(table.prices, t): the as-of price if at most 48 h old, else −1. */
export function usdIndexIn(table: UsdTable, t: number): number {
  const { n } = table;
  if (n === 0) return -1;
  const ts = table.prices.ts;
  const t0 = ts[0]!;
  if (t < t0) return -1;
  let g: number;
  if (table.hourly) g = Math.min(Math.floor((t - t0) / HOUR), n - 1);
  else {
    // (nearly) evenly spaced: guess, check against the as-of definition, else search
    g = n > 1 ? Math.min(Math.floor(((t - t0) * (n - 1)) / (ts[n - 1]! - t0)), n - 1) : 0;
    if (!(ts[g]! <= t && (g + 1 === n || ts[g + 1]! > t))) return usdIndexAt(table.prices, t);
  }
  return t - (table.hourly ? t0 + g * HOUR : ts[g]!) <= PRICE_MAX_AGE_SECONDS ? g : -1;
}

/** The exact price at index j (18-decimal base units), or null if the stored string is malformed. */
export function usdBig(table: UsdTable, j: number): bigint | null {
  if (table.bad !== null && table.bad[j] === 1) return null;
  const lo = table.lo[j]!;
  if (table.hi === null) return lo;
  const hi = table.hi[j]!;
  return hi === 0n ? lo : (hi << 64n) | lo;
}

/** The price at index j as a double (ROI ratios only). */
export function usdFloat(table: UsdTable, j: number): number {
  return table.prices.usd_f[j]!;
}

/**
 * The exact USD price at index i of `prices` (callers outside hot loops): from the table when
 * one is built, else parsed alone (a publish reads one price per vault; building every token's
 * table for it costs a restart ~0.3 s on the benchmark world).
 */
export function usdE18(prices: PriceSeries, i: number): bigint | null {
  const t = tables.get(prices);
  if (t !== undefined && t.n === prices.ts.length) return usdBig(t, i);
  const v = parse(prices.usd[i]);
  return v < 0n ? null : v;
}

function parse(s: string | undefined): bigint {
  if (s === undefined) return -1n;
  try {
    const v = parseUnits(s, USD_PRICE_DECIMALS);
    return v < 0n || v > (1n << 128n) - 1n ? -1n : v;
  } catch {
    return -1n;
  }
}
