// Strategy cards and featured-vault cards (DESIGN §4.5, seed "Strategy card" and
// "Featured vault card"): aggregates over visible deployments, in curated order.
import { compareDecimal, isoSeconds } from '../../model/format/numbers.js';
import type { VaultMetrics } from '../metrics/vaultPoint.js';
import type { Registry, VaultRow } from '../../model/rows.js';
import { maxOrNull, sumUsd } from './sumUsd.js';

export interface ApyMaxima {
  apy_7d_max: number | null;
  apy_30d_max: number | null;
  apy_90d_max: number | null;
}

export interface StrategyCard extends ApyMaxima {
  id: string;
  name: string;
  tvl: { usd: string | null };
  vault_count: number;
  description: string | null;
  short_description: string | null;
  updated_at: string | null;
}

export interface FeaturedCard extends ApyMaxima {
  name: string;
  slug: string;
  vault_id: string;
  chains: string[];
  vault_ids: string[];
  tvl: { usd: string | null };
  description: string | null;
  short_description: string | null;
  supply_token: string | null;
  updated_at: string | null;
}

function maxima(ms: VaultMetrics[]): ApyMaxima {
  return {
    apy_7d_max: maxOrNull(ms.map((m) => m.apy_7d)),
    apy_30d_max: maxOrNull(ms.map((m) => m.apy_30d)),
    apy_90d_max: maxOrNull(ms.map((m) => m.apy_90d)),
  };
}

function latest(ms: VaultMetrics[]): string | null {
  const t = Math.max(0, ...ms.map((m) => m.as_of ?? 0));
  return t > 0 ? isoSeconds(t) : null;
}

export function strategyCards(registry: Registry, metrics: Map<string, VaultMetrics>): StrategyCard[] {
  return [...registry.strategies]
    .sort((a, b) => a.display_rank - b.display_rank || (a.id < b.id ? -1 : 1))
    .map((s) => {
      const ms = registry.vaults
        .filter((v) => v.visibility === 'visible' && v.strategy_id === s.id)
        .map((v) => metrics.get(v.vault_id)!)
        .filter(Boolean);
      return {
        id: s.id,
        name: s.name,
        tvl: { usd: sumUsd(ms.map((m) => m.tvl.usd)) },
        vault_count: ms.length,
        ...maxima(ms),
        description: s.description,
        short_description: s.short_description,
        updated_at: latest(ms),
      };
    });
}

/** TVL order of DESIGN §4.5: tvl.usd descending, unpriced last, ties by vault_id. */
export function byTvlDesc(metrics: Map<string, VaultMetrics>) {
  return (a: VaultRow, b: VaultRow): number => {
    const x = metrics.get(a.vault_id)?.tvl.usd ?? null;
    const y = metrics.get(b.vault_id)?.tvl.usd ?? null;
    if (x !== null && y !== null) {
      const c = compareDecimal(y, x);
      if (c !== 0) return c;
    } else if (x !== y) return x === null ? 1 : -1;
    return a.vault_id < b.vault_id ? -1 : a.vault_id > b.vault_id ? 1 : 0;
  };
}

export function featuredCards(registry: Registry, metrics: Map<string, VaultMetrics>): FeaturedCard[] {
  const chainSlug = new Map(registry.chains.map((c) => [c.chain_id, c.slug]));
  const cards: FeaturedCard[] = [];
  const featured = registry.groups.filter((g) => g.featured_rank !== null).sort((a, b) => a.featured_rank! - b.featured_rank! || (a.id < b.id ? -1 : 1));
  for (const g of featured) {
    const deployments = registry.vaults.filter((v) => v.group_id === g.id && v.visibility === 'visible').sort(byTvlDesc(metrics));
    if (deployments.length === 0) continue;
    const ms = deployments.map((v) => metrics.get(v.vault_id)!).filter(Boolean);
    cards.push({
      name: g.name,
      slug: g.slug,
      // the logical vault's stable id: the group's id, as on each deployment's `group.id` (DESIGN §4.5)
      vault_id: g.id,
      chains: deployments.map((v) => chainSlug.get(v.chain_id) ?? String(v.chain_id)),
      vault_ids: deployments.map((v) => v.vault_id),
      tvl: { usd: sumUsd(ms.map((m) => m.tvl.usd)) },
      ...maxima(ms),
      description: g.description,
      short_description: g.short_description,
      supply_token: deployments[0]!.numeraire_symbol,
      updated_at: latest(ms),
    });
  }
  return cards;
}
