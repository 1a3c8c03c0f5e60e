// Opt-in audit blocks (DESIGN §11.2–§11.5): APY provenance, data quality, FIFO lots and
// returns. Each appears only when asked for (`include`, `cost_basis_method`, the /apy and /lots
// routes), so every plain response keeps its schema.
import * as v from 'valibot';
import { AmountPair, DateTime, Decimal, Double, NonNegativeInt64, UnsignedDecimal, VaultId, Hash32 } from './primitives.js';

export const ProvenanceSnapshot = v.strictObject({
  timestamp: DateTime,
  /** null where the snapshot's block is not known */
  block_number: v.nullable(NonNegativeInt64),
  unit_price: UnsignedDecimal,
});

/** How one APY window was computed: apy = (end.unit_price / start.unit_price)^(365/days) − 1. */
export const ApyWindowProvenance = v.strictObject({
  window: v.picklist(['7d', '30d', '90d']),
  days: v.picklist([7, 30, 90]),
  apy: v.nullable(Double),
  method: v.literal('compound'),
  start: v.nullable(ProvenanceSnapshot),
  end: ProvenanceSnapshot,
  elapsed_seconds: v.nullable(NonNegativeInt64),
  /** hourly snapshots in (start, end] */
  points: v.nullable(NonNegativeInt64),
  reason: v.nullable(v.picklist(['warming_up', 'non_positive_price'])),
});

export const VaultApy = v.strictObject({ vault_id: VaultId, at: DateTime, windows: v.array(ApyWindowProvenance) });

export const QualityFlag = v.picklist(['carried', 'stale_snapshot', 'unpriced', 'stale_price', 'jump', 'warming_up']);

/** Flags explain a value, never change it (DESIGN §11.3). */
export const PointQuality = v.strictObject({
  flags: v.array(QualityFlag),
  snapshot_age_seconds: NonNegativeInt64,
  price_age_seconds: v.nullable(NonNegativeInt64),
});

export const StaleReason = v.picklist(['fresh', 'chain_lag', 'never_read', 'unpriced']);

const PctPair = v.strictObject({ native: v.nullable(Double), usd: v.nullable(Double) });

/** Time- and money-weighted returns side by side (DESIGN §11.5), percents (5.2 = 5.2 %). */
export const PositionReturns = v.strictObject({
  twr_pct: PctPair,
  twr_annualized_pct: PctPair,
  mwr_annualized_pct: PctPair,
  net_invested: AmountPair,
  period: v.strictObject({ start: v.nullable(DateTime), end: DateTime, days: v.nullable(Double) }),
});

const UsdNullablePair = v.strictObject({ native: Decimal, usd: v.nullable(Decimal) });

/** One FIFO lot (DESIGN §11.4): an acquisition and the disposals that consumed it, oldest first. */
export const Lot = v.strictObject({
  /** the acquiring row's id, `{chain_id}:{block_number}:{log_index}:{sub_index}` */
  lot_id: v.pipe(v.string(), v.regex(/^\d+:\d+:\d+:\d+$/)),
  acquired: v.strictObject({
    type: v.picklist(['deposit', 'transfer_in']),
    timestamp: DateTime,
    block_number: NonNegativeInt64,
    tx_hash: Hash32,
    log_index: v.pipe(v.number(), v.integer(), v.minValue(0)),
  }),
  shares_acquired: UnsignedDecimal,
  shares_open: UnsignedDecimal,
  cost: UsdNullablePair,
  /** what is left of `cost` on the open shares: cost − Σ disposals' cost */
  cost_open: UsdNullablePair,
  /** cost per whole share */
  unit_cost: v.strictObject({ native: UnsignedDecimal, usd: v.nullable(Decimal) }),
  disposals: v.array(
    v.strictObject({
      timestamp: DateTime,
      tx_hash: Hash32,
      shares: UnsignedDecimal,
      proceeds: UsdNullablePair,
      cost: UsdNullablePair,
      realized: UsdNullablePair,
    }),
  ),
});
