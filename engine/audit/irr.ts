// Money-weighted return (DESIGN §11.5): the annual rate r with Σ CFᵢ·(1 + r)^(−yᵢ) = 0, yᵢ the
// years since the first flow. Bracketed on (−0.9999, 10⁶): a scan in ln(1 + r) finds the first
// sign change from below, then bisection narrows it to 1e-10 (relative above |r| = 1).

export interface CashFlow {
  /** Unix seconds */
  t: number;
  /** negative into the vault, positive out of it */
  amount: number;
}

export const IRR_MIN = -0.9999;
export const IRR_MAX = 1e6;
export const IRR_TOLERANCE = 1e-10;
const YEAR = 365 * 86_400;
const SCAN_POINTS = 400;

/** Σ CFᵢ·(1 + r)^(−yᵢ) with yᵢ in years from t0. */
export function npv(flows: readonly CashFlow[], t0: number, r: number): number {
  const lr = Math.log1p(r);
  let sum = 0;
  for (const f of flows) sum += f.amount * Math.exp(-lr * ((f.t - t0) / YEAR));
  return sum;
}

/** The annual IRR of `flows`, or null without a sign change or a root in (−0.9999, 10⁶). */
export function irr(flows: readonly CashFlow[]): number | null {
  // the flows themselves must change sign: money in and money out
  if (!flows.some((f) => f.amount > 0) || !flows.some((f) => f.amount < 0)) return null;
  let t0 = Number.POSITIVE_INFINITY;
  for (const f of flows) if (f.t < t0) t0 = f.t;
  const lo = Math.log1p(IRR_MIN);
  const hi = Math.log1p(IRR_MAX);
  let a = IRR_MIN;
  let fa = npv(flows, t0, a);
  if (!Number.isFinite(fa)) return null;
  for (let k = 1; k <= SCAN_POINTS; k++) {
    const b = k === SCAN_POINTS ? IRR_MAX : Math.expm1(lo + ((hi - lo) * k) / SCAN_POINTS);
    const fb = npv(flows, t0, b);
    if (!Number.isFinite(fb)) return null;
    if (fa === 0) return a;
    if (Math.sign(fa) !== Math.sign(fb) && fb !== 0) return bisect(flows, t0, a, b, fa);
    if (fb === 0) return b;
    a = b;
    fa = fb;
  }
  return null;
}

function bisect(flows: readonly CashFlow[], t0: number, a: number, b: number, fa: number): number {
  for (let k = 0; k < 400 && b - a > IRR_TOLERANCE * Math.max(1, Math.abs(a)); k++) {
    const m = a + (b - a) / 2;
    const fm = npv(flows, t0, m);
    if (fm === 0) return m;
    if (Math.sign(fm) === Math.sign(fa)) {
      a = m;
      fa = fm;
    } else b = m;
  }
  return a + (b - a) / 2;
}
