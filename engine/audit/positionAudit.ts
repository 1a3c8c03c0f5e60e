// One position's audit detail, as published (DESIGN §11.4, §11.5): its metrics under FIFO cost
// basis, its lots as exact strings, its time- and money-weighted returns — pure functions of an
// audit replay (auditReplay.ts), run by the pool task (positionAuditTask.ts), by publish
// (returns, engine/positions/positionItems.ts) and by the position timeseries (FIFO points).
import { formatUnits, halfEven, isoSeconds, pow10, SHARE_DECIMALS, USD_DECIMALS } from '../../model/format/numbers.js';
import type { EventTable } from '../../model/events.js';
import { positionMetrics, type PositionMetrics } from '../positions/positionMetrics.js';
import type { PositionContext, PositionState } from '../positions/replayPosition.js';
import { sharesToAssets, unitPriceAt } from '../positions/marketValue.js';
import { usdIndexAt } from '../series/asOf.js';
import { usdE18, USD_PRICE_DECIMALS } from '../positions/usdPriceCache.js';
import { type AuditState, fifoOpenCost, type Lot } from './auditReplay.js';
import { irr } from './irr.js';

export type CostBasisMethod = 'average' | 'fifo';

export interface AuditParts {
  fifo: boolean;
  lots: boolean;
  returns: boolean;
}

/** A lot with its amounts as published strings and its rows as event-table indexes (formatted per page). */
export interface LotOut {
  row: number;
  kind: Lot['kind'];
  shares_acquired: string;
  shares_open: string;
  cost: { native: string; usd: string | null };
  cost_open: { native: string; usd: string | null };
  unit_cost: { native: string; usd: string | null };
  disposals: {
    row: number;
    shares: string;
    proceeds: { native: string; usd: string | null };
    cost: { native: string; usd: string | null };
    realized: { native: string; usd: string | null };
  }[];
}

export interface PctPair {
  native: number | null;
  usd: number | null;
}

export interface PositionReturns {
  twr_pct: PctPair;
  twr_annualized_pct: PctPair;
  mwr_annualized_pct: PctPair;
  net_invested: { native: string; usd: string | null };
  period: { start: string | null; end: string; days: number | null };
}

const DAY = 86_400;

/** The average state with its cost basis and realized PnL replaced by the FIFO ones. */
export function fifoState(st: AuditState, ctx: PositionContext): PositionState {
  const open = fifoOpenCost(st);
  const toState = pow10(ctx.numeraire.decimals + USD_PRICE_DECIMALS - USD_DECIMALS);
  const usd = st.avg.usdComplete && open.usd !== null && st.realizedUsd !== null;
  return {
    ...st.avg,
    scaled: false,
    cost: open.native,
    realized: st.realized,
    costUsd: usd ? open.usd! * toState : 0n,
    realizedUsd: usd ? st.realizedUsd! * toState : 0n,
    usdComplete: usd,
  };
}

/** The Position metrics under FIFO (DESIGN §11.4): value and roi_pct as §4.4, cost basis and realized from the lots. */
export function fifoMetrics(st: AuditState, ctx: PositionContext, now: number): PositionMetrics {
  return positionMetrics(fifoState(st, ctx), ctx, now);
}

const usdText = (x: bigint | null) => (x === null ? null : formatUnits(x, USD_DECIMALS));

/** The lots as published strings; USD legs null by the USD rule of DESIGN §4.4. */
export function lotsOut(st: AuditState, ctx: PositionContext): LotOut[] {
  const d = ctx.numeraire.decimals;
  const usdOk = st.avg.usdComplete;
  const pair = (native: bigint, usd: bigint | null) => ({ native: formatUnits(native, d), usd: usdOk ? usdText(usd) : null });
  return st.lots.map((lot) => ({
    row: lot.row,
    kind: lot.kind,
    shares_acquired: formatUnits(lot.sharesAcquired, SHARE_DECIMALS),
    shares_open: formatUnits(lot.sharesOpen, SHARE_DECIMALS),
    cost: pair(lot.cost, lot.costUsd),
    cost_open: pair(lot.costOpen, lot.costOpenUsd),
    unit_cost: {
      // per whole share: at most 18 fractional digits toward zero (as a unit price), USD half-even at 6
      native: formatUnits((lot.cost * pow10(36 - d)) / lot.sharesAcquired, 18),
      usd: usdOk && lot.costUsd !== null ? usdText(halfEven((lot.costUsd * pow10(SHARE_DECIMALS + 12)) / lot.sharesAcquired, 12)) : null,
    },
    disposals: lot.disposals.map((x) => ({
      row: x.row,
      shares: formatUnits(x.shares, SHARE_DECIMALS),
      proceeds: pair(x.proceeds, x.proceedsUsd),
      cost: pair(x.cost, x.costUsd),
      realized: pair(x.proceeds - x.cost, x.proceedsUsd === null || x.costUsd === null ? null : x.proceedsUsd - x.costUsd),
    })),
  }));
}

