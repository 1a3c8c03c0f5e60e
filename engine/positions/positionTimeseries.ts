// Position history (DESIGN §4.4, §4.8): at each grid instant, the state after every row with
// block_timestamp ≤ the instant, valued at that instant. One pass over rows and instants together.
import { isoSeconds } from '../../model/format/numbers.js';
import { asOfIndex } from '../series/asOf.js';
import type { EventRow } from '../../model/rows.js';
import { sliceOf, type RowSlice } from '../../model/events.js';
import { positionMetrics, type AmountPair } from './positionMetrics.js';
import { applyRow, createPositionState, foreignTokens, type PositionContext } from './replayPosition.js';
import { createAuditor } from '../audit/auditReplay.js';
import { fifoState } from '../audit/positionAudit.js';
import { pointQuality, type PointQuality } from '../audit/pointQuality.js';

export interface PositionPoint {
  timestamp: string;
  shares_owned: string;
  value: AmountPair;
  cost_basis: AmountPair;
  pnl: { realized: AmountPair; unrealized: AmountPair; total: AmountPair };
  roi_pct: { native: number | null; usd: number | null };
  /** with include=quality (DESIGN §11.3) */
  quality?: PointQuality;
}

/** Opt-in detail of a position's points: FIFO cost basis (§11.4), quality (§11.3). */
export interface PointOptions {
  fifo?: boolean;
  quality?: boolean;
}

export type Granularity = 'hour' | 'day' | 'week' | 'month';

/**
 * Points at `instants` (Unix seconds, ascending). Instants before the position's first row, or
 * before the vault's first snapshot, have no point (DESIGN §4.8, §4.3).
 */
export function positionPoints(
  rows: readonly EventRow[] | RowSlice,
  ctx: PositionContext,
  instants: readonly number[],
  opts: PointOptions = {},
): PositionPoint[] {
  const out: PositionPoint[] = [];
  const { table, idx, from, to } = Array.isArray(rows) ? sliceOf(rows) : (rows as RowSlice);
  if (from >= to) return out;
  const first = table.ts[idx[from]!]!;
  const { series } = ctx;
  const auditor = opts.fifo ? createAuditor(ctx, table) : null;
  const st = auditor ? auditor.state.avg : createPositionState(ctx);
  const foreign = foreignTokens(table, ctx);
  let k = from;
  let prev = -Infinity;
  for (const t of instants) {
    if (!(t >= prev)) throw new RangeError(`positionPoints: instants must ascend, got ${t} after ${prev}`);
    prev = t;
    const i = asOfIndex(series.ts, series.length, t);
    if (t < first || i < 0) continue;
    if (auditor) while (k < to && table.ts[idx[k]!]! <= t) auditor.step(idx[k++]!);
    else while (k < to && table.ts[idx[k]!]! <= t) applyRow(st, table, idx[k++]!, ctx, foreign);
    const m = positionMetrics(auditor ? fifoState(auditor.state, ctx) : st, ctx, t);
    const point: PositionPoint = {
      timestamp: isoSeconds(t),
      shares_owned: m.shares_owned,
      value: m.value,
      cost_basis: m.cost_basis,
      pnl: m.pnl,
      roi_pct: m.roi_pct,
    };
    // a position point's USD legs are priced at its instant (spot), so its price is judged there
    if (opts.quality) point.quality = pointQuality(series, i, t, ctx.prices, t);
    out.push(point);
  }
  return out;
}

/** Default window start: the first grid instant at or after the position's first row; null without rows. */
export function defaultPositionStart(rows: readonly EventRow[] | RowSlice, granularity: Granularity): number | null {
  if (Array.isArray(rows)) return rows.length === 0 ? null : ceilToGrid((rows as EventRow[])[0]!.ts, granularity);
  const r = rows as RowSlice;
  return r.from >= r.to ? null : ceilToGrid(r.table.ts[r.idx[r.from]!]!, granularity);
}

const HOUR = 3600;
const DAY = 86_400;

/** The first grid instant ≥ t (UTC): hours, days at 00:00, Mondays 00:00, the 1st of a month 00:00. */
export function ceilToGrid(t: number, granularity: Granularity): number {
  switch (granularity) {
    case 'hour':
      return Math.ceil(t / HOUR) * HOUR;
    case 'day':
      return Math.ceil(t / DAY) * DAY;
    case 'week': {
      // 1970-01-05 (Unix day 4) was a Monday
      const day = Math.ceil(t / DAY);
      return (day + ((((4 - day) % 7) + 7) % 7)) * DAY;
    }
    case 'month': {
      const d = new Date(t * 1000);
      const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
      return start === t ? t : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
    }
  }
}
