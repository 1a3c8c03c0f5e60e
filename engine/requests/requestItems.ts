// A wallet's async requests as the API's request items (DESIGN §11.8): each `*_pending` row opens
// a request; the row of the same request hash that settles it (`deposit`/`withdraw`) or refunds it
// (`*_refunded`) resolves it. What is unresolved is `pending` until its deadline and `expired`
// (refundable) after it; a request without a deadline never expires.
import { formatUnits, isoSeconds, SHARE_DECIMALS } from '../../model/format/numbers.js';
import { type EventTable, KIND, NONE, requestHash, txHash, vaultIdOf } from '../../model/events.js';
import { requestTermsKey, type RequestTerms } from '../../model/world.js';

export const REQUEST_STATUSES = ['pending', 'settled', 'refunded', 'expired'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

export interface RequestPoint {
  /** RFC 3339 */
  timestamp: string;
  block_number: number;
  tx_hash: string;
}

export interface RequestItem {
  request_hash: string;
  vault_id: string;
  type: 'deposit' | 'redeem';
  status: RequestStatus;
  requested: RequestPoint;
  resolved: RequestPoint | null;
  /** decimal string: the assets of a deposit (numeraire), the shares of a redeem (18 decimals) */
  amount: string;
  /** RFC 3339, or null */
  deadline: string | null;
  /** decimal string in the request's token (numeraire decimals), or null */
  solver_tip: string | null;
  /** seconds from the request to its resolution, or to `now` while unresolved */
  age_seconds: number;
  refundable: boolean;
}

/**
 * The status of a request resolved by `resolution` (null: not yet) with `deadline` (Unix seconds
 * or null) at `now`: unresolved requests are expired once `now` is past the deadline.
 */
export function requestStatus(resolution: 'settled' | 'refunded' | null, deadline: number | null, now: number): RequestStatus {
  if (resolution !== null) return resolution;
  return deadline !== null && now > deadline ? 'expired' : 'pending';
}

/** One request of a wallet: the event rows that opened and (or -1) resolved it. */
export interface RequestRows {
  opened: number;
  resolved: number;
}

/**
 * The wallet's requests in `rows` (its event rows in world order), in the order they were made.
 * A resolving row met before any opening row of its hash (a request from before the data) is skipped.
 */
export function walletRequestRows(t: EventTable, rows: ArrayLike<number>, from: number, to: number): RequestRows[] {
  const out: RequestRows[] = [];
  const open = new Map<number, number>();
  for (let k = from; k < to; k++) {
    const i = rows[k]!;
    const r = t.request[i]!;
    if (r === NONE) continue;
    const kind = t.kind[i]!;
    if (kind === KIND.deposit_pending || kind === KIND.withdraw_pending) {
      open.set(r, out.length);
      out.push({ opened: i, resolved: -1 });
    } else if (kind === KIND.deposit || kind === KIND.withdraw || kind === KIND.deposit_refunded || kind === KIND.withdraw_refunded) {
      const at = open.get(r);
      if (at === undefined) continue;
      open.delete(r);
      out[at]!.resolved = i;
    }
  }
  return out;
}

const point = (t: EventTable, i: number): RequestPoint => ({ timestamp: isoSeconds(t.ts[i]!), block_number: t.block_number[i]!, tx_hash: txHash(t, i) });

/** The request item of `req` at `now` (Unix seconds); `decimals` are the vault numeraire's. */
export function requestItemOf(
  t: EventTable,
  req: RequestRows,
  decimals: number,
  terms: ReadonlyMap<string, RequestTerms> | undefined,
  now: number,
): RequestItem {
  const i = req.opened;
  const vaultId = vaultIdOf(t, i);
  const hash = requestHash(t, i)!;
  const deposit = t.kind[i] === KIND.deposit_pending;
  const j = req.resolved;
  const rk = j < 0 ? null : t.kind[j];
  const resolution = rk === null ? null : rk === KIND.deposit_refunded || rk === KIND.withdraw_refunded ? 'refunded' : 'settled';
  const term = terms?.get(requestTermsKey(vaultId, hash));
  const deadline = term?.deadline ?? null;
  const status = requestStatus(resolution, deadline, now);
  return {
    request_hash: hash,
    vault_id: vaultId,
    type: deposit ? 'deposit' : 'redeem',
    status,
    requested: point(t, i),
    resolved: j < 0 ? null : point(t, j),
    amount: deposit ? formatUnits(t.assets.get(i), decimals) : formatUnits(t.shares.get(i), SHARE_DECIMALS),
    deadline: deadline === null ? null : isoSeconds(deadline),
    solver_tip: term?.solver_tip == null ? null : formatUnits(term.solver_tip, decimals),
    age_seconds: Math.max(0, (j < 0 ? now : t.ts[j]!) - t.ts[i]!),
    refundable: status === 'expired',
  };
}