/** The formatted lot of a LotOut: row facts read from the table (DESIGN §11.4). */
export function lotJson(lot: LotOut, t: EventTable, rowFacts: (i: number) => { tx_hash: string; lot_id: string }): Record<string, unknown> {
  const acquired = rowFacts(lot.row);
  return {
    lot_id: acquired.lot_id,
    acquired: {
      type: lot.kind,
      timestamp: isoSeconds(t.ts[lot.row]!),
      block_number: t.block_number[lot.row]!,
      tx_hash: acquired.tx_hash,
      log_index: t.log_index[lot.row]!,
    },
    shares_acquired: lot.shares_acquired,
    shares_open: lot.shares_open,
    cost: lot.cost,
    cost_open: lot.cost_open,
    unit_cost: lot.unit_cost,
    disposals: lot.disposals.map((x) => ({
      timestamp: isoSeconds(t.ts[x.row]!),
      tx_hash: rowFacts(x.row).tx_hash,
      shares: x.shares,
      proceeds: x.proceeds,
      cost: x.cost,
      realized: x.realized,
    })),
  };
}

/** Time- and money-weighted returns side by side (DESIGN §11.5), valued at `now`; `roi` = the position's roi_pct when already computed. */
export function positionReturns(st: AuditState, ctx: PositionContext, now: number, roi?: PositionMetrics['roi_pct']): PositionReturns {
  const avg = st.avg;
  const d = ctx.numeraire.decimals;
  const m = { roi_pct: roi ?? positionMetrics(avg, ctx, now).roi_pct };
  const t0 = st.flows.length > 0 ? st.flows[0]!.t : null;
  const days = t0 === null ? null : (now - t0) / DAY;
  const annual = (pct: number | null) => (pct === null || days === null || days < 1 ? null : finite((Math.pow(1 + pct / 100, 365 / days) - 1) * 100));
  // the end flow: (S + Pr) at the end's unit price, plus the pending deposit assets
  const held = avg.shares + avg.pendingRedeemShares;
  const endNative = sharesToAssets(held, unitPriceAt(ctx.series, now), d) + avg.pendingDepositAssets;
  const j = usdIndexAt(ctx.prices, now);
  const spot = j >= 0 ? usdE18(ctx.prices!, j) : null;
  const usdOk = avg.usdComplete && spot !== null && st.flows.every((f) => f.usd !== null);
  const endUsd = usdOk ? halfEven(endNative * spot!, d + USD_PRICE_DECIMALS - USD_DECIMALS) : null;
  let investedNative = 0n;
  let investedUsd = 0n;
  for (const f of st.flows) {
    investedNative -= f.native;
    if (usdOk) investedUsd -= f.usd!;
  }
  const scale = 10 ** d;
  const mwr = (leg: 'native' | 'usd') => {
    if (days === null || days < 1 || (leg === 'usd' && !usdOk)) return null;
    const flows = st.flows.map((f) => ({ t: f.t, amount: leg === 'native' ? Number(f.native) / scale : Number(f.usd!) / 1e6 }));
    flows.push({ t: now, amount: leg === 'native' ? Number(endNative) / scale : Number(endUsd!) / 1e6 });
    const r = irr(flows);
    return r === null ? null : finite(r * 100);
  };
  return {
    twr_pct: { native: m.roi_pct.native, usd: m.roi_pct.usd },
    twr_annualized_pct: { native: annual(m.roi_pct.native), usd: annual(m.roi_pct.usd) },
    mwr_annualized_pct: { native: mwr('native'), usd: mwr('usd') },
    net_invested: { native: formatUnits(investedNative, d), usd: usdOk ? formatUnits(investedUsd, USD_DECIMALS) : null },
    period: { start: t0 === null ? null : isoSeconds(t0), end: isoSeconds(now), days },
  };
}

function finite(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}
