// Values a replayed position at an instant and emits the API's Position metrics (DESIGN §4.4,
// §4.7, §4.8): native amounts truncated at the numeraire's decimals, USD half-even at 6 places,
// pnl.total the exact sum of the published parts, roi_pct as a time-weighted return in percent.
import { formatUnits, halfEven, pow10, SHARE_DECIMALS, USD_DECIMALS } from '../../model/format/numbers.js';
import { asOfIndex, usdIndexAt } from '../series/asOf.js';
import { asOfIndexFast } from './fastAsOf.js';
import { sharesToAssets, UNIT_PRICE_ONE, unitPriceAt } from './marketValue.js';
import type { PositionContext, PositionState } from './replayPosition.js';
import { usdE18, USD_PRICE_DECIMALS } from './usdPriceCache.js';

export interface AmountPair {
  native: string;
  usd: string | null;
}

export interface PositionMetrics {
  shares_owned: string;
  value: AmountPair;
  cost_basis: AmountPair;
  pending_deposit_assets: AmountPair;
  pending_redeem_shares: string;
  pnl: { realized: AmountPair; unrealized: AmountPair; total: AmountPair };
  roi_pct: { native: number | null; usd: number | null };
}

/** The vault's latest snapshot time (`metrics.as_of`), "now" for a position (DESIGN §4.8); null without snapshots. */
export function positionNow(ctx: PositionContext): number | null {
  const n = ctx.series.length;
  return n > 0 ? ctx.series.ts[n - 1]! : null;
}

/**
 * What positionMetrics publishes of a state that no instant changes: its rounded basis and
 * realized amounts and their strings. A state valued at many instants (a timeline kept for
 * views of the past, pastPositionsTask.ts) computes it once.
 */
export interface PositionBasis {
  k: bigint;
  usdShift: number;
  realized: bigint;
  realizedUsd: bigint | null;
  shares_owned: string;
  cost_basis: AmountPair;
  pending_deposit_native: string;
  pending_redeem_shares: string;
  realized_pnl: AmountPair;
}

export function positionBasis(st: PositionState): PositionBasis {
  const d = st.decimals;
  const { k, usdShift, cost, realized, costUsd, realizedUsd } = basisParts(st);
  const u = (x: bigint | null) => (x === null ? null : formatUnits(x, USD_DECIMALS));
  return {
    k,
    usdShift,
    realized,
    realizedUsd,
    shares_owned: formatUnits(st.shares, SHARE_DECIMALS),
    cost_basis: { native: formatUnits(cost, d), usd: u(costUsd) },
    pending_deposit_native: formatUnits(st.pendingDepositAssets, d),
    pending_redeem_shares: formatUnits(st.pendingRedeemShares, SHARE_DECIMALS),
    realized_pnl: { native: formatUnits(realized, d), usd: u(realizedUsd) },
  };
}

/**
 * The position's metrics valued at `now` (the vault's latest snapshot for the current
 * position, a grid instant for a timeseries point): unit price and USD price as of `now`.
 * `b`: the state's positionBasis, when already made.
 */
