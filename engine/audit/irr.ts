// Money-weighted return (DESIGN §11.5): the annual rate r with Σ CFᵢ·(1 + r)^(−yᵢ) = 0, yᵢ the
// years since the first flow, on (−0.9999, 10⁶). In x = ln(1 + r) the NPV is a sum of
// exponentials, which has at most as many real roots as its coefficients (the flows in time
// order) change sign (Laguerre's rule of signs). So with one sign change — money in, then
// money out, the common case — the root is unique and the interval's ends bracket it; with
// more, a scan from below finds the first sign change. Newton's method kept inside the bracket
// then narrows it to 1e-10 (relative above |r| = 1).

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
const X_MIN = Math.log1p(IRR_MIN);
const X_MAX = Math.log1p(IRR_MAX);

/** Σ CFᵢ·(1 + r)^(−yᵢ) with yᵢ in years from t0. */
export function npv(flows: readonly CashFlow[], t0: number, r: number): number {
  const lr = Math.log1p(r);
  let sum = 0;
  for (const f of flows) sum += f.amount * Math.exp(-lr * ((f.t - t0) / YEAR));
  return sum;
}

/** Sign changes of the flows' amounts in time order (amounts at one instant summed, zeros dropped). */
export function signChanges(flows: readonly CashFlow[]): number {
  const sorted = [...flows].sort((a, b) => a.t - b.t);
  let changes = 0;
  let last = 0;
  for (let k = 0; k < sorted.length; ) {
    let sum = 0;
    const t = sorted[k]!.t;
    for (; k < sorted.length && sorted[k]!.t === t; k++) sum += sorted[k]!.amount;
    const s = Math.sign(sum);
    if (s === 0) continue;
    if (last !== 0 && s !== last) changes++;
    last = s;
  }
  return changes;
}

/** The annual IRR of `flows`, or null without a sign change or a root in (−0.9999, 10⁶). */
export function irr(flows: readonly CashFlow[]): number | null {
  const changes = signChanges(flows);
  if (changes === 0) return null;
  let t0 = Number.POSITIVE_INFINITY;
  for (const f of flows) if (f.t < t0) t0 = f.t;
  const years = Float64Array.from(flows, (f) => (f.t - t0) / YEAR);
  const amounts = Float64Array.from(flows, (f) => f.amount);
  const at = (x: number) => {
    let sum = 0;
    for (let k = 0; k < years.length; k++) sum += amounts[k]! * Math.exp(-x * years[k]!);
    return sum;
  };
  // the NPV and its derivative in x
  const fd = (x: number): [number, number] => {
    let sum = 0;
    let d = 0;
    for (let k = 0; k < years.length; k++) {
      const term = amounts[k]! * Math.exp(-x * years[k]!);
      sum += term;
      d -= term * years[k]!;
    }
    return [sum, d];
  };
  if (changes === 1) {
    const lo = at(X_MIN);
    const hi = at(X_MAX);
    if (!Number.isFinite(lo) || !Number.isFinite(hi)) return null;
    if (lo === 0) return IRR_MIN;
    if (hi === 0) return IRR_MAX;
    return Math.sign(lo) === Math.sign(hi) ? null : solve(fd, X_MIN, X_MAX, lo);
  }
  // several sign changes: the first from below on a grid in x
  let a = X_MIN;
  let fa = at(a);
  if (!Number.isFinite(fa)) return null;
  if (fa === 0) return IRR_MIN;
  for (let k = 1; k <= SCAN_POINTS; k++) {
    const b = X_MIN + ((X_MAX - X_MIN) * k) / SCAN_POINTS;
    const fb = at(b);
    if (!Number.isFinite(fb)) return null;
    if (fb === 0) return Math.expm1(b);
    if (Math.sign(fa) !== Math.sign(fb)) return solve(fd, a, b, fa);
    a = b;
    fa = fb;
  }
  return null;
}

/**
 * The root in x on [a, b] (f(a), f(b) of opposite signs) as a rate, to IRR_TOLERANCE: Newton's
 * method kept inside the bracket (a step that leaves it, or a stalled one, bisects instead), the
 * bracket narrowed at every evaluation. From r = 0 when the bracket holds it: most returns are
 * near there, and Newton takes a handful of steps.
 */
function solve(fd: (x: number) => [number, number], a: number, b: number, fa: number): number {
  let x = a < 0 && b > 0 ? 0 : a + (b - a) / 2;
  let step = b - a;
  for (let k = 0; k < 200; k++) {
    const [f, df] = fd(x);
    if (f === 0 || !Number.isFinite(f)) return Math.expm1(x);
    if (Math.sign(f) === Math.sign(fa)) {
      a = x;
      fa = f;
    } else b = x;
    const newton = x - f / df;
    const half = a + (b - a) / 2;
    // Newton when it stays inside and at least halves the previous step, else bisection
    const next = Number.isFinite(newton) && newton > a && newton < b && Math.abs(newton - x) < step / 2 ? newton : half;
    step = Math.abs(next - x);
    x = next;
    const r = Math.expm1(x);
    const width = Math.min(Math.expm1(b) - Math.expm1(a), step * Math.exp(x));
    if (width <= IRR_TOLERANCE * Math.max(1, Math.abs(r))) return r;
  }
  return Math.expm1(x);
}
