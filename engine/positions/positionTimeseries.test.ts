import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../../model/format/numbers.js';
import type { EventKind, EventRow } from '../../model/rows.js';
import { demoPositions, makePrices, makeSeries } from '../../test/helpers/positionFixtures.js';
import { positionMetrics } from './positionMetrics.js';
import { ceilToGrid, defaultPositionStart, positionPoints, type PositionPoint } from './positionTimeseries.js';
import { replayPosition, type PositionContext } from './replayPosition.js';

const H = 3600;
const DAY = 86_400;
const T0 = 1_699_999_200;

/** The rule itself: replay the rows with ts ≤ t, value the state at t. */
function pointByPrefix(rows: readonly EventRow[], ctx: PositionContext, t: number): PositionPoint {
  const m = positionMetrics(
    replayPosition(
      rows.filter((r) => r.ts <= t),
      ctx,
    ),
    ctx,
    t,
  );
  return { timestamp: isoSeconds(t), shares_owned: m.shares_owned, value: m.value, cost_basis: m.cost_basis, pnl: m.pnl, roi_pct: m.roi_pct };
}

let n = 0;
function row(kind: EventKind, ts: number, assets: bigint, shares: bigint, request_hash: string | null = null): EventRow {
  n++;
  return {
    chain_id: 1,
    block_number: n,
    log_index: 0,
    sub_index: 0,
    block_hash: '0xb',
    tx_hash: '0xt',
    ts,
    vault_id: '1:0xvault',
    kind,
    wallet: '0xw',
    counterparty: null,
    token: '0xnum',
    assets,
    shares,
    request_hash,
  };
}

function ctxOf(hours: number, drift: bigint): PositionContext {
  const ts = Array.from({ length: hours }, (_, i) => T0 + i * H);
  let p = 10n ** 18n;
  const prices = ts.map(() => (p = (p * (1_000_000n + drift)) / 1_000_000n + 3n));
  const units = prices.map((x) => {
    const s = x.toString().padStart(19, '0');
    return `${s.slice(0, -18)}.${s.slice(-18)}`;
  });
  return {
    series: makeSeries(ts, units, 6),
    // USD prices every other hour from hour 10: early rows have none, so some USD legs are null
    prices: makePrices(
      ts.filter((_, i) => i >= 10 && i % 2 === 0),
      ts.filter((_, i) => i >= 10 && i % 2 === 0).map((_, i) => `1.00${i}`),
      1,
      '0xnum',
    ),
    numeraire: { address: '0xnum', decimals: 6, symbol: 'USDC' },
  };
}

const rowsArb = fc
  .array(
    fc.record({
      op: fc.constantFrom('deposit', 'withdraw', 'request', 'settle', 'transfer_in', 'transfer_out'),
      dt: fc.constantFrom(0, 1, 59, H - 1, H, H + 1, 5 * H),
      amount: fc.integer({ min: 1, max: 1_000_000 }),
      part: fc.integer({ min: 1, max: 100 }),
    }),
    { minLength: 1, maxLength: 30, size: 'max' },
  )
  .map((ops) => {
    const rows: EventRow[] = [];
    let t = T0 + 3 * H + 5;
    let S = 0n;
    const open: bigint[] = [];
    ops.forEach((o, i) => {
      t += o.dt;
      const a = BigInt(o.amount) * 1000n;
      const s = a * 10n ** 12n;
      const part = (S * BigInt(o.part)) / 100n;
      if (o.op === 'deposit' || o.op === 'transfer_in') {
        rows.push(row(o.op, t, a, s));
        S += s;
      } else if ((o.op === 'withdraw' || o.op === 'transfer_out') && part > 0n) {
        rows.push(row(o.op, t, a, part));
        S -= part;
      } else if (o.op === 'request') {
        rows.push(row('deposit_pending', t, a, 0n, `0x${i}`));
        open.push(BigInt(i), a);
      } else if (o.op === 'settle' && open.length > 0) {
        const [id, amt] = open.splice(0, 2) as [bigint, bigint];
        rows.push(row('deposit', t, amt, amt * 10n ** 12n, `0x${id}`));
        S += amt * 10n ** 12n;
      }
    });
    return rows;
  })
  .filter((rows) => rows.length > 0);

