// Builds the immutable published snapshot from the computed world (DESIGN §1 "publish"):
// API objects for every vault, card and aggregate, plus pre-serialized pages of the fixed
// routes. The server swaps its pointer to a new snapshot atomically.
import { aggregateTvl, type PartialError, type TvlData } from '../aggregates/tvl.js';
import { featuredCards, strategyCards, type FeaturedCard, type StrategyCard } from '../aggregates/cards.js';
import { isoSeconds } from '../../model/format/numbers.js';
import { indexRegistry, vaultDefinition, vaultDetail, type VaultDetail } from '../metrics/vaultDetail.js';
import { currentMetrics, type VaultMetrics } from '../metrics/vaultPoint.js';
import { priceKey, type World } from '../../model/world.js';
import { buildPage, PageMap } from './page.js';
import type { WalletIndex } from './walletIndex.js';

export const VAULT_LIST_LIMIT = 1000;

export interface LatestPrice {
  address: string;
  chain_id: number;
  currency: 'usd';
  price: { decimals: number; usd: number };
  symbol: string;
  timestamp: string;
}

export interface Snapshot {
  generation: number;
  /** publish time, RFC 3339 */
  refreshed_at: string;
  refreshed_at_s: number;
  /** a view of the past (DESIGN §11.6): its instant, RFC 3339, echoed as meta.as_of; null for the latest data */
  as_of: string | null;
  world: World;
  metrics: Map<string, VaultMetrics>;
  /** enabled (visible and hidden) deployments */
  details: Map<string, VaultDetail>;
  /** most-recent-first by listed_at, ties by vault_id (DESIGN §5.2) */
  vaultList: { visible: VaultDetail[]; withHidden: VaultDetail[] };
  /** enabled deployments per group slug */
  slugs: Map<string, VaultDetail[]>;
  definitions: Map<string, Record<string, unknown>>;
  allocations: Map<string, { vault_id: string; as_of: string; allocations: unknown[] }>;
  strategies: StrategyCard[];
  featured: FeaturedCard[];
  tvl: { data: TvlData; partial_errors: PartialError[] };
  /** latest price per `${chain_id}:${address}` */
  latestPrices: Map<string, LatestPrice>;
  /** the serialized latest price per `${chain_id}:${address}` (/v1/prices) */
  priceBodies: Map<string, Buffer>;
  wallets: WalletIndex;
  /** pre-serialized bodies of the fixed routes, keyed by path and canonical query (each made on first use) */
  pages: PageMap;
}

