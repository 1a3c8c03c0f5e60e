// Reads everything the engine keeps resident out of DuckDB once (DESIGN §1, §8): the
// registry, hourly series (chunk copies into typed arrays), prices, events grouped by wallet,
// the latest allocations and the external TVL sources' last readings.
import type { Common } from '../../common/common.js';
import type { AllocationItem, PriceSeries, TvlSourceState, World } from '../../model/world.js';
import { priceKey } from '../../model/world.js';
import { readRegistry } from '../../store/registryStore.js';
import type { Store } from '../../store/store.js';
import { getSetting, PRICE_PROVIDER_ERRORS } from '../../store/settings.js';
import { trimZeros } from '../../model/format/numbers.js';
import { loadVaultSeries } from './loadSeries.js';
import { buildWalletIndex } from '../publish/walletIndex.js';
import { float64Items } from './vectorMemory.js';
import { loadEventTable } from './loadEvents.js';

/** Room for appended events (a few weeks of a busy world's hours) before the table is copied to grow. */
export const EVENT_SPARE_ROWS = 65_536;

export interface LoadWorldOptions {
  /** read events' block and transaction hashes (pages show them; a batch recompute does not need them) */
  eventHashes?: boolean;
  /** allocate the series' APY columns (default true; a serving world computes APY on read) */
  apy?: boolean;
}

export async function loadWorld(common: Common, store: Store, opts: LoadWorldOptions = {}): Promise<World> {
  const t0 = performance.now();
  const registry = await readRegistry(store);
  const vaults = new Map(registry.vaults.map((v) => [v.vault_id, v]));
  const series = await loadVaultSeries(store, registry.vaults, { apy: opts.apy ?? true });
  const prices = await loadPrices(store);
  const events = await loadEventTable(store, null, '', { spare: EVENT_SPARE_ROWS, hashes: opts.eventHashes ?? true });
  const allocations = await loadAllocations(store);
  const tvlSources = await loadTvlSources(store, registry.tvl_sources);
  const priceProviderErrors = await loadPriceProviderErrors(store);
  const chainHeads = await loadChainHeads(store);
  let end = 0;
  for (const s of series.values()) if (s.length > 0) end = Math.max(end, s.ts[s.length - 1]!);
  common.logger.debug(
    { vaults: vaults.size, events: events.length, wallets: events.dict.wallets.size, ms: Math.round(performance.now() - t0) },
    'world loaded',
  );
  return { registry, vaults, series, prices, events, walletIndex: buildWalletIndex(events), positionItems: null, allocations, tvlSources, priceProviderErrors, end, chainHeads };
}

/** Which rows of a token to (re)load: those after `after` (unix s), or all when it is null. */
export interface PriceSlice {
  chain_id: number;
  address: string;
  after: number | null;
}

/**
 * Price series by token: every row, or only the given slices. Each token's hours and prices
 * arrive as two comma-joined strings (one string per token crosses from DuckDB, not one per
 * row: decoding 470 k strings one by one took ~3 s here).
 */
export async function loadPrices(store: Store, slices?: readonly PriceSlice[]): Promise<Map<string, PriceSeries>> {
  if (slices?.length === 0) return new Map();
  const rows = slices
    ? `(SELECT p.* FROM prices p JOIN (SELECT unnest(from_json($1, '[{"chain_id":"DOUBLE","address":"VARCHAR","after":"DOUBLE"}]'), recursive := true)) k
          ON p.chain_id = k.chain_id AND p.address = k.address
       WHERE epoch(p.ts) > coalesce(k.after, -1e15))`
    : 'prices';
  const groups = await store.rows<{ chain_id: number; address: string; n: number; ts: string; usd: string }>(
    slices ? 'load.prices.slices' : 'load.prices',
    `SELECT chain_id::DOUBLE AS chain_id, address, count(*)::DOUBLE AS n,
            string_agg(epoch(ts)::BIGINT::VARCHAR, ',' ORDER BY ts) AS ts, string_agg(usd::VARCHAR, ',' ORDER BY ts) AS usd
       FROM ${rows} GROUP BY chain_id, address ORDER BY chain_id, address`,
    slices ? [JSON.stringify(slices)] : [],
  );
  const out = new Map<string, PriceSeries>();
  for (const g of groups) {
    const ts = Float64Array.from(g.ts.split(','), Number);
    const usd = g.usd.split(',').map(trimZeros);
    if (ts.length !== g.n || usd.length !== g.n) throw new Error(`prices of ${g.chain_id}:${g.address}: read ${usd.length} of ${g.n}`);
    out.set(priceKey(g.chain_id, g.address), { chain_id: g.chain_id, address: g.address, ts, usd, usd_f: Float64Array.from(usd, Number) });
  }
  return out;
}

/** Per token: row count, newest hour and an order-free digest of its rows (refresh compares them). */
export interface PriceDigest {
  n: number;
  last: number;
  digest: string;
}

/**
 * Each token's digest, and with `known` also the digest of its rows up to the known newest
 * hour (`prefix`): equal to the known digest when rows were only appended.
 */
