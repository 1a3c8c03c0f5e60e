// Raw event rows as the API's activity rows (DESIGN §4.6): deposit-ledger signs, every
// assets_delta in the numeraire, transfers at the same market value the cost-basis replay books.
import { formatUnits, SHARE_DECIMALS } from '../../model/format/numbers.js';
import type { EventKind, EventRow } from '../../model/rows.js';
import { marketValue } from '../positions/marketValue.js';
import { foreignTokens, type PositionContext } from '../positions/replayPosition.js';
import { blockHash, eventRowId, eventTableOf, KIND, kindOf, NONE, requestHash, txHash, vaultIdOf, type EventTable } from '../../model/events.js';

export interface TokenRef {
  address: string;
  decimals: number | null;
  symbol: string | null;
}

export interface ActivityRow {
  /** stable and immutable: `${chain_id}:${block_number}:${log_index}:${sub_index}` */
  id: string;
  type: EventKind;
  vault_id: string;
  /** Unix seconds */
  block_timestamp: number;
  block_number: number;
  block_hash: string;
  tx_hash: string;
  log_index: number;
  /** null on sync rows and transfers */
  request_hash: string | null;
  /** signed, 18 decimals */
  shares_delta: string;
  assets_delta: { native: string; token: TokenRef | null };
}

/** What converting a row reads: the vault's unit-price series (transfers) and its numeraire. */
export type ActivityContext = Pick<PositionContext, 'series' | 'numeraire'>;

export interface ActivityDeltas {
  /** 18-decimal share base units, signed */
  shares: bigint;
  /** numeraire base units, signed */
  assets: bigint;
}

/**
 * Signed deltas of row i of `t` (DESIGN §4.6): the deposit ledger's signs; zero where nothing
 * moves at that event. A row in a token other than the numeraire is valued at units ×
 * unit_price(t) (DESIGN §4.4); a foreign-token deposit request has no units yet, so its value is 0.
 */
export function rowDeltas(t: EventTable, i: number, ctx: ActivityContext, foreign = foreignTokens(t, ctx)(t.token[i]!)): ActivityDeltas {
  const s = t.shares.get(i);
  const d = ctx.numeraire.decimals;
  const ts = t.ts[i]!;
  const assets = (units: bigint) => (foreign ? marketValue(ctx.series, d, units, ts) : t.assets.get(i));
  const sync = t.request[i] === NONE;
  switch (t.kind[i]) {
    case KIND.deposit:
      // the async terminal row carries the shares; its assets moved at request time
      return sync ? { shares: s, assets: assets(s) } : { shares: s, assets: 0n };
    case KIND.deposit_pending:
      return { shares: 0n, assets: foreign ? 0n : t.assets.get(i) };
    case KIND.deposit_refunded:
      return { shares: 0n, assets: foreign ? 0n : -t.assets.get(i) };
    case KIND.withdraw:
      // sync: shares burn now; async: they left at the request (withdraw_pending)
      return { shares: sync ? -s : 0n, assets: -assets(s) };
    case KIND.withdraw_pending:
      return { shares: -s, assets: 0n };
    case KIND.withdraw_refunded:
      return { shares: s, assets: 0n };
    case KIND.transfer_in:
      return { shares: s, assets: marketValue(ctx.series, d, s, ts) };
    case KIND.transfer_out:
      return { shares: -s, assets: -marketValue(ctx.series, d, s, ts) };
    default:
      return { shares: 0n, assets: 0n };
  }
}

/** rowDeltas of one row given as an object (tests, single rows). */
export function activityDeltas(row: EventRow, ctx: ActivityContext): ActivityDeltas {
  return rowDeltas(eventTableOf([row]), 0, ctx);
}

/** Row i of `t` as the API's activity row. */
export function activityRowAt(t: EventTable, i: number, ctx: ActivityContext): ActivityRow {
  const { shares, assets } = rowDeltas(t, i, ctx);
  const kind = t.kind[i]!;
  const transfer = kind === KIND.transfer_in || kind === KIND.transfer_out;
  const n = ctx.numeraire;
  return {
    id: eventRowId(t, i),
    type: kindOf(t, i),
    vault_id: vaultIdOf(t, i),
    block_timestamp: t.ts[i]!,
    block_number: t.block_number[i]!,
    block_hash: blockHash(t, i),
    tx_hash: txHash(t, i),
    log_index: t.log_index[i]!,
    request_hash: transfer ? null : requestHash(t, i),
    shares_delta: formatUnits(shares, SHARE_DECIMALS),
    assets_delta: { native: formatUnits(assets, n.decimals), token: { address: n.address, decimals: n.decimals, symbol: n.symbol } },
  };
}

/** activityRowAt of one row given as an object (tests, single rows). */
export function toActivityRow(row: EventRow, ctx: ActivityContext): ActivityRow {
  return activityRowAt(eventTableOf([row]), 0, ctx);
}

/** Wallet-wide order (DESIGN §4.6): (block_timestamp, chain_id, block_number, log_index, sub_index). */
export function compareActivity(a: EventRow, b: EventRow): number {
  return a.ts - b.ts || a.chain_id - b.chain_id || a.block_number - b.block_number || a.log_index - b.log_index || a.sub_index - b.sub_index;
}

/**
 * The same order as a string key that sorts lexicographically (cursor payloads): fixed-width
 * decimal fields. Timestamps and block numbers are below 10^15, chain ids below 10^12.
 */
export function activityOrderKey(row: EventRow): string {
  return `${pad(row.ts, 15)}:${pad(row.chain_id, 12)}:${pad(row.block_number, 15)}:${pad(row.log_index, 9)}:${pad(row.sub_index, 3)}`;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}
