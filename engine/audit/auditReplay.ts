// FIFO lots and cash flows of one position (DESIGN §11.4, §11.5), replayed in lock step with
// the average-cost replay (replayPosition.ts): a row the average replay skips as corrupt is
// skipped here too, so both methods see the same ledger. Amounts are exact bigints: native in
// numeraire base units, USD in micro-dollars (10⁻⁶, the published precision), so lot costs and
// proceeds split across lots always add up to the base unit.
import { KIND, NONE, sliceOf, type EventTable, type RowSlice } from '../../model/events.js';
import type { EventRow } from '../../model/rows.js';
import { halfEven, USD_DECIMALS } from '../../model/format/numbers.js';
import { marketValue } from '../positions/marketValue.js';
import { applyRow, createPositionState, foreignTokens, type PositionContext, type PositionState } from '../positions/replayPosition.js';
import { USD_PRICE_DECIMALS, usdBig } from '../positions/usdPriceCache.js';

export interface Disposal {
  /** the disposing row (event-table index) */
  row: number;
  shares: bigint;
  proceeds: bigint;
  proceedsUsd: bigint | null;
  cost: bigint;
  costUsd: bigint | null;
}

export interface Lot {
  /** the acquiring row (event-table index) */
  row: number;
  kind: 'deposit' | 'transfer_in';
  sharesAcquired: bigint;
  sharesOpen: bigint;
  cost: bigint;
  costUsd: bigint | null;
  costOpen: bigint;
  costOpenUsd: bigint | null;
  disposals: Disposal[];
}

export interface Flow {
  t: number;
  /** numeraire base units; negative into the vault */
  native: bigint;
  /** micro-dollars, null when unpriced */
  usd: bigint | null;
}

export interface AuditState {
  /** the average-cost state (shares, pending amounts, TWR, USD completeness) */
  avg: PositionState;
  lots: Lot[];
  /** index of the oldest lot with shares open */
  head: number;
  realized: bigint;
  realizedUsd: bigint | null;
  flows: Flow[];
}

interface OpenRequest {
  t: number;
  assets: bigint;
  foreign: boolean;
  usd: bigint | null;
  /** index in flows of its request-time flow */
  flow: number;
}

/**
 * The stepper: apply rows one by one (positionPoints steps it between instants). `lots: false`
 * keeps only the average state and the flows (what returns need: publish computes them for
 * every position).
 */
