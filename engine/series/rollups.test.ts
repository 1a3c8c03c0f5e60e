import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY, HOUR, oracleGrid, T0 } from '../../test/helpers/seriesWorld.js';
import { asOfIndex } from './asOf.js';
import { asOfFrom, gridCeil, gridFloor, gridWindow, windowPoints, type Granularity, type WindowQuery } from './rollups.js';

const series = (ts: number[]) => ({ ts: Float64Array.from(ts), length: ts.length });
const iso = (t: number) => new Date(t * 1000).toISOString();

/** Naive: every candidate instant in [start, end] ∩ [first, last], as-of by linear scan. */
function naive(ts: number[], g: Granularity, q: { start?: number; end?: number; order?: 'asc' | 'desc' }) {
  if (ts.length === 0) return { instants: [] as number[], indices: [] as number[] };
  const lo = Math.max(q.start ?? ts[0]!, ts[0]!);
  const hi = Math.min(q.end ?? ts[ts.length - 1]!, ts[ts.length - 1]!);
  const instants = g === 'hour' ? ts.filter((t) => t >= lo && t <= hi) : lo > hi ? [] : oracleGrid(g, lo, hi);
  const indices = instants.map((t) => {
    let j = -1;
    ts.forEach((x, k) => {
      if (x <= t) j = k;
    });
    return j;
  });
  if (q.order === 'desc') {
    instants.reverse();
    indices.reverse();
  }
  return { instants, indices };
}

// hourly ts with gaps, starting somewhere in 2024
const tsArb = fc
  .tuple(
    fc.integer({ min: 0, max: 24 * 400 }),
    fc.array(fc.oneof({ weight: 5, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 24 * 45 }) }), { maxLength: 400 }),
  )
  .map(([start, gaps]) => {
    const out: number[] = [];
    let t = T0 + start * HOUR;
    for (const g of gaps) out.push((t += g * HOUR));
    return out;
  });
const granularity = fc.constantFrom<Granularity>('hour', 'day', 'week', 'month');
const instant = fc.integer({ min: T0 - 30 * DAY, max: T0 + 500 * DAY });

describe('grid arithmetic', () => {
  it('days start at 00:00 UTC, weeks on Mondays, months on the 1st', () => {
    const t = Date.UTC(2024, 4, 15, 13, 30) / 1000; // Wed 2024-05-15 13:30
    expect(iso(gridFloor('day', t))).toBe('2024-05-15T00:00:00.000Z');
    expect(iso(gridCeil('day', t))).toBe('2024-05-16T00:00:00.000Z');
    expect(iso(gridFloor('week', t))).toBe('2024-05-13T00:00:00.000Z');
    expect(iso(gridCeil('week', t))).toBe('2024-05-20T00:00:00.000Z');
    expect(iso(gridFloor('month', t))).toBe('2024-05-01T00:00:00.000Z');
    expect(iso(gridCeil('month', t))).toBe('2024-06-01T00:00:00.000Z');
    const m = Date.UTC(2024, 1, 1) / 1000;
    expect(gridCeil('month', m)).toBe(m);
    expect(gridFloor('week', Date.UTC(2024, 4, 13) / 1000)).toBe(Date.UTC(2024, 4, 13) / 1000);
  });
});

