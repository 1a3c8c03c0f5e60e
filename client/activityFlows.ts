// Stitches activity rows into flows (DESIGN §4.6): one flow per async lifecycle (rows paired by
// vault and request_hash) and one per sync row or transfer. Pure; runs over any set of rows,
// e.g. everything `client.iterate.activity` yields. (Moved here from engine/activity, where it
// was written for the client and used only by its own test.)
import { compareActivity, type FlowRow } from './activityOrder.js';
import { add, dec, format, ZERO } from './decimal.js';

export type { FlowRow } from './activityOrder.js';
export type FlowKind = 'deposit' | 'withdraw' | 'transfer_in' | 'transfer_out';
export type FlowStatus = 'settled' | 'pending' | 'refunded';

export interface Flow<R extends FlowRow = FlowRow> {
  /** `${vault_id}:${request_hash}` for an async lifecycle, else the row's id */
  id: string;
  kind: FlowKind;
  status: FlowStatus;
  /** null for sync flows and transfers */
  request_hash: string | null;
  vault_id: string;
  /** the flow's rows, oldest first */
  rows: R[];
  /** the sum of the rows' deltas: what the lifecycle moved in the end */
  net: { shares: string; assets: { native: string; token: R['assets_delta']['token'] } };
}

const ASYNC_KIND: Record<string, 'deposit' | 'withdraw'> = {
  deposit_pending: 'deposit',
  deposit: 'deposit',
  deposit_refunded: 'deposit',
  withdraw_pending: 'withdraw',
  withdraw: 'withdraw',
  withdraw_refunded: 'withdraw',
};

/**
 * Flows of `rows`, in the order their first row appears in the input (so a newest-first page
 * gives newest-first flows). Status follows the request state table: pending until a settling
 * row (`deposit`/`withdraw` with the hash) or a refund (`*_refunded`) arrives; the first terminal
 * row decides. A lifecycle cut by a page boundary is stitched from the rows present.
 * Throws AmountError (INVALID_AMOUNT) on a delta that is not a decimal string.
 */
export function activityFlows<R extends FlowRow>(rows: readonly R[]): Flow<R>[] {
  const flows: Flow<R>[] = [];
  const byRequest = new Map<string, Flow<R>>();
  for (const row of rows) {
    const family = ASYNC_KIND[row.type];
    if (row.request_hash !== null && family !== undefined) {
      const key = `${row.vault_id}:${row.request_hash}`;
      let flow = byRequest.get(key);
      if (flow === undefined) {
        flow = newFlow(key, family, row.request_hash, row);
        byRequest.set(key, flow);
        flows.push(flow);
      }
      flow.rows.push(row);
      continue;
    }
    const kind: FlowKind = row.type === 'transfer_in' || row.type === 'transfer_out' ? row.type : (family ?? 'deposit');
    const flow = newFlow(row.id ?? `${row.vault_id}:${row.block_number}:${row.log_index}:${row.type}`, kind, null, row);
    flow.rows.push(row);
    flows.push(flow);
  }
  for (const flow of flows) finish(flow);
  return flows;
}

function newFlow<R extends FlowRow>(id: string, kind: FlowKind, requestHash: string | null, first: R): Flow<R> {
  return {
    id,
    kind,
    // a lone request or refund row without a hash (corrupt) still shows what it was
    status: requestHash !== null || first.type.endsWith('_pending') ? 'pending' : first.type.endsWith('_refunded') ? 'refunded' : 'settled',
    request_hash: requestHash,
    vault_id: first.vault_id,
    rows: [],
    net: { shares: '0', assets: { native: '0', token: first.assets_delta.token } },
  };
}

function finish<R extends FlowRow>(flow: Flow<R>): void {
  flow.rows.sort(compareActivity);
  let shares = ZERO;
  let assets = ZERO;
  for (const row of flow.rows) {
    shares = add(shares, dec(row.shares_delta));
    assets = add(assets, dec(row.assets_delta.native));
    if (flow.request_hash !== null && flow.status === 'pending') {
      if (row.type === 'deposit' || row.type === 'withdraw') flow.status = 'settled';
      else if (row.type === 'deposit_refunded' || row.type === 'withdraw_refunded') flow.status = 'refunded';
    }
  }
  flow.net.shares = format(shares);
  flow.net.assets.native = format(assets);
}
