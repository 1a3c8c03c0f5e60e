// Runs of chart points that share a data-quality flag (DESIGN §11.3), as the stretches a chart
// shades: a missed snapshot (`carried`, `stale_snapshot`), no USD price (`unpriced`), an old
// one (`stale_price`) and a unit-price `jump`. Pure, so the stretches are tested apart from the DOM.

export type StretchKind = 'carried' | 'unpriced' | 'stale_price' | 'jump';

export interface Stretch {
  kind: StretchKind;
  /** index of the first and the last point of the run */
  first: number;
  last: number;
  /** Unix seconds the shading spans: half a step beyond the run's end points, so one point shows */
  from: number;
  to: number;
}

export const STRETCH_KINDS: readonly StretchKind[] = ['carried', 'unpriced', 'stale_price', 'jump'];

/** What a stretch of that kind means, for the chart's note. */
export const STRETCH_LABEL: Record<StretchKind, string> = {
  carried: 'no snapshot at that time (the last one carried)',
  unpriced: 'no USD price within 48 h',
  stale_price: 'USD price older than 6 h',
  jump: 'share price moved more than 5 % in an hour',
};

const kindOf = (flag: string): StretchKind | null =>
  flag === 'carried' || flag === 'stale_snapshot' ? 'carried' : flag === 'unpriced' || flag === 'stale_price' || flag === 'jump' ? flag : null;

/** `xs` ascending Unix seconds, `flags[i]` the flags of point i (none when the point has no quality block). */
export function qualityStretches(xs: readonly number[], flags: readonly (readonly string[] | undefined)[]): Stretch[] {
  const out: Stretch[] = [];
  for (const kind of STRETCH_KINDS) {
    let first = -1;
    for (let i = 0; i <= xs.length; i++) {
      const on = i < xs.length && (flags[i] ?? []).some((f) => kindOf(f) === kind);
      if (on && first < 0) first = i;
      if (!on && first >= 0) {
        const last = i - 1;
        const from = first > 0 ? (xs[first - 1]! + xs[first]!) / 2 : xs[first]!;
        const to = last < xs.length - 1 ? (xs[last]! + xs[last + 1]!) / 2 : xs[last]!;
        out.push({ kind, first, last, from, to });
        first = -1;
      }
    }
  }
  return out;
}
