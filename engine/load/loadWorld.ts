// Reads everything the engine keeps resident out of DuckDB once (DESIGN §1, §8): the
// registry, hourly series (chunk copies into typed arrays), prices, events grouped by wallet,
// the latest allocations and the external TVL sources' last readings.
import type { Common } from '../../common/common.js';
import type { AllocationItem, PriceSeries, TvlSourceState, World } from '../../model/world.js';
import { priceKey } from '../../model/world.js';
import { readRegistry } from '../../store/registryStore.js';
import type { EventKind, EventRow } from '../../model/rows.js';
import type { Store } from '../../store/store.js';
import { getSetting, PRICE_PROVIDER_ERRORS } from '../../store/settings.js';
import { trimZeros } from '../../model/format/numbers.js';
import { loadVaultSeries } from './loadSeries.js';
import { buildWalletIndex } from '../publish/walletIndex.js';
import { float64Items, hugeintBytes } from './vectorMemory.js';

export async function loadWorld(common: Common, store: Store): Promise<World> {
  const t0 = performance.now();
  const registry = await readRegistry(store);
  const vaults = new Map(registry.vaults.map((v) => [v.vault_id, v]));
  const series = await loadVaultSeries(store, registry.vaults);
  const prices = await loadPrices(store);
  const events = await loadEvents(store);
  const walletRows = groupByWallet(events);
  const allocations = await loadAllocations(store);
  const tvlSources = await loadTvlSources(store, registry.tvl_sources);
  const priceProviderErrors = await loadPriceProviderErrors(store);
  const chainHeads = await loadChainHeads(store);
  let end = 0;
  for (const s of series.values()) if (s.length > 0) end = Math.max(end, s.ts[s.length - 1]!);
  common.logger.debug(
    { vaults: vaults.size, events: events.length, wallets: walletRows.size, ms: Math.round(performance.now() - t0) },
    'world loaded',
  );
  return { registry, vaults, series, prices, events, walletRows, walletIndex: buildWalletIndex({ events, walletRows }), allocations, tvlSources, priceProviderErrors, end, chainHeads };
}

/** Which rows of a token to (re)load: those after `after` (unix s), or all when it is null. */
export interface PriceSlice {
  chain_id: number;
  address: string;
  after: number | null;
}