export function buildSnapshot(world: World, opts: { generation: number; now: number; asOf?: string }): Snapshot {
  const refreshedAt = isoSeconds(opts.now);
  const idx = indexRegistry(world.registry);
  const metrics = new Map<string, VaultMetrics>();
  const details = new Map<string, VaultDetail>();
  for (const v of world.registry.vaults) {
    const m = currentMetrics(world.series.get(v.vault_id), world.prices.get(priceKey(v.chain_id, v.numeraire_address)));
    metrics.set(v.vault_id, m);
    if (v.visibility !== 'disabled') details.set(v.vault_id, vaultDetail(v, m, idx));
  }
  const listed = world.registry.vaults
    .filter((v) => v.visibility !== 'disabled')
    .sort((a, b) => b.listed_at - a.listed_at || (a.vault_id < b.vault_id ? -1 : a.vault_id > b.vault_id ? 1 : 0));
  const vaultList = {
    visible: listed.filter((v) => v.visibility === 'visible').map((v) => details.get(v.vault_id)!),
    withHidden: listed.map((v) => details.get(v.vault_id)!),
  };
  const slugs = new Map<string, VaultDetail[]>();
  for (const g of world.registry.groups) {
    const deployments = listed.filter((v) => v.group_id === g.id).map((v) => details.get(v.vault_id)!);
    if (deployments.length > 0) slugs.set(g.slug, deployments);
  }
  const definitions = new Map<string, Record<string, unknown>>();
  const allocations: Snapshot['allocations'] = new Map();
  for (const v of listed) {
    definitions.set(v.vault_id, vaultDefinition(v));
    const a = world.allocations.get(v.vault_id);
    const asOf = a?.as_of ?? metrics.get(v.vault_id)?.as_of ?? opts.now;
    allocations.set(v.vault_id, { vault_id: v.vault_id, as_of: isoSeconds(asOf), allocations: a?.items ?? [] });
  }
  const latestPrices = new Map<string, LatestPrice>();
  for (const t of world.registry.tokens) {
    const p = world.prices.get(priceKey(t.chain_id, t.address));
    if (!p || p.ts.length === 0) continue;
    const last = p.ts.length - 1;
    latestPrices.set(priceKey(t.chain_id, t.address), {
      address: t.address,
      chain_id: t.chain_id,
      currency: 'usd',
      price: { decimals: t.decimals, usd: p.usd_f[last]! },
      symbol: t.symbol,
      timestamp: isoSeconds(p.ts[last]!),
    });
  }
  const snapshot: Snapshot = {
    generation: opts.generation,
    refreshed_at: refreshedAt,
    as_of: opts.asOf ?? null,
    refreshed_at_s: opts.now,
    world,
    metrics,
    details,
    vaultList,
    slugs,
    definitions,
    allocations,
    strategies: strategyCards(world.registry, metrics),
    featured: featuredCards(world.registry, metrics),
    tvl: aggregateTvl(world.registry, metrics, world.tvlSources, opts.now, world.priceProviderErrors),
    latestPrices,
    priceBodies: new Map([...latestPrices].map(([key, price]) => [key, priceBody(price)])),
    wallets: world.walletIndex,
    pages: new PageMap(),
  };
  buildFixedPages(snapshot);
  return snapshot;
}

const list = (items: unknown[], limit: number | null, partial: PartialError[] = []) => ({
  count: items.length,
  limit,
  next_cursor: null,
  partial_errors: partial.length > 0 ? partial : null,
});

/** Pages of every route whose body depends only on the snapshot (serialized when first asked for). */
function buildFixedPages(s: Snapshot): void {
  const put = (key: string, data: unknown, meta: Parameters<typeof buildPage>[1]) => s.pages.define(key, () => buildPage(data, meta, s.refreshed_at, s.as_of));
  // Lists that fit one default page; longer ones are paged on demand with signed cursors.
  for (const [key, items] of [
    ['/v1/vaults', s.vaultList.visible],
    ['/v1/vaults?include_hidden=true', s.vaultList.withHidden],
  ] as const) {
    if (items.length <= VAULT_LIST_LIMIT) put(key, items, list(items, VAULT_LIST_LIMIT));
  }
  put('/v1/vaults/featured', s.featured, list(s.featured, null));
  put('/v1/strategies', s.strategies, list(s.strategies, null));
  for (const [slug, items] of s.slugs) put(`/v1/vaults/slug/${slug}`, items, list(items, null));
  for (const [id, d] of s.details) {
    put(`/v1/vaults/${id}`, d, null);
    put(`/v1/vaults/${id}/definition`, s.definitions.get(id), null);
    put(`/v1/vaults/${id}/allocations`, s.allocations.get(id), null);
  }
  const { breakdown, ...withoutBreakdown } = s.tvl.data;
  const tvlMeta = { partial_errors: s.tvl.partial_errors.length > 0 ? s.tvl.partial_errors : null };
  put('/v1/tvl', withoutBreakdown, tvlMeta);
  put('/v1/tvl?include_breakdown=true', { ...withoutBreakdown, breakdown }, tvlMeta);
}

/** The body of /v1/prices: the price object itself, flat, with no envelope (DESIGN §5.2). */
export function priceBody(price: LatestPrice): Buffer {
  return Buffer.from(JSON.stringify(price));
}