export function positionMetrics(st: PositionState, ctx: PositionContext, now: number, b: PositionBasis = positionBasis(st)): PositionMetrics {
  const d = st.decimals;
  const fine = st.fine;
  // (S+Pr)·unit_price is in 10^-36 tokens; × 10^(d + fine − 36) brings it to the state's fixed point.
  const lift = pow10(d + st.fineDigits - 36);
  const { k, usdShift, realized, realizedUsd } = b;

  const up = unitPriceAt(ctx.series, now);
  const j = usdIndexAt(ctx.prices, now);
  const spot = j >= 0 ? usdE18(ctx.prices!, j) : null;
  const held = st.shares + st.pendingRedeemShares;

  const costFine = st.cost * k;
  const costUsdFine = st.costUsd * k;
  const value = sharesToAssets(st.shares, up, d);
  const unrealizedExact = held * up * lift - costFine;
  const unrealized = unrealizedExact / fine;

  const usd = st.usdComplete;
  const unrealizedUsd = usd && spot !== null ? halfEven(held * up * spot * lift - costUsdFine, usdShift) : null;

  const spotShift = d + USD_PRICE_DECIMALS - USD_DECIMALS;
  const u = (x: bigint | null) => (x === null ? null : formatUnits(x, USD_DECIMALS));
  const n = (x: bigint) => formatUnits(x, d);

  // roi: the closed spells' product times the open spell's p(now)/p(start) when shares are held
  let roi: number | null = null;
  let roiUsd: number | null = null;
  if (st.everHeld) {
    const i = asOfIndex(ctx.series.ts, ctx.series.length, now);
    const p = i < 0 ? 1 : ctx.series.unit_price_f[i]!;
    roi = finiteOrNull((st.twr * (held > 0n ? p / st.spellP : 1) - 1) * 100);
    if (usd && spot !== null) {
      const pu = p * ctx.prices!.usd_f[j]!;
      roiUsd = finiteOrNull((st.twrUsd * (held > 0n ? pu / st.spellPUsd : 1) - 1) * 100);
    }
  }

  return {
    shares_owned: b.shares_owned,
    value: { native: n(value), usd: spot === null ? null : u(halfEven(value * spot, spotShift)) },
    cost_basis: b.cost_basis,
    pending_deposit_assets: {
      native: b.pending_deposit_native,
      usd: spot === null ? null : u(halfEven(st.pendingDepositAssets * spot, spotShift)),
    },
    pending_redeem_shares: b.pending_redeem_shares,
    pnl: {
      realized: b.realized_pnl,
      unrealized: { native: n(unrealized), usd: u(unrealizedUsd) },
      // the exact sum of the two published (already rounded) parts, DESIGN §4.4
      total: {
        native: n(realized + unrealized),
        usd: realizedUsd === null || unrealizedUsd === null ? null : u(realizedUsd + unrealizedUsd),
      },
    },
    roi_pct: { native: roi, usd: roiUsd },
  };
}

/**
 * What valuing a state at an instant reuses (a state of a kept timeline is valued at many):
 * positionBasis and the products of its amounts that no instant changes.
 */
export interface PastBasis extends PositionBasis {
  /** S + Pr */
  held: bigint;
  /** (S + Pr) · lift, lift = 10^(d + fine − 36): times the unit price, the held value at the full fixed point */
  heldLift: bigint;
  costFine: bigint;
  costUsdFine: bigint;
}

export function pastBasis(st: PositionState): PastBasis {
  const b = positionBasis(st) as PastBasis;
  b.held = st.shares + st.pendingRedeemShares;
  b.heldLift = b.held * pow10(st.decimals + st.fineDigits - 36);
  b.costFine = st.cost * b.k;
  b.costUsdFine = st.costUsd * b.k;
  return b;
}

/**
 * JSON.stringify(positionMetrics(st, ctx, now, b)), in one pass: a view of the past values a
 * state per request (DESIGN §11.6), and the nested object, its serialization, the repeated
 * as-of searches and the per-instant products of amounts the state fixes were most of it. The
 * strings are decimal amounts (digits, a sign, a point: nothing JSON escapes) and the numbers
 * finite or null. Held to JSON.stringify of positionMetrics by a property test (pastItem.test.ts).
 */
