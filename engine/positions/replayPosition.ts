// Average-cost replay of one wallet's rows in one vault (DESIGN §4.4), natively and in USD, in
// exact bigint fixed point; positionMetrics.ts rounds the state only when it is emitted.
import type { PriceSeries, VaultSeries } from '../../model/world.js';
import type { EventRow } from '../../model/rows.js';
import { eventRowId, KIND, NONE, sliceOf, type EventTable, type RowSlice } from '../../model/events.js';
import { asOfIndexFast, isHourlyContiguous } from './fastAsOf.js';
import { pow10 } from '../../model/format/numbers.js';
import { isForeignToken, marketValue } from './marketValue.js';
import { usdBig, usdFloat, usdIndexIn, usdTable, type UsdTable } from './usdPriceCache.js';

export interface NumeraireRef {
  address: string;
  decimals: number;
  symbol: string | null;
}

/** What a replay reads besides the rows: the vault's series and its numeraire's USD prices. */
export interface PositionContext {
  series: VaultSeries;
  /** USD prices of the numeraire; undefined = never priced */
  prices: PriceSeries | undefined;
  numeraire: NumeraireRef;
}

/** Why a corrupt row was skipped (it is counted, never thrown). */
export type SkipReason =
  | 'non_positive_amount' // a zero or negative amount where the kind needs one
  | 'insufficient_shares' // a withdraw, redeem request or transfer_out of more shares than held
  | 'missing_request_hash' // an async request row without its hash
  | 'duplicate_request' // a request whose hash is already open
  | 'no_matching_request' // a settlement or refund with no open request of that hash
  | 'unknown_kind';

export interface OpenDeposit {
  /** numeraire base units; 0 for a foreign-token request (its value is known only at settlement) */
  assets: bigint;
  foreign: boolean;
  /** USD price (18-decimal) at the request, the time the assets left the wallet; null if unpriced */
  usd: bigint | null;
}

/**
 * Replay state. Native amounts `cost`/`realized` are fixed point: numeraire base units ×
 * 10^scaleDigits(st); the USD ones are the native fixed point × an 18-decimal USD price, i.e.
 * USD × 10^(decimals + scaleDigits(st) + 18). Shares are 18-decimal base units, exact.
 * Until the first partial disposal every amount is an integer of base units, so the extra
 * digits are added only then (`scaled`): most positions never pay for them.
 */
export interface PositionState {
  readonly decimals: number;
  readonly fineDigits: number;
  /** 10^fineDigits */
  readonly fine: bigint;
  /** the amounts carry fineDigits extra digits (after the first partial disposal) */
  scaled: boolean;
  /** S */
  shares: bigint;
  /** Pr */
  pendingRedeemShares: bigint;
  /** Pd, numeraire base units */
  pendingDepositAssets: bigint;
  /** C */
  cost: bigint;
  /** R */
  realized: bigint;
  costUsd: bigint;
  realizedUsd: bigint;
  /** false once any applied row had no USD price: every replay-derived USD leg is then null */
  usdComplete: boolean;
  /** S + Pr was ever > 0 (roi_pct is null otherwise) */
  everHeld: boolean;
  /**
   * Time-weighted return (DESIGN §4.4): Π p(t_end)/p(t_start) over the sub-periods with S + Pr > 0.
   * Within a spell where S + Pr stays > 0 the product telescopes to p(spell end)/p(spell start),
   * so only the rows that open or close a spell look the unit price up. `twr` = closed spells.
   */
  twr: number;
  twrUsd: number;
  /** p at the start of the open spell (native; unit price × USD price) */
  spellP: number;
  spellPUsd: number;
  /** open async requests by request-hash index (EventTable.request); null until the first one (most positions never have any) */
  openDeposits: Map<number, OpenDeposit> | null;
  /** request-hash index → escrowed shares */
  openRedeems: Map<number, bigint> | null;
  /** rows applied and rows skipped as corrupt */
  applied: number;
  skipped: number;
  firstSkip: { row: string; reason: SkipReason } | null;
  /** ts of the first and last row seen (applied or not); NaN before any */
  firstTs: number;
  lastTs: number;
  /** index of the USD price found by the last lookup (−1: none) */
  usdJ: number;
  /** the numeraire's USD prices laid out for lookups (memoized per PriceSeries) */
  usdTable: UsdTable | null;
  /** the vault series is hourly without gaps: as-of indexes are arithmetic */
  upHourly: boolean;
}

