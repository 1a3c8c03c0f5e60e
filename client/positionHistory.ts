// A wallet's share balance and pending amounts in each vault over time, replayed from its
// activity rows alone (DESIGN §4.4 state S, Pd, Pr; the row signs of §4.6). Pure: feed it every
// row of the wallet (`client.iterate.activity(wallet, { includeHidden: true })`) in any order.
import { compareActivity, type FlowRow } from './activityOrder.js';
import { add, cmp, dec, format, neg, sign, sub, ZERO, type Dec } from './decimal.js';

export interface PositionState {
  /** S: shares held (18 decimals) */
  shares: string;
  /** Pd: assets of open deposit requests, in the numeraire */
  pending_deposit_assets: string;
  /** Pr: shares escrowed by open redeem requests */
  pending_redeem_shares: string;
  /** request hashes still open, deposits and redeems */
  open_requests: { deposits: string[]; redeems: string[] };
}

export interface PositionHistoryPoint extends PositionState {
  /** the row after which the state holds */
  row_id: string | undefined;
  type: string;
  /** Unix seconds */
  block_timestamp: number;
}

export type SkipReason = 'non_positive_amount' | 'insufficient_shares' | 'missing_request_hash' | 'duplicate_request' | 'no_matching_request' | 'unknown_type';

export interface PositionHistory<R extends FlowRow = FlowRow> {
  vault_id: string;
  token: R['assets_delta']['token'];
  /** one point per applied row, oldest first */
  points: PositionHistoryPoint[];
  /** the state after the last row */
  current: PositionState & {
    /** the server lists the position (S > 0, Pd > 0, Pr > 0 or an open deposit request) */
    open: boolean;
  };
  /** rows the server's replay would skip too (corrupt lifecycles), with why */
  skipped: { row: R; reason: SkipReason }[];
}

interface State {
  s: Dec;
  pd: Dec;
  pr: Dec;
  deposits: Map<string, Dec>;
  redeems: Map<string, Dec>;
}

/**
 * One history per vault, in the order of each vault's first row. The rules mirror the server's
 * replay: a settled deposit releases its request's assets from Pd and adds the row's shares; a
 * redeem request moves shares from S to Pr, its settlement releases them, a refund returns them.
 */
export function positionHistory<R extends FlowRow>(rows: readonly R[]): PositionHistory<R>[] {
  const byVault = new Map<string, R[]>();
  for (const row of rows) {
    let list = byVault.get(row.vault_id);
    if (!list) byVault.set(row.vault_id, (list = []));
    list.push(row);
  }
  const out: PositionHistory<R>[] = [];
  for (const [vault_id, list] of byVault) {
    const sorted = [...list].sort(compareActivity);
    const st: State = { s: ZERO, pd: ZERO, pr: ZERO, deposits: new Map(), redeems: new Map() };
    const history: PositionHistory<R> = { vault_id, token: sorted[0]!.assets_delta.token, points: [], current: { ...snapshot(st), open: false }, skipped: [] };
    for (const row of sorted) {
      const reason = apply(st, row);
      if (reason !== null) {
        history.skipped.push({ row, reason });
        continue;
      }
      history.points.push({ row_id: row.id, type: row.type, block_timestamp: row.block_timestamp, ...snapshot(st) });
    }
    history.current = { ...snapshot(st), open: sign(st.s) > 0 || sign(st.pd) > 0 || sign(st.pr) > 0 || st.deposits.size > 0 };
    out.push(history);
  }
  return out;
}

function snapshot(st: State): PositionState {
  return {
    shares: format(st.s),
    pending_deposit_assets: format(st.pd),
    pending_redeem_shares: format(st.pr),
    open_requests: { deposits: [...st.deposits.keys()], redeems: [...st.redeems.keys()] },
  };
}

function apply(st: State, row: FlowRow): SkipReason | null {
  const shares = dec(row.shares_delta);
  const assets = dec(row.assets_delta.native);
  const hash = row.request_hash;
  switch (row.type) {
    case 'deposit': {
      if (sign(shares) <= 0) return 'non_positive_amount';
      if (hash !== null) {
        // async settlement: Pd −= the request's assets; S += s
        const req = st.deposits.get(hash);
        if (req === undefined) return 'no_matching_request';
        st.deposits.delete(hash);
        st.pd = sub(st.pd, req);
      }
      st.s = add(st.s, shares);
      return null;
    }
    case 'deposit_pending': {
      if (hash === null) return 'missing_request_hash';
      // a request in a token other than the numeraire shows 0: it is open with no Pd (DESIGN §4.4)
      if (sign(assets) < 0) return 'non_positive_amount';
      if (st.deposits.has(hash)) return 'duplicate_request';
      st.deposits.set(hash, assets);
      st.pd = add(st.pd, assets);
      return null;
    }
    case 'deposit_refunded': {
      if (hash === null) return 'missing_request_hash';
      const req = st.deposits.get(hash);
      if (req === undefined) return 'no_matching_request';
      st.deposits.delete(hash);
      st.pd = sub(st.pd, req);
      return null;
    }
    case 'withdraw': {
      if (hash !== null) {
        // async settlement: the escrowed shares leave Pr
        const escrowed = st.redeems.get(hash);
        if (escrowed === undefined) return 'no_matching_request';
        st.redeems.delete(hash);
        st.pr = sub(st.pr, escrowed);
        return null;
      }
      const s = neg(shares);
      if (sign(s) <= 0) return 'non_positive_amount';
      if (cmp(s, st.s) > 0) return 'insufficient_shares';
      st.s = sub(st.s, s);
      return null;
    }
    case 'withdraw_pending': {
      if (hash === null) return 'missing_request_hash';
      const s = neg(shares);
      if (sign(s) <= 0) return 'non_positive_amount';
      if (cmp(s, st.s) > 0) return 'insufficient_shares';
      if (st.redeems.has(hash)) return 'duplicate_request';
      st.redeems.set(hash, s);
      st.s = sub(st.s, s);
      st.pr = add(st.pr, s);
      return null;
    }
    case 'withdraw_refunded': {
      if (hash === null) return 'missing_request_hash';
      const escrowed = st.redeems.get(hash);
      if (escrowed === undefined) return 'no_matching_request';
      st.redeems.delete(hash);
      st.pr = sub(st.pr, escrowed);
      st.s = add(st.s, escrowed);
      return null;
    }
    case 'transfer_in': {
      if (sign(shares) <= 0) return 'non_positive_amount';
      st.s = add(st.s, shares);
      return null;
    }
    case 'transfer_out': {
      const s = neg(shares);
      if (sign(s) <= 0) return 'non_positive_amount';
      if (cmp(s, st.s) > 0) return 'insufficient_shares';
      st.s = sub(st.s, s);
      return null;
    }
    default:
      return 'unknown_type';
  }
}
