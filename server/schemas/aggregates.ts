// Aggregates (seed "TVL", "Strategy card", "Featured vault card"; DESIGN §4.5): USD sums of
// published parts, null when no part is priced; APY maxima null when every vault's is null.
import * as v from 'valibot';
import { DateTime, UsdAmount, VaultId } from './primitives.js';
import { Apy } from './vaults.js';

export const TvlRow = v.strictObject({ id: v.string(), label: v.string(), tvl: UsdAmount, updated_at: v.nullable(DateTime) });

export const TvlBreakdownRow = v.strictObject({
  id: v.string(),
  label: v.string(),
  source_id: v.string(),
  tvl: UsdAmount,
  updated_at: v.nullable(DateTime),
});

/** `totals` always; `breakdown` only when asked for (include_breakdown, DESIGN §4.8). */
export const Tvl = v.strictObject({
  tvl: UsdAmount,
  updated_at: DateTime,
  totals: v.array(TvlRow),
  breakdown: v.optional(v.array(TvlBreakdownRow)),
});

/** Strategy card (seed, DESIGN §4.5): unpriced vaults count in vault_count and the APY maxima. */
export const StrategyCard = v.strictObject({
  id: v.string(),
  name: v.string(),
  tvl: UsdAmount,
  vault_count: v.pipe(v.number(), v.integer(), v.minValue(0)),
  apy_7d_max: Apy,
  apy_30d_max: Apy,
  apy_90d_max: Apy,
  description: v.nullable(v.string()),
  short_description: v.nullable(v.string()),
  updated_at: v.nullable(DateTime),
});

/** Featured card (seed, DESIGN §4.5): `chains` and `vault_ids` in the same TVL order. */
export const FeaturedCard = v.strictObject({
  name: v.string(),
  slug: v.string(),
  /** the logical vault's stable id: the group's `id`, as `group.id` on each deployment (DESIGN §4.5) */
  vault_id: v.pipe(v.string(), v.minLength(1)),
  chains: v.array(v.string()),
  vault_ids: v.array(VaultId),
  tvl: UsdAmount,
  apy_7d_max: Apy,
  apy_30d_max: Apy,
  apy_90d_max: Apy,
  description: v.nullable(v.string()),
  short_description: v.nullable(v.string()),
  supply_token: v.nullable(v.string()),
  updated_at: v.nullable(DateTime),
});