export async function loadPriceDigests(store: Store, known: ReadonlyMap<string, PriceDigest> = new Map()): Promise<Map<string, PriceDigest & { prefix: string | null }>> {
  const keys = [...known].map(([key, d]) => {
    const [chain, address] = key.split(':');
    return { chain_id: Number(chain), address: address!, last: d.last };
  });
  const rows = await store.rows<{ chain_id: number; address: string; n: number; last: number; digest: string; prefix: string | null }>(
    'load.prices.digest',
    `WITH k AS (SELECT unnest(from_json($1, '[{"chain_id":"DOUBLE","address":"VARCHAR","last":"DOUBLE"}]'), recursive := true))
     SELECT p.chain_id::DOUBLE AS chain_id, p.address, count(*)::DOUBLE AS n, epoch(max(p.ts))::DOUBLE AS last,
            bit_xor(hash(p.ts, p.usd))::VARCHAR AS digest,
            (bit_xor(hash(p.ts, p.usd)) FILTER (WHERE epoch(p.ts) <= k.last))::VARCHAR AS prefix
       FROM prices p LEFT JOIN k ON p.chain_id = k.chain_id AND p.address = k.address
      GROUP BY ALL`,
    [JSON.stringify(keys)],
  );
  return new Map(rows.map((r) => [priceKey(r.chain_id, r.address), { n: r.n, last: r.last, digest: r.digest, prefix: r.prefix }]));
}

export async function loadAllocations(store: Store): Promise<World['allocations']> {
  const rows = await store.rows<{ vault_id: string; as_of: number; category: string; target: string; allocation: number; amount: number; amount_usd: number | null }>(
    'load.allocations',
    `SELECT vault_id, epoch(as_of)::DOUBLE AS as_of, category, target::VARCHAR AS target, allocation, amount, amount_usd
       FROM allocations a
      WHERE as_of = (SELECT max(as_of) FROM allocations b WHERE b.vault_id = a.vault_id)
      ORDER BY vault_id, position`,
  );
  const out: World['allocations'] = new Map();
  for (const r of rows) {
    let entry = out.get(r.vault_id);
    if (!entry) out.set(r.vault_id, (entry = { as_of: r.as_of, items: [] as AllocationItem[] }));
    entry.items.push({ category: r.category, target: JSON.parse(r.target), allocation: r.allocation, amount: r.amount, amount_usd: r.amount_usd });
  }
  return out;
}

export async function loadPriceProviderErrors(store: Store): Promise<World['priceProviderErrors']> {
  const raw = await getSetting(store, PRICE_PROVIDER_ERRORS);
  return raw ? (JSON.parse(raw) as World['priceProviderErrors']) : [];
}

export async function loadTvlSources(store: Store, sources: World['registry']['tvl_sources']): Promise<TvlSourceState[]> {
  const good = await store.rows<{ source_id: string; ts: number; usd: string }>(
    'load.tvl_sources.good',
    `SELECT source_id, epoch(ts)::DOUBLE AS ts, usd::VARCHAR AS usd FROM tvl_source_values
      WHERE usd IS NOT NULL QUALIFY row_number() OVER (PARTITION BY source_id ORDER BY ts DESC) = 1`,
  );
  const newest = await store.rows<{ source_id: string; ts: number; error: string | null }>(
    'load.tvl_sources.newest',
    `SELECT source_id, epoch(ts)::DOUBLE AS ts, error FROM tvl_source_values
      QUALIFY row_number() OVER (PARTITION BY source_id ORDER BY ts DESC) = 1`,
  );
  return sources.map((s) => {
    const g = good.find((r) => r.source_id === s.id);
    const n = newest.find((r) => r.source_id === s.id);
    return {
      id: s.id,
      label: s.label,
      last_good: g ? { usd: trimZeros(g.usd), ts: g.ts } : null,
      last_error: n?.error ? { message: n.error, ts: n.ts } : null,
    };
  });
}

/**
 * Per chain: the newest indexed block and time. Chains the indexer follows report its
 * checkpoint and whether it has stalled (ingest_status); others the newest snapshot.
 */
export async function loadChainHeads(store: Store): Promise<World['chainHeads']> {
  const rows = await store.rows<{ chain_id: number; block: number; ts: number }>(
    'load.chain_heads',
    `SELECT v.chain_id::DOUBLE AS chain_id, max(s.block_number)::DOUBLE AS block, epoch(max(s.ts))::DOUBLE AS ts
       FROM vault_snapshots s JOIN vaults v USING (vault_id) GROUP BY v.chain_id`,
  );
  const heads: World['chainHeads'] = new Map(rows.map((r) => [r.chain_id, { block: r.block, ts: r.ts, stalled: false }]));
  const status = await store.rows<{ chain_id: number; block: number | null; ts: number | null; stalled: boolean }>(
    'load.ingest_status',
    `SELECT chain_id::DOUBLE AS chain_id, checkpoint_block::DOUBLE AS block, epoch(checkpoint_ts)::DOUBLE AS ts, status = 'stalled' AS stalled
       FROM ingest_status`,
  );
  for (const r of status) {
    const prev = heads.get(r.chain_id);
    heads.set(r.chain_id, { block: r.block ?? prev?.block ?? null, ts: r.ts ?? prev?.ts ?? null, stalled: r.stalled });
  }
  return heads;
}