/** Extra fractional digits below the numeraire's base unit; ≥ 36 − decimals so unit-price products stay integral. */
export function fineDigitsFor(decimals: number): number {
  return Math.max(30, 36 - decimals);
}

/** Digits below the base unit the state's amounts carry now (0 before the first partial disposal). */
export function scaleDigits(st: PositionState): number {
  return st.scaled ? st.fineDigits : 0;
}

export function createPositionState(ctx: PositionContext): PositionState {
  const decimals = ctx.numeraire.decimals;
  return {
    decimals,
    fineDigits: fineDigitsFor(decimals),
    fine: pow10(fineDigitsFor(decimals)),
    scaled: false,
    shares: 0n,
    pendingRedeemShares: 0n,
    pendingDepositAssets: 0n,
    cost: 0n,
    realized: 0n,
    costUsd: 0n,
    realizedUsd: 0n,
    usdComplete: ctx.prices !== undefined, // a numeraire never priced has no USD legs at all
    everHeld: false,
    twr: 1,
    twrUsd: 1,
    spellP: 1,
    spellPUsd: 1,
    openDeposits: null,
    openRedeems: null,
    applied: 0,
    skipped: 0,
    firstSkip: null,
    firstTs: NaN,
    lastTs: NaN,
    usdJ: -1,
    usdTable: ctx.prices === undefined ? null : usdTable(ctx.prices),
    upHourly: ctx.series.length > 0 && isHourlyContiguous(ctx.series),
  };
}

/** Replays `rows` (one wallet, one vault, in (block_number, log_index, sub_index) order). Never throws on bad rows. */
export function replayPosition(rows: readonly EventRow[] | RowSlice, ctx: PositionContext): PositionState {
  const { table, idx, from, to } = Array.isArray(rows) ? sliceOf(rows) : (rows as RowSlice);
  const st = createPositionState(ctx);
  const foreign = foreignTokens(table, ctx);
  for (let k = from; k < to; k++) applyRow(st, table, idx[k]!, ctx, foreign);
  return st;
}

/**
 * Per token index of `t`: 1 when that token is not the numeraire of `ctx` (a foreign-token row,
 * DESIGN §4.4). Memoized per table dictionary and numeraire; a token added later is looked up then.
 */
export function foreignTokens(t: EventTable, ctx: Pick<PositionContext, 'numeraire'>): (token: number) => boolean {
  const values = t.dict.tokens.values;
  const address = ctx.numeraire.address;
  let memo = foreignMemo.get(values)?.get(address);
  if (memo === undefined) {
    let byAddress = foreignMemo.get(values);
    if (!byAddress) foreignMemo.set(values, (byAddress = new Map()));
    byAddress.set(address, (memo = []));
  }
  const known = memo;
  return (token) => {
    let f = known[token];
    if (f === undefined) known[token] = f = isForeignToken(values[token]!, address);
    return f;
  };
}
const foreignMemo = new WeakMap<string[], Map<string, boolean[]>>();

/** DESIGN §4.4 inclusion: S > 0 or Pd > 0 or Pr > 0 (an open foreign-token request counts as Pd > 0). */
export function isPositionOpen(st: PositionState): boolean {
  return st.shares > 0n || st.pendingRedeemShares > 0n || st.pendingDepositAssets > 0n || (st.openDeposits?.size ?? 0) > 0;
}

/** The stable id of a raw row, as activity rows publish it. */
export function rowId(row: EventRow): string {
  return `${row.chain_id}:${row.block_number}:${row.log_index}:${row.sub_index}`;
}

/** Applies row i of `t`; returns false (and counts it) when the row is corrupt and was skipped. */
export function applyRow(st: PositionState, t: EventTable, i: number, ctx: PositionContext, foreign = foreignTokens(t, ctx)): boolean {
  const ts = t.ts[i]!;
  if (st.applied + st.skipped === 0) st.firstTs = ts;
  st.lastTs = ts;
  const reason = applyKind(st, t, i, ctx, ts, foreign(t.token[i]!));
  if (reason === null) {
    st.applied++;
    return true;
  }
  st.skipped++;
  if (st.firstSkip === null) st.firstSkip = { row: eventRowId(t, i), reason };
  return false;
}