export function positionMetricsJson(st: PositionState, ctx: PositionContext, now: number, b: PastBasis): string {
  const d = st.decimals;
  const series = ctx.series;
  const i = asOfIndexFast(series.ts, series.length, now);
  const up = i < 0 ? UNIT_PRICE_ONE : series.unit_price.get(i);
  const j = usdIndexAt(ctx.prices, now);
  const spot = j >= 0 ? usdE18(ctx.prices!, j) : null;
  const spotShift = d + USD_PRICE_DECIMALS - USD_DECIMALS;

  const value = sharesToAssets(st.shares, up, d);
  const heldValue = b.heldLift * up;
  const unrealized = (heldValue - b.costFine) / st.fine;
  const unrealizedUsd = st.usdComplete && spot !== null ? halfEven(heldValue * spot - b.costUsdFine, b.usdShift) : null;
  const unrealizedText = formatUnits(unrealized, d);
  const unrealizedUsdText = unrealizedUsd === null ? 'null' : `"${formatUnits(unrealizedUsd, USD_DECIMALS)}"`;
  const totalUsd = b.realizedUsd === null || unrealizedUsd === null ? 'null' : `"${formatUnits(b.realizedUsd + unrealizedUsd, USD_DECIMALS)}"`;
  let valueUsd = 'null';
  let pendingUsd = 'null';
  if (spot !== null) {
    valueUsd = `"${formatUnits(halfEven(value * spot, spotShift), USD_DECIMALS)}"`;
    pendingUsd = st.pendingDepositAssets === 0n ? '"0"' : `"${formatUnits(halfEven(st.pendingDepositAssets * spot, spotShift), USD_DECIMALS)}"`;
  }

  let roi: number | null = null;
  let roiUsd: number | null = null;
  if (st.everHeld) {
    const p = i < 0 ? 1 : series.unit_price_f[i]!;
    const open = b.held > 0n;
    roi = finiteOrNull((st.twr * (open ? p / st.spellP : 1) - 1) * 100);
    if (st.usdComplete && spot !== null) roiUsd = finiteOrNull((st.twrUsd * (open ? (p * ctx.prices!.usd_f[j]!) / st.spellPUsd : 1) - 1) * 100);
  }
  const cost = b.cost_basis;
  const realized = b.realized_pnl;
  return `{"shares_owned":"${b.shares_owned}","value":{"native":"${formatUnits(value, d)}","usd":${valueUsd}},"cost_basis":{"native":"${cost.native}","usd":${cost.usd === null ? 'null' : `"${cost.usd}"`}},"pending_deposit_assets":{"native":"${b.pending_deposit_native}","usd":${pendingUsd}},"pending_redeem_shares":"${b.pending_redeem_shares}","pnl":{"realized":{"native":"${realized.native}","usd":${realized.usd === null ? 'null' : `"${realized.usd}"`}},"unrealized":{"native":"${unrealizedText}","usd":${unrealizedUsdText}},"total":{"native":"${formatUnits(b.realized + unrealized, d)}","usd":${totalUsd}}},"roi_pct":{"native":${roi},"usd":${roiUsd}}}`;
}

/** The basis and realized amounts of a state, rounded as published (native toward zero, USD half-even). */
function basisParts(st: PositionState) {
  // every amount at the full fixed point (a state not yet scaled holds integers of base units)
  const k = st.scaled ? 1n : st.fine;
  const unscale = st.scaled ? st.fine : 1n;
  const usdShift = st.decimals + st.fineDigits + USD_PRICE_DECIMALS - USD_DECIMALS;
  const usd = st.usdComplete;
  return {
    k,
    usdShift,
    cost: st.cost / unscale,
    realized: st.realized / unscale,
    costUsd: usd ? halfEven(st.costUsd * k, usdShift) : null,
    realizedUsd: usd ? halfEven(st.realizedUsd * k, usdShift) : null,
  };
}

/**
 * The positions table's columns of a state (DESIGN §3), as positionMetrics publishes them:
 * shares, cost basis and realized PnL (native, USD), pending deposit assets and redeem shares.
 * Nothing else is valued (a batch recompute writes the table and serves nothing).
 */
export function positionColumns(st: PositionState): [string, string, string | null, string, string | null, string, string] {
  const b = positionBasis(st);
  return [b.shares_owned, b.cost_basis.native, b.cost_basis.usd, b.realized_pnl.native, b.realized_pnl.usd, b.pending_deposit_native, b.pending_redeem_shares];
}

function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}
