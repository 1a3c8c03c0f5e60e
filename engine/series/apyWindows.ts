// Trailing APY windows at every point of a vault series (DESIGN §4.2):
// apy_N(t) = (p(t) / p(t − N days))^(365/N) − 1, with p(t − N days) the as-of unit price;
// NaN (published as null) while the window lacks history or that price is ≤ 0.
import type { VaultSeries } from '../../model/world.js';
import { asOfIndex } from './asOf.js';

export const APY_WINDOW_DAYS = [7, 30, 90] as const;
export type ApyWindowDays = (typeof APY_WINDOW_DAYS)[number];

const DAY = 86400;

export type ApyColumns = Pick<VaultSeries, 'length' | 'ts' | 'unit_price_f' | 'apy_7d' | 'apy_30d' | 'apy_90d'>;

/** The column holding the N-day window. */
export function apyColumn(series: ApyColumns, days: ApyWindowDays): Float64Array {
  return days === 7 ? series.apy_7d : days === 30 ? series.apy_30d : series.apy_90d;
}

/**
 * Whether the series keeps APY columns. A serving world does not (its columns are empty): the
 * three doubles a point were 24 of its 88 resident bytes (~410 MB of the benchmark world's
 * 17 M points), and a page or window reads few points, so apyAt computes them on read.
 */
export function keepsApy(series: Pick<ApyColumns, 'apy_7d'>): boolean {
  return series.apy_7d.length > 0;
}

/**
 * The N-day APY at point i: the column's value, or computed on the spot for a series that keeps
 * none — the same function of the same doubles as computeApy (as-of index of t − N days, then
 * expm1((365/N)·(ln p_i − ln p_j))), so the same bits either way.
 */
export function apyAt(series: ApyColumns, days: ApyWindowDays, i: number): number {
  if (keepsApy(series)) return apyColumn(series, days)[i]!;
  const ts = series.ts;
  const p = series.unit_price_f;
  const t = ts[i]! - days * DAY;
  const j = asOfIndex(ts, series.length, t);
  return j >= 0 && ts[j]! <= t && p[j]! > 0 ? Math.expm1((365 / days) * (Math.log(p[i]!) - Math.log(p[j]!))) : Number.NaN;
}

/**
 * Fill apy_7d/30d/90d for points i ≥ from; unit_price_f must be computed up to length. A
 * series that keeps no APY columns (keepsApy) has nothing to fill.
 *
 * One pass with three pointers: the as-of index j of ts[i] − N days only moves forward as i
 * does, so the pass is O(n) after one binary search per window for the starting j.
 *
 * x^(365/N) − 1 with x = p_i/p_j is evaluated as expm1((365/N)·(ln p_i − ln p_j)): one
 * logarithm per point instead of a pow per point and window (3× cheaper), and expm1 keeps
 * tiny yields accurate where pow(x, e) − 1 cancels. The logarithms' rounding costs up to
 * ~2 ulp(ln p) in the exponent, i.e. an absolute APY error below 1e-14 for prices of order 1
 * (the SQL twin's pow-based values agree to ~1e-13; see test/seriesSqlTwin.case.test.ts). Every point is
 * the same function of (p_i, p_j), so an incremental recompute matches a full one bit for bit.
 */
export function computeApy(series: ApyColumns, from = 0): void {
  const n = series.length;
  if (from >= n || !keepsApy(series)) return;
  const ts = series.ts;
  const p = series.unit_price_f;
  const t0 = ts[from]!;
  let j7 = asOfIndex(ts, n, t0 - 7 * DAY);
  let j30 = asOfIndex(ts, n, t0 - 30 * DAY);
  let j90 = asOfIndex(ts, n, t0 - 90 * DAY);
  // ln p for the points being computed; a window start before `from` takes its log on the
  // spot (the same function of the same double, so the same bits)
  const ln = new Float64Array(n - from);
  for (let i = from; i < n; i++) ln[i - from] = Math.log(p[i]!);
  const lnAt = (j: number): number => (j >= from ? ln[j - from]! : Math.log(p[j]!));
  const out7 = series.apy_7d;
  const out30 = series.apy_30d;
  const out90 = series.apy_90d;
  const c7 = 365 / 7;
  const c30 = 365 / 30;
  const c90 = 365 / 90;
  for (let i = from; i < n; i++) {
    const t = ts[i]!;
    const li = ln[i - from]!;
    const t7 = t - 7 * DAY;
    while (j7 + 1 < n && ts[j7 + 1]! <= t7) j7++;
    out7[i] = j7 >= 0 && ts[j7]! <= t7 && p[j7]! > 0 ? Math.expm1(c7 * (li - lnAt(j7))) : Number.NaN;
    const t30 = t - 30 * DAY;
    while (j30 + 1 < n && ts[j30 + 1]! <= t30) j30++;
    out30[i] = j30 >= 0 && ts[j30]! <= t30 && p[j30]! > 0 ? Math.expm1(c30 * (li - lnAt(j30))) : Number.NaN;
    const t90 = t - 90 * DAY;
    while (j90 + 1 < n && ts[j90 + 1]! <= t90) j90++;
    out90[i] = j90 >= 0 && ts[j90]! <= t90 && p[j90]! > 0 ? Math.expm1(c90 * (li - lnAt(j90))) : Number.NaN;
  }
}