function applyKind(st: PositionState, ev: EventTable, i: number, ctx: PositionContext, t: number, foreign: boolean): SkipReason | null {
  const s = ev.shares.get(i);
  const decimals = st.decimals;
  const request = ev.request[i]!;
  switch (ev.kind[i]) {
    case KIND.deposit: {
      if (s <= 0n) return 'non_positive_amount';
      if (request === NONE) {
        // sync: S += s; C += a (a foreign token is booked at units × unit_price(t))
        const assets = ev.assets.get(i);
        if (assets <= 0n) return 'non_positive_amount';
        const a = foreign ? marketValue(ctx.series, decimals, s, t) : assets;
        const u = rowUsd(st, t);
        acquire(st, ctx, t, s, a, u, u);
        return null;
      }
      // async settlement: Pd −= a; S += s; C += a, the USD cost priced at the request time
      const req = st.openDeposits?.get(request);
      if (req === undefined) return 'no_matching_request';
      st.openDeposits!.delete(request);
      const a = req.foreign ? marketValue(ctx.series, decimals, s, t) : req.assets;
      const u = rowUsd(st, t); // the settlement row must be priced too (DESIGN §4.4: "any row")
      st.pendingDepositAssets -= req.assets;
      acquire(st, ctx, t, s, a, req.usd, u);
      return null;
    }
    case KIND.deposit_pending: {
      if (request === NONE) return 'missing_request_hash';
      const assets = ev.assets.get(i);
      if (assets <= 0n) return 'non_positive_amount';
      const open = (st.openDeposits ??= new Map());
      if (open.has(request)) return 'duplicate_request';
      const booked = foreign ? 0n : assets;
      open.set(request, { assets: booked, foreign, usd: rowUsd(st, t) });
      st.pendingDepositAssets += booked;
      return null;
    }
    case KIND.deposit_refunded: {
      if (request === NONE) return 'missing_request_hash';
      const req = st.openDeposits?.get(request);
      if (req === undefined) return 'no_matching_request';
      st.openDeposits!.delete(request);
      rowUsd(st, t);
      st.pendingDepositAssets -= req.assets;
      return null;
    }
    case KIND.withdraw: {
      const assets = ev.assets.get(i);
      if (assets < 0n) return 'non_positive_amount';
      if (request === NONE) {
        // sync: b = C·s/(S+Pr); C −= b; R += a − b; S −= s
        if (s <= 0n) return 'non_positive_amount';
        if (s > st.shares) return 'insufficient_shares';
        const a = foreign ? marketValue(ctx.series, decimals, s, t) : assets;
        const u = rowUsd(st, t);
        dispose(st, ctx, t, s, a, u, false);
        return null;
      }
      // async settlement: b = C·s/(S+Pr) with S and Pr before Pr −= s; C −= b; R += a − b
      const escrowed = st.openRedeems?.get(request);
      if (escrowed === undefined) return 'no_matching_request';
      st.openRedeems!.delete(request);
      const a = foreign ? marketValue(ctx.series, decimals, escrowed, t) : assets;
      const u = rowUsd(st, t);
      dispose(st, ctx, t, escrowed, a, u, true);
      return null;
    }
    case KIND.withdraw_pending: {
      // S −= s; Pr += s (the escrowed shares keep their basis in C)
      if (request === NONE) return 'missing_request_hash';
      if (s <= 0n) return 'non_positive_amount';
      if (s > st.shares) return 'insufficient_shares';
      const open = (st.openRedeems ??= new Map());
      if (open.has(request)) return 'duplicate_request';
      rowUsd(st, t);
      open.set(request, s);
      st.shares -= s;
      st.pendingRedeemShares += s;
      return null;
    }
    case KIND.withdraw_refunded: {
      // Pr −= s; S += s
      if (request === NONE) return 'missing_request_hash';
      const escrowed = st.openRedeems?.get(request);
      if (escrowed === undefined) return 'no_matching_request';
      st.openRedeems!.delete(request);
      rowUsd(st, t);
      st.pendingRedeemShares -= escrowed;
      st.shares += escrowed;
      return null;
    }
    case KIND.transfer_in: {
      if (s <= 0n) return 'non_positive_amount';
      const u = rowUsd(st, t);
      acquire(st, ctx, t, s, marketValue(ctx.series, decimals, s, t), u, u);
      return null;
    }
    case KIND.transfer_out: {
      if (s <= 0n) return 'non_positive_amount';
      if (s > st.shares) return 'insufficient_shares';
      const u = rowUsd(st, t);
      dispose(st, ctx, t, s, marketValue(ctx.series, decimals, s, t), u, false);
      return null;
    }
    default:
      return 'unknown_kind';
  }
}

