// Wallet resources (seed "Position", "Position timeseries point", "Activity log"; DESIGN §4.4,
// §4.6, §4.8): replay-derived USD legs and roi_pct are null when any row lacks a USD price.
import * as v from 'valibot';
import { EVENT_KINDS } from '../../model/rows.js';
import { PointQuality, PositionReturns } from './audit.js';
import { Address, AmountPair, DateTime, Decimal, Double, Hash32, NonNegativeInt64, TokenRef, UnsignedDecimal, VaultId } from './primitives.js';

export const Pnl = v.strictObject({ realized: AmountPair, unrealized: AmountPair, total: AmountPair });

/** Time-weighted return in percent (5.2 = 5.2 %); null without history (DESIGN §4.4). */
export const RoiPct = v.strictObject({ native: v.nullable(Double), usd: v.nullable(Double) });

export const PositionMetrics = v.strictObject({
  shares_owned: UnsignedDecimal,
  value: AmountPair,
  cost_basis: AmountPair,
  pending_deposit_assets: AmountPair,
  pending_redeem_shares: UnsignedDecimal,
  pnl: Pnl,
  roi_pct: RoiPct,
  /** with include=quality (DESIGN §11.3) */
  quality: v.optional(PointQuality),
});

/** A wallet in one vault; `numeraire_token` is present, null when unknown (DESIGN §4.8). */
export const Position = v.strictObject({
  vault_id: VaultId,
  wallet_address: Address,
  numeraire_token: v.nullable(TokenRef),
  metrics: PositionMetrics,
  /** with include=returns (DESIGN §11.5) */
  returns: v.optional(PositionReturns),
});

export const PositionTimeseriesPoint = v.strictObject({
  timestamp: DateTime,
  shares_owned: UnsignedDecimal,
  value: AmountPair,
  cost_basis: AmountPair,
  pnl: Pnl,
  roi_pct: RoiPct,
  /** with include=quality (DESIGN §11.3) */
  quality: v.optional(PointQuality),
});

/**
 * One immutable row of the activity log (DESIGN §4.6), in the shape of
 * engine/activity/activityRows.ts: deposit-ledger signs, `block_timestamp` in Unix seconds.
 */
export const ActivityRow = v.strictObject({
  /** stable: `{chain_id}:{block_number}:{log_index}:{sub_index}` */
  id: v.pipe(v.string(), v.regex(/^\d+:\d+:\d+:\d+$/)),
  type: v.picklist(EVENT_KINDS),
  vault_id: VaultId,
  block_timestamp: NonNegativeInt64,
  block_number: NonNegativeInt64,
  block_hash: Hash32,
  tx_hash: Hash32,
  log_index: v.pipe(v.number(), v.integer(), v.minValue(0)),
  request_hash: v.nullable(Hash32),
  shares_delta: Decimal,
  assets_delta: v.strictObject({ native: Decimal, token: v.nullable(TokenRef) }),
});

/** Where an async request was made or resolved (DESIGN §11.8). */
export const RequestPoint = v.strictObject({ timestamp: DateTime, block_number: NonNegativeInt64, tx_hash: Hash32 });

/**
 * One async request of a wallet (DESIGN §11.8), in the shape of engine/requests/requestItems.ts:
 * `expired` = unresolved past its deadline (then `refundable`).
 */
export const RequestItem = v.strictObject({
  request_hash: Hash32,
  vault_id: VaultId,
  type: v.picklist(['deposit', 'redeem']),
  status: v.picklist(['pending', 'settled', 'refunded', 'expired']),
  requested: RequestPoint,
  resolved: v.nullable(RequestPoint),
  /** assets (numeraire) for a deposit, shares for a redeem */
  amount: UnsignedDecimal,
  deadline: v.nullable(DateTime),
  /** in the request's token */
  solver_tip: v.nullable(UnsignedDecimal),
  age_seconds: NonNegativeInt64,
  refundable: v.boolean(),
});
