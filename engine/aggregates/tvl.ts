// Aggregate TVL (DESIGN §4.5): enabled vaults (visible and hidden, never disabled) as one
// `vaults` total plus one row per external source; the breakdown adds one row per chain.
import { oneLineError } from '../../common/oneLine.js';
import { D, formatUsd, isoSeconds } from '../../model/format/numbers.js';
import type { VaultMetrics } from '../metrics/vaultPoint.js';
import type { TvlSourceState } from '../../model/world.js';
import type { Registry } from '../../model/rows.js';
import { sumUsd } from './sumUsd.js';

export interface TvlRow {
  id: string;
  label: string;
  tvl: { usd: string | null };
  updated_at: string | null;
}
export interface TvlBreakdownRow extends TvlRow {
  source_id: string;
}
export interface PartialError {
  code: string;
  message: string;
  resource_id: string | null;
}
export interface TvlData {
  tvl: { usd: string | null };
  updated_at: string;
  totals: TvlRow[];
  breakdown: TvlBreakdownRow[];
}

export function aggregateTvl(
  registry: Registry,
  metrics: Map<string, VaultMetrics>,
  sources: readonly TvlSourceState[],
  refreshedAt: number,
  providerErrors: readonly { provider: string; error: string }[] = [],
): { data: TvlData; partial_errors: PartialError[] } {
  const enabled = registry.vaults.filter((v) => v.visibility !== 'disabled');
  const asOf = (ids: string[]) => {
    let t = 0;
    for (const id of ids) t = Math.max(t, metrics.get(id)?.as_of ?? 0);
    return t > 0 ? isoSeconds(t) : null;
  };
  const vaultsRow: TvlRow = {
    id: 'vaults',
    label: 'Indexed vaults',
    tvl: { usd: sumUsd(enabled.map((v) => metrics.get(v.vault_id)?.tvl.usd ?? null)) },
    updated_at: asOf(enabled.map((v) => v.vault_id)),
  };
  const partial_errors: PartialError[] = [];
  const sourceRows: TvlRow[] = sources.map((s) => {
    if (s.last_error) {
      partial_errors.push({
        code: 'TVL_SOURCE_FAILED',
        message: `external TVL source "${s.id}" failed (${oneLineError(s.last_error.message)}); serving its last good value`,
        resource_id: s.id,
      });
    }
    return {
      id: s.id,
      label: s.label,
      tvl: { usd: s.last_good ? formatUsd(new D(s.last_good.usd)) : null },
      updated_at: s.last_good ? isoSeconds(s.last_good.ts) : null,
    };
  });
  // a failed price provider leaves some USD values stale or unknown: say so (never a silent null)
  for (const p of providerErrors) {
    partial_errors.push({
      code: 'PRICE_PROVIDER_FAILED',
      message: `price provider "${p.provider}" failed its last round (${p.error}); USD values may be stale or null`,
      resource_id: p.provider,
    });
  }
  const totals = [vaultsRow, ...sourceRows];
  const chains = [...new Set(enabled.map((v) => v.chain_id))].sort((a, b) => a - b);
  const chainNames = new Map(registry.chains.map((c) => [c.chain_id, c.name]));
  const breakdown: TvlBreakdownRow[] = [
    ...chains.map((chainId) => {
      const ids = enabled.filter((v) => v.chain_id === chainId).map((v) => v.vault_id);
      return {
        id: `chain:${chainId}`,
        label: chainNames.get(chainId) ?? `Chain ${chainId}`,
        source_id: 'vaults',
        tvl: { usd: sumUsd(ids.map((id) => metrics.get(id)?.tvl.usd ?? null)) },
        updated_at: asOf(ids),
      };
    }),
    ...sourceRows.map((r) => ({ ...r, source_id: r.id })),
  ];
  // The newest of its parts, as on the cards: a publish-clock value here would break the
  // byte-identical output of one world (DESIGN §7); the clock only when no part has a time.
  const newest = totals.reduce<string | null>((t, r) => (r.updated_at !== null && (t === null || r.updated_at > t) ? r.updated_at : t), null);
  return {
    data: { tvl: { usd: sumUsd(totals.map((t) => t.tvl.usd)) }, updated_at: newest ?? isoSeconds(refreshedAt), totals, breakdown },
    partial_errors,
  };
}