export function createAuditor(ctx: PositionContext, table: EventTable, opts: { lots?: boolean } = {}) {
  const keepLots = opts.lots ?? true;
  const avg = createPositionState(ctx);
  const foreign = foreignTokens(table, ctx);
  const d = ctx.numeraire.decimals;
  const usdShift = d + USD_PRICE_DECIMALS - USD_DECIMALS;
  const st: AuditState = { avg, lots: [], head: 0, realized: 0n, realizedUsd: 0n, flows: [] };
  const deposits = new Map<number, OpenRequest>();

  // the USD price of the row just applied: the average replay looked it up (rowUsd leaves its
  // index in usdJ); once a row was unpriced every USD leg is null (DESIGN §4.4), so none is needed
  const priceAt = (): bigint | null => (avg.usdComplete && avg.usdJ >= 0 ? usdBig(avg.usdTable!, avg.usdJ) : null);
  const usdOf = (a: bigint, price: bigint | null) => (price === null ? null : halfEven(a * price, usdShift));
  const flow = (t: number, native: bigint, price: bigint | null) => st.flows.push({ t, native, usd: usdOf(native, price) }) - 1;

  function acquire(row: number, kind: Lot['kind'], s: bigint, a: bigint, price: bigint | null) {
    if (!keepLots) return;
    const usd = usdOf(a, price);
    st.lots.push({ row, kind, sharesAcquired: s, sharesOpen: s, cost: a, costUsd: usd, costOpen: a, costOpenUsd: usd, disposals: [] });
  }

  function dispose(row: number, s: bigint, a: bigint, price: bigint | null) {
    if (!keepLots) return;
    const proceedsUsd = usdOf(a, price);
    let left = s;
    let proceedsLeft = a;
    let proceedsUsdLeft = proceedsUsd;
    while (left > 0n && st.head < st.lots.length) {
      const lot = st.lots[st.head]!;
      // biome-ignore lint/complexity/useMathMinMax: bigints (Math.min takes numbers)
      const take = left < lot.sharesOpen ? left : lot.sharesOpen;
      const whole = take === lot.sharesOpen;
      const cost = whole ? lot.costOpen : (lot.costOpen * take) / lot.sharesOpen;
      const costUsd = lot.costOpenUsd === null ? null : whole ? lot.costOpenUsd : (lot.costOpenUsd * take) / lot.sharesOpen;
      const last = take === left;
      const proceeds = last ? proceedsLeft : (a * take) / s;
      const pUsd = proceedsUsd === null ? null : last ? proceedsUsdLeft : (proceedsUsd * take) / s;
      proceedsLeft -= proceeds;
      if (proceedsUsdLeft !== null && pUsd !== null) proceedsUsdLeft -= pUsd;
      lot.sharesOpen -= take;
      lot.costOpen -= cost;
      if (lot.costOpenUsd !== null && costUsd !== null) lot.costOpenUsd -= costUsd;
      lot.disposals.push({ row, shares: take, proceeds, proceedsUsd: pUsd, cost, costUsd });
      st.realized += proceeds - cost;
      st.realizedUsd = st.realizedUsd === null || pUsd === null || costUsd === null ? null : st.realizedUsd + pUsd - costUsd;
      left -= take;
      if (lot.sharesOpen === 0n) st.head++;
    }
  }

  /** Applies row i (in position order); false when the average replay skipped it as corrupt. */
  function step(i: number): boolean {
    const t = table.ts[i]!;
    const kind = table.kind[i]!;
    const request = table.request[i]!;
    const s = table.shares.get(i);
    const isForeign = foreign(table.token[i]!);
    // what the row refers to, read before the average replay consumes it
    const escrowed = request !== NONE ? avg.openRedeems?.get(request) : undefined;
    const openDeposit = request !== NONE ? deposits.get(request) : undefined;
    if (!applyRow(avg, table, i, ctx, foreign)) return false;
    switch (kind) {
      case KIND.deposit: {
        if (request === NONE) {
          const a = isForeign ? marketValue(ctx.series, d, s, t) : table.assets.get(i);
          const price = priceAt();
          acquire(i, 'deposit', s, a, price);
          flow(t, -a, price);
        } else if (openDeposit) {
          deposits.delete(request);
          const a = openDeposit.foreign ? marketValue(ctx.series, d, s, t) : openDeposit.assets;
          // the cost is the assets that left the wallet at the request, priced then (DESIGN §11.4)
          acquire(i, 'deposit', s, a, openDeposit.usd);
          if (openDeposit.foreign) {
            const f = st.flows[openDeposit.flow]!;
            f.native = -a;
            f.usd = usdOf(-a, openDeposit.usd);
          }
        }
        break;
      }
      case KIND.deposit_pending: {
        const price = priceAt();
        const assets = isForeign ? 0n : table.assets.get(i);
        deposits.set(request, { t, assets, foreign: isForeign, usd: price, flow: flow(t, -assets, price) });
        break;
      }
      case KIND.deposit_refunded: {
        if (openDeposit) {
          deposits.delete(request);
          flow(t, openDeposit.assets, priceAt());
        }
        break;
      }
      case KIND.withdraw: {
        const shares = request === NONE ? s : (escrowed ?? 0n);
        const a = isForeign ? marketValue(ctx.series, d, shares, t) : table.assets.get(i);
        const price = priceAt();
        dispose(i, shares, a, price);
        flow(t, a, price);
        break;
      }
      case KIND.transfer_in: {
        const a = marketValue(ctx.series, d, s, t);
        const price = priceAt();
        acquire(i, 'transfer_in', s, a, price);
        flow(t, -a, price);
        break;
      }
      case KIND.transfer_out: {
        const a = marketValue(ctx.series, d, s, t);
        const price = priceAt();
        dispose(i, s, a, price);
        flow(t, a, price);
        break;
      }
      // withdraw_pending and withdraw_refunded: the shares stay in their lots
    }
    return true;
  }

  return { state: st, step };
}

/** The audit state after every row of `rows` (one wallet, one vault, in position order). */
export function auditReplay(rows: readonly EventRow[] | RowSlice, ctx: PositionContext): AuditState {
  const { table, idx, from, to } = Array.isArray(rows) ? sliceOf(rows) : (rows as RowSlice);
  const a = createAuditor(ctx, table);
  for (let k = from; k < to; k++) a.step(idx[k]!);
  return a.state;
}

/** Σ cost of the open lots (FIFO cost_basis), native and micro-USD (null when any lot is unpriced). */
export function fifoOpenCost(st: AuditState): { native: bigint; usd: bigint | null } {
  let native = 0n;
  let usd: bigint | null = 0n;
  for (let k = st.head; k < st.lots.length; k++) {
    const lot = st.lots[k]!;
    native += lot.costOpen;
    usd = usd === null || lot.costOpenUsd === null ? null : usd + lot.costOpenUsd;
  }
  return { native, usd };
}