/** S += s; C += a (native base units), its USD leg at price `uCost`; `uNow` = the USD price at t. */
function acquire(st: PositionState, ctx: PositionContext, t: number, s: bigint, a: bigint, uCost: bigint | null, uNow: bigint | null): void {
  if (st.shares === 0n && st.pendingRedeemShares === 0n) {
    // a holding spell starts
    const p = unitPriceF(st, ctx.series, t);
    st.spellP = p;
    if (st.usdComplete && uNow !== null) st.spellPUsd = p * usdFloat(st.usdTable!, st.usdJ);
  }
  const aFine = st.scaled ? a * st.fine : a;
  st.shares += s;
  st.everHeld = true;
  st.cost += aFine;
  if (st.usdComplete && uCost !== null) st.costUsd += aFine * uCost;
}

/**
 * Disposal of s shares for a (native base units): b = C·s/(S+Pr); C −= b; R += a − b.
 * `escrowed`: the shares leave Pr (async settlement), else S. S + Pr is read before either.
 */
function dispose(st: PositionState, ctx: PositionContext, t: number, s: bigint, a: bigint, u: bigint | null, escrowed: boolean): void {
  const held = st.shares + st.pendingRedeemShares;
  const all = s === held; // a full exit takes the whole basis, exactly and without dividing
  if (!all && !st.scaled) {
    // the first division: from here on amounts carry fineDigits extra digits
    st.scaled = true;
    st.cost *= st.fine;
    st.realized *= st.fine;
    st.costUsd *= st.fine;
    st.realizedUsd *= st.fine;
  }
  const aFine = st.scaled ? a * st.fine : a;
  const b = all ? st.cost : (st.cost * s) / held;
  st.cost -= b;
  st.realized += aFine - b;
  if (st.usdComplete && u !== null) {
    const bUsd = all ? st.costUsd : (st.costUsd * s) / held;
    st.costUsd -= bUsd;
    st.realizedUsd += aFine * u - bUsd;
  }
  if (escrowed) st.pendingRedeemShares -= s;
  else st.shares -= s;
  if (all) {
    // the holding spell ends
    const p = unitPriceF(st, ctx.series, t);
    st.twr *= p / st.spellP;
    if (st.usdComplete && u !== null) st.twrUsd *= (p * usdFloat(st.usdTable!, st.usdJ)) / st.spellPUsd;
  }
}

/** Unit price as a double at t (ROI ratios only); 1 before the first snapshot (DESIGN §4.1). */
function unitPriceF(st: PositionState, series: VaultSeries, t: number): number {
  let i: number;
  if (st.upHourly) {
    const t0 = series.ts[0]!;
    i = t < t0 ? -1 : Math.min(Math.floor((t - t0) / 3600), series.length - 1);
  } else i = asOfIndexFast(series.ts, series.length, t);
  return i < 0 ? 1 : series.unit_price_f[i]!;
}

/**
 * USD price (18-decimal) of the numeraire at t under the 48 h rule, or null — which marks the
 * state's USD legs incomplete. Leaves the price's index in `st.usdJ` for the TWR.
 */
function rowUsd(st: PositionState, t: number): bigint | null {
  if (!st.usdComplete) return null;
  const table = st.usdTable;
  const j = table === null ? -1 : usdIndexIn(table, t);
  const u = j < 0 ? null : usdBig(table!, j);
  st.usdJ = j;
  if (u === null) st.usdComplete = false;
  return u;
}