describe('windowPoints', () => {
  it('a grid point carries the as-of snapshot; instants before the first snapshot have none', () => {
    // first snapshot Tue 2024-01-02 05:00, then hourly to Jan 3 02:00, then a gap to Jan 5 10:00
    const first = T0 + DAY + 5 * HOUR;
    const ts = [...Array.from({ length: 22 }, (_, k) => first + k * HOUR), T0 + 4 * DAY + 10 * HOUR];
    const s = series(ts);
    const day = windowPoints(s, 'day', { start: T0 - 5 * DAY });
    expect(day.instants.map(iso)).toEqual(['2024-01-03T00:00:00.000Z', '2024-01-04T00:00:00.000Z', '2024-01-05T00:00:00.000Z']);
    // Jan 3 00:00 → the 19:00+… snapshot at 00:00 (index 19); Jan 4 and 5 → the last before the gap (21)
    expect(day.indices).toEqual([19, 21, 21]);
    expect(day.hasMore).toBe(false);
  });

  it('hour returns the raw points inside the inclusive window', () => {
    const ts = [T0, T0 + HOUR, T0 + 5 * HOUR, T0 + 6 * HOUR];
    const w = windowPoints(series(ts), 'hour', { start: T0 + HOUR, end: T0 + 5 * HOUR });
    expect(w).toEqual({ instants: [T0 + HOUR, T0 + 5 * HOUR], indices: [1, 2], hasMore: false });
    expect(windowPoints(series(ts), 'hour', { order: 'desc', limit: 3 })).toEqual({ instants: [ts[3], ts[2], ts[1]], indices: [3, 2, 1], hasMore: true });
  });

  it('an empty series or an empty window has no points', () => {
    expect(windowPoints(series([]), 'day')).toEqual({ instants: [], indices: [], hasMore: false });
    expect(windowPoints(series([T0 + HOUR]), 'day')).toEqual({ instants: [], indices: [], hasMore: false });
    expect(windowPoints(series([T0, T0 + DAY]), 'day', { start: T0 + 2 * DAY })).toEqual({ instants: [], indices: [], hasMore: false });
  });

  it('equals a naive filter of the window, in both orders', () => {
    fc.assert(
      fc.property(
        tsArb,
        granularity,
        fc.option(instant, { nil: undefined }),
        fc.option(instant, { nil: undefined }),
        fc.boolean(),
        (ts, g, start, end, desc) => {
          const q: WindowQuery = { order: desc ? 'desc' : 'asc' };
          if (start !== undefined) q.start = start;
          if (end !== undefined) q.end = end;
          const got = windowPoints(series(ts), g, q);
          const want = naive(ts, g, q);
          expect({ instants: got.instants, indices: got.indices }).toEqual(want);
          expect(got.hasMore).toBe(false);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('limit and resume paginate completely, without overlap, in both orders', () => {
    fc.assert(
      fc.property(tsArb, granularity, fc.integer({ min: 1, max: 40 }), fc.boolean(), (ts, g, limit, desc) => {
        const order = desc ? 'desc' : 'asc';
        const all = windowPoints(series(ts), g, { order });
        const pages: number[] = [];
        const idx: number[] = [];
        let after: number | undefined;
        for (let guard = 0; guard < 10_000; guard++) {
          const page = windowPoints(series(ts), g, after === undefined ? { order, limit } : { order, limit, after });
          expect(page.instants.length).toBeLessThanOrEqual(limit);
          pages.push(...page.instants);
          idx.push(...page.indices);
          if (!page.hasMore) break;
          expect(page.instants.length).toBe(limit);
          after = page.instants[page.instants.length - 1];
        }
        expect(pages).toEqual(all.instants);
        expect(idx).toEqual(all.indices);
      }),
      { numRuns: 200 },
    );
  });

  it('a day point equals the hourly point as-of its 00:00', () => {
    fc.assert(
      fc.property(tsArb, (ts) => {
        const s = series(ts);
        const day = windowPoints(s, 'day');
        day.instants.forEach((t, k) => {
          const hourly = windowPoints(s, 'hour', { end: t, order: 'desc', limit: 1 });
          expect(day.indices[k]).toBe(hourly.indices[0]);
          expect(hourly.instants[0]).toBeLessThanOrEqual(t);
        });
      }),
      { numRuns: 100 },
    );
  });

  it('gridWindow works on any ascending time column', () => {
    const ts = Float64Array.from([T0, T0 + 3 * DAY]);
    expect(gridWindow(ts, 2, 'day').indices).toEqual([0, 0, 0, 1]);
  });
});

describe('asOfFrom', () => {
  it('equals the binary-search as-of index from any guess', () => {
    fc.assert(
      fc.property(tsArb, instant, fc.integer({ min: -5, max: 500 }), (ts, t, guess) => {
        const a = Float64Array.from(ts);
        expect(asOfFrom(a, a.length, t, guess)).toBe(asOfIndex(a, a.length, t));
      }),
    );
  });
});
