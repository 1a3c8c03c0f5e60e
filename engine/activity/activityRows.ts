// Raw event rows as the API's activity rows (DESIGN §4.6): deposit-ledger signs, every
// assets_delta in the numeraire, transfers at the same market value the cost-basis replay books.
import { formatUnits, SHARE_DECIMALS } from '../../model/format/numbers.js';
import type { EventKind, EventRow } from '../../model/rows.js';
import { isForeignToken, marketValue } from '../positions/marketValue.js';
import { rowId, type PositionContext } from '../positions/replayPosition.js';

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
 * Signed deltas of one row (DESIGN §4.6): the deposit ledger's signs; zero where nothing moves at
 * that event. A row in a token other than the numeraire is valued at units × unit_price(t)
 * (DESIGN §4.4); a foreign-token deposit request has no units yet, so its value is 0.
 */
export function activityDeltas(row: EventRow, ctx: ActivityContext): ActivityDeltas {
  const s = row.shares;
  const d = ctx.numeraire.decimals;
  const foreign = isForeignToken(row.token, ctx.numeraire.address);
  const assets = (units: bigint) => (foreign ? marketValue(ctx.series, d, units, row.ts) : row.assets);
  const sync = row.request_hash === null;
  switch (row.kind) {
    case 'deposit':
      // the async terminal row carries the shares; its assets moved at request time
      return sync ? { shares: s, assets: assets(s) } : { shares: s, assets: 0n };
    case 'deposit_pending':
      return { shares: 0n, assets: foreign ? 0n : row.assets };
    case 'deposit_refunded':
      return { shares: 0n, assets: foreign ? 0n : -row.assets };
    case 'withdraw':
      // sync: shares burn now; async: they left at the request (withdraw_pending)
      return { shares: sync ? -s : 0n, assets: -assets(s) };
    case 'withdraw_pending':
      return { shares: -s, assets: 0n };
    case 'withdraw_refunded':
      return { shares: s, assets: 0n };
    case 'transfer_in':
      return { shares: s, assets: marketValue(ctx.series, d, s, row.ts) };
    case 'transfer_out':
      return { shares: -s, assets: -marketValue(ctx.series, d, s, row.ts) };
    default:
      return { shares: 0n, assets: 0n };
  }
}

export function toActivityRow(row: EventRow, ctx: ActivityContext): ActivityRow {
  const { shares, assets } = activityDeltas(row, ctx);
  const transfer = row.kind === 'transfer_in' || row.kind === 'transfer_out';
  const n = ctx.numeraire;
  return {
    id: rowId(row),
    type: row.kind,
    vault_id: row.vault_id,
    block_timestamp: row.ts,
    block_number: row.block_number,
    block_hash: row.block_hash,
    tx_hash: row.tx_hash,
    log_index: row.log_index,
    request_hash: transfer ? null : row.request_hash,
    shares_delta: formatUnits(shares, SHARE_DECIMALS),
    assets_delta: { native: formatUnits(assets, n.decimals), token: { address: n.address, decimals: n.decimals, symbol: n.symbol } },
  };
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