/** Price series by token: every row, or only the given slices. */
export async function loadPrices(store: Store, slices?: readonly PriceSlice[]): Promise<Map<string, PriceSeries>> {
  if (slices?.length === 0) return new Map();
  const result = slices
    ? await store.stream(
        'load.prices.slices',
        `SELECT p.chain_id::DOUBLE, p.address, epoch(p.ts)::DOUBLE, p.usd::VARCHAR
           FROM prices p JOIN (SELECT unnest(from_json($1, '[{"chain_id":"DOUBLE","address":"VARCHAR","after":"DOUBLE"}]'), recursive := true)) k
             ON p.chain_id = k.chain_id AND p.address = k.address
          WHERE epoch(p.ts) > coalesce(k.after, -1e15) ORDER BY p.chain_id, p.address, p.ts`,
        [JSON.stringify(slices)],
      )
    : await store.stream('load.prices', 'SELECT chain_id::DOUBLE, address, epoch(ts)::DOUBLE, usd::VARCHAR FROM prices ORDER BY chain_id, address, ts');
  const groups = new Map<string, { chain_id: number; address: string; ts: number[]; usd: string[] }>();
  let current: { chain_id: number; address: string; ts: number[]; usd: string[] } | null = null;
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    const chain = float64Items(chunk.getColumnVector(0));
    const address = chunk.getColumnVector(1);
    const ts = float64Items(chunk.getColumnVector(2));
    const usd = chunk.getColumnVector(3);
    for (let r = 0; r < chunk.rowCount; r++) {
      const a = address.getItem(r) as string;
      if (!current || current.chain_id !== chain[r] || current.address !== a) {
        current = { chain_id: chain[r]!, address: a, ts: [], usd: [] };
        groups.set(priceKey(chain[r]!, a), current);
      }
      current.ts.push(ts[r]!);
      current.usd.push(trimZeros(usd.getItem(r) as string));
    }
  }
  const out = new Map<string, PriceSeries>();
  for (const [key, g] of groups) {
    out.set(key, { chain_id: g.chain_id, address: g.address, ts: Float64Array.from(g.ts), usd: g.usd, usd_f: Float64Array.from(g.usd, Number) });
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

const EVENT_SQL = `SELECT chain_id::DOUBLE, block_number::DOUBLE, log_index::DOUBLE, sub_index::DOUBLE, epoch(ts)::DOUBLE,
  assets, shares, block_hash, tx_hash, vault_id, kind, wallet, counterparty, token, request_hash
  FROM vault_events`;
const EVENT_ORDER = 'ORDER BY ts, chain_id, block_number, log_index, sub_index';

/** A HUGEINT from its 16 raw bytes at row r (lo u64, hi i64, little-endian). */
function hugeint(words: BigUint64Array, r: number): bigint {
  const lo = words[2 * r]!;
  const hi = words[2 * r + 1]!;
  return hi === 0n ? lo : (BigInt.asIntN(64, hi) << 64n) | lo;
}

/**
 * Every event in wallet-wide order (DESIGN §4.6), as plain rows. Numbers and amounts are
 * copied from the chunks' vector memory; only the string columns are decoded per value, and
 * the repeating ones (vault, kind, wallet, token) are interned.
 */
export async function loadEvents(store: Store, where = ''): Promise<EventRow[]> {
  const result = await store.stream('load.events', `${EVENT_SQL} ${where} ${EVENT_ORDER}`);
  const out: EventRow[] = [];
  const interned = new Map<string, string>();
  const intern = (s: string | null) => {
    if (s === null) return null;
    const hit = interned.get(s);
    if (hit !== undefined) return hit;
    interned.set(s, s);
    return s;
  };
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    const n = chunk.rowCount;
    const [chain, block, log, sub, ts] = [0, 1, 2, 3, 4].map((c) => float64Items(chunk.getColumnVector(c))) as Float64Array[];
    const [assets, shares] = [5, 6].map((c) => {
      const b = hugeintBytes(chunk.getColumnVector(c));
      return new BigUint64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    }) as BigUint64Array[];
    const str = [7, 8, 9, 10, 11, 12, 13, 14].map((c) => chunk.getColumnVector(c));
    for (let r = 0; r < n; r++) {
      out.push({
        chain_id: chain![r]!,
        block_number: block![r]!,
        log_index: log![r]!,
        sub_index: sub![r]!,
        block_hash: str[0]!.getItem(r) as string,
        tx_hash: str[1]!.getItem(r) as string,
        ts: ts![r]!,
        vault_id: intern(str[2]!.getItem(r) as string)!,
        kind: intern(str[3]!.getItem(r) as string) as EventKind,
        wallet: intern(str[4]!.getItem(r) as string)!,
        counterparty: intern(str[5]!.getItem(r) as string | null),
        token: intern(str[6]!.getItem(r) as string)!,
        assets: hugeint(assets!, r),
        shares: hugeint(shares!, r),
        request_hash: str[7]!.getItem(r) as string | null,
      });
    }
  }
  return out;
}

/** wallet → vault → rows in chain order (block_number, log_index, sub_index). */
export function groupByWallet(events: readonly EventRow[], into = new Map<string, Map<string, EventRow[]>>()) {
  for (const e of events) {
    let byVault = into.get(e.wallet);
    if (!byVault) into.set(e.wallet, (byVault = new Map()));
    let rows = byVault.get(e.vault_id);
    if (!rows) byVault.set(e.vault_id, (rows = []));
    rows.push(e);
  }
  for (const byVault of into.values()) for (const rows of byVault.values()) sortChainOrder(rows);
  return into;
}

export function sortChainOrder(rows: EventRow[]): void {
  rows.sort((a, b) => a.block_number - b.block_number || a.log_index - b.log_index || a.sub_index - b.sub_index);
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