describe('positionPoints (DESIGN §4.4 position timeseries)', () => {
  it('the point at an instant equals replaying the rows at or before it, valued at it', () => {
    fc.assert(
      fc.property(rowsArb, fc.integer({ min: -3, max: 12 }), (rows, drift) => {
        const ctx = ctxOf(120, BigInt(drift) * 97n);
        // hourly instants plus instants exactly at row times and a second before them
        const instants = [...new Set([...Array.from({ length: 130 }, (_, i) => T0 - 2 * H + i * H), ...rows.flatMap((r) => [r.ts - 1, r.ts])])].sort(
          (a, b) => a - b,
        );
        const points = positionPoints(rows, ctx, instants);
        const expected = instants.filter((t) => t >= rows[0]!.ts && t >= T0).map((t) => pointByPrefix(rows, ctx, t));
        expect(points).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });

  it('demo positions: daily points equal prefix replays; exited positions keep their history', () => {
    const NOW = Date.UTC(2026, 0, 15, 10) / 1000;
    const w = demoPositions({ seed: 11, now: NOW, vaults: null, wallets: 200, days: 60 });
    const sample = [...w.positions].sort((a, b) => b.rows.length - a.rows.length).slice(0, 40);
    let exitedWithHistory = 0;
    for (const p of sample) {
      const ctx = w.contexts.get(p.vault_id)!;
      const start = defaultPositionStart(p.rows, 'day')!;
      const end = ctx.series.ts[ctx.series.length - 1]!;
      const instants: number[] = [];
      for (let t = start; t <= end; t += DAY) instants.push(t);
      const points = positionPoints(p.rows, ctx, instants);
      expect(points).toHaveLength(instants.length);
      for (const k of [0, Math.floor(points.length / 2), points.length - 1]) {
        if (points[k]) expect(points[k]).toEqual(pointByPrefix(p.rows, ctx, instants[k]!));
      }
      if (points.length > 0 && points.at(-1)!.shares_owned === '0' && points.some((x) => x.shares_owned !== '0')) exitedWithHistory++;
    }
    expect(exitedWithHistory).toBeGreaterThan(0);
  });

  it('points before the first row or before the first snapshot are omitted; no rows, no points', () => {
    const ctx = ctxOf(48, 10n);
    const rows = [row('deposit', T0 + 5 * H + 30, 1_000_000n, 10n ** 18n)];
    const points = positionPoints(rows, ctx, [T0 - H, T0, T0 + 5 * H, T0 + 6 * H, T0 + 7 * H]);
    expect(points.map((p) => p.timestamp)).toEqual([isoSeconds(T0 + 6 * H), isoSeconds(T0 + 7 * H)]);
    expect(positionPoints([], ctx, [T0 + 6 * H])).toEqual([]);
    const early = [row('deposit', T0 - 2 * H, 1_000_000n, 10n ** 18n)];
    expect(positionPoints(early, ctx, [T0 - H, T0]).map((p) => p.timestamp)).toEqual([isoSeconds(T0)]);
  });

  it('error: instants out of order', () => {
    const ctx = ctxOf(4, 0n);
    expect(() => positionPoints([row('deposit', T0, 1n, 1n)], ctx, [T0 + H, T0])).toThrow(`positionPoints: instants must ascend, got ${T0} after ${T0 + H}`);
  });
});

describe('default start: the first grid instant at or after the first row', () => {
  it('hour, day, week (Mondays) and month (the 1st) grids, instants on the grid stay', () => {
    const t = Date.UTC(2025, 0, 15, 10, 30) / 1000; // Wednesday
    expect(ceilToGrid(t, 'hour')).toBe(Date.UTC(2025, 0, 15, 11) / 1000);
    expect(ceilToGrid(t, 'day')).toBe(Date.UTC(2025, 0, 16) / 1000);
    expect(ceilToGrid(t, 'week')).toBe(Date.UTC(2025, 0, 20) / 1000); // Monday
    expect(ceilToGrid(t, 'month')).toBe(Date.UTC(2025, 1, 1) / 1000);
    const monday = Date.UTC(2025, 0, 20) / 1000;
    expect(ceilToGrid(monday, 'week')).toBe(monday);
    expect(ceilToGrid(monday + 1, 'week')).toBe(monday + 7 * DAY);
    expect(ceilToGrid(Date.UTC(2024, 11, 1) / 1000, 'month')).toBe(Date.UTC(2024, 11, 1) / 1000);
    expect(ceilToGrid(Date.UTC(2024, 11, 31, 23) / 1000, 'month')).toBe(Date.UTC(2025, 0, 1) / 1000);
    expect(defaultPositionStart([row('deposit', t, 1n, 1n)], 'day')).toBe(Date.UTC(2025, 0, 16) / 1000);
    expect(defaultPositionStart([], 'day')).toBeNull();
  });

  it('week grid instants are Mondays at 00:00 UTC and never precede t', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000 }), (t) => {
        const w = ceilToGrid(t, 'week');
        expect(new Date(w * 1000).getUTCDay()).toBe(1);
        expect(w % DAY).toBe(0);
        expect(w >= t && w - t < 7 * DAY).toBe(true);
      }),
    );
  });
});
