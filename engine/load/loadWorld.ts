// Reads everything the engine keeps resident out of DuckDB once (DESIGN §1, §8): the
// registry, hourly series (chunk copies into typed arrays), prices, events grouped by wallet,
// the latest allocations and the external TVL sources' last readings.
import type { Common } from '../../common/common.js';
import type { AllocationItem, PriceSeries, TvlSourceState, VaultSeries, World } from '../../model/world.js';
import { priceKey } from '../../model/world.js';
import { latestAllocations } from '../../store/allocations.js';
import { ingestHeads } from '../../store/ingestStatus.js';
import { priceDigestRows, streamPrices, type PriceSlice } from '../../store/prices.js';
import { readRegistry } from '../../store/registryStore.js';
import type { Store } from '../../store/store.js';
import { getSetting, PRICE_PROVIDER_ERRORS } from '../../store/settings.js';
import { lastGoodTvlValues, newestTvlReadings } from '../../store/tvlSourceValues.js';
import { snapshotChainHeads } from '../../store/vaultSnapshots.js';
import { formatUnitsWords, trimZeros } from '../../model/format/numbers.js';
import { loadVaultSeries } from './loadSeries.js';
import { buildWalletIndex } from '../publish/walletIndex.js';
import { decimal128Words, float64Items, int32Items } from './vectorMemory.js';
import { primeUsdTableWords, USD_PRICE_DECIMALS } from '../positions/usdPriceCache.js';
import { loadEventTable } from './loadEvents.js';
import { createEventTable } from '../../model/events.js';
import { loadHistory, loadRequestTerms } from './loadHistory.js';

/** Room for appended events (a few weeks of a busy world's hours) before the table is copied to grow. */
export const EVENT_SPARE_ROWS = 65_536;

export interface LoadWorldOptions {
  /** read events' block and transaction hashes (pages show them; a batch recompute does not need them) */
  eventHashes?: boolean;
  /** allocate the series' APY columns (default true; a serving world computes APY on read) */
  apy?: boolean;
  /** a stop: the reads end between chunks (throwing the signal's reason) */
  signal?: AbortSignal;
  /**
   * read the series (default true); false: no series at all (`series` empty, `end` 0), for a
   * recompute that loads them a few vaults at a time (engine/persist/recomputeInPasses.ts)
   */
  series?: boolean;
  /** read the events (default true); false: none (an empty table and index), as `series` */
  events?: boolean;
  /**
   * read what only served views read (default true): the history views of the past answer from
   * and the async requests' terms; false (a batch recompute, which serves nothing): neither
   */
  views?: boolean;
}

export async function loadWorld(common: Common, store: Store, opts: LoadWorldOptions = {}): Promise<World> {
  const t0 = performance.now();
  const registry = await readRegistry(store);
  const vaults = new Map(registry.vaults.map((v) => [v.vault_id, v]));
  // events and prices each on a connection of their own, the rest on this one: one table's
  // query runs while another's chunks are copied (~0.2 s of a demo world's cold start)
  const [events, prices, [series, allocations, tvlSources, priceProviderErrors, chainHeads, history, requestTerms]] = await allSettled([
    opts.events === false
      ? Promise.resolve(createEventTable(0))
      : onSibling(store, (s) => loadEventTable(s, null, {}, { spare: EVENT_SPARE_ROWS, hashes: opts.eventHashes ?? true, signal: opts.signal })),
    onSibling(store, (s) => loadPrices(s, undefined, opts.signal)),
    (async () =>
      [
        opts.series === false ? new Map<string, VaultSeries>() : await loadVaultSeries(store, registry.vaults, { apy: opts.apy ?? true, signal: opts.signal }),
        await loadAllocations(store),
        await loadTvlSources(store, registry.tvl_sources),
        await loadPriceProviderErrors(store),
        await loadChainHeads(store),
        opts.views === false ? undefined : await loadHistory(store, opts.signal),
        opts.views === false ? undefined : await loadRequestTerms(store, opts.signal),
      ] as const)(),
  ]);
  let end = 0;
  for (const s of series.values()) if (s.length > 0) end = Math.max(end, s.ts[s.length - 1]!);
  common.logger.debug(
    { vaults: vaults.size, events: events.length, wallets: events.dict.wallets.size, ms: Math.round(performance.now() - t0) },
    'world loaded',
  );
  return {
    registry,
    vaults,
    series,
    prices,
    events,
    walletIndex: buildWalletIndex(events),
    positionItems: null,
    allocations,
    tvlSources,
    priceProviderErrors,
    end,
    chainHeads,
    history,
    requestTerms,
  };
}

/**
 * Promise.all that settles only once every part has: when one read fails (or a stop ends it),
 * the others still run on their connections, and the store must not be closed under them (a
 * connection closed mid-query blocks the thread). Rejects with the first failure.
 */
async function allSettled<T extends readonly unknown[]>(parts: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(parts);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** Run `work` on a second connection to `store`'s database, closed after. */
async function onSibling<T>(store: Store, work: (s: Store) => Promise<T>): Promise<T> {
  const s = await store.sibling();
  try {
    return await work(s);
  } finally {
    await s.close();
  }
}

export type { PriceSlice } from '../../store/prices.js';

/**
 * Price series by token: every row, or only the given slices. Rows stream as typed columns — a
 * token number, the hour, the price's 128-bit unscaled value — so DuckDB converts nothing per
 * row (its decimal-to-text and the ordered string_agg this replaced were ~0.2 s of a demo
 * world's cold start); the exact decimal strings and the doubles are made here from those words
 * (formatUnitsWords: no bigint for a price of few digits), which also prime the replay's price
 * table (engine/positions/usdPriceCache.ts: no string is parsed).
 */
export async function loadPrices(store: Store, slices?: readonly PriceSlice[], signal?: AbortSignal): Promise<Map<string, PriceSeries>> {
  if (slices?.length === 0) return new Map();
  const tokens: { chain_id: number; address: string }[] = [];
  const chunks: { id: Int32Array; ts: Float64Array; words: Uint32Array }[] = [];
  await streamPrices(
    store,
    slices,
    (chunk) => {
      const n = chunk.rowCount;
      const id = int32Items(chunk.getColumnVector(0));
      for (let j = 0; j < n; j++) {
        const k = id[j]!;
        if (tokens[k] === undefined)
          tokens[k] = { chain_id: chunk.getColumnVector(1).getItem(j) as number, address: chunk.getColumnVector(2).getItem(j) as string };
      }
      const words = decimal128Words(chunk.getColumnVector(4), USD_PRICE_DECIMALS);
      // copied as 32-bit words: reading a BigUint64Array allocates a bigint per element
      chunks.push({
        id: id.slice(0, n),
        ts: float64Items(chunk.getColumnVector(3)).slice(0, n),
        words: new Uint32Array(words.buffer, words.byteOffset, 4 * n).slice(),
      });
    },
    signal,
  );
  // each token's rows (runs of one token copied whole), then in hour order: DuckDB sorted them
  // (on its threads, beside the events' read: ~45 ms less of a cold start than sorting here),
  // so the hour order is only checked
  const count = new Int32Array(tokens.length);
  for (const c of chunks) for (const k of c.id) count[k]!++;
  const ts = Array.from(count, (n) => new Float64Array(n));
  const words = Array.from(count, (n) => new Uint32Array(4 * n));
  const at = new Int32Array(tokens.length);
  for (const c of chunks) {
    for (let j = 0; j < c.id.length; ) {
      const k = c.id[j]!;
      let end = j + 1;
      while (end < c.id.length && c.id[end] === k) end++;
      const d = at[k]!;
      ts[k]!.set(c.ts.subarray(j, end), d);
      words[k]!.set(c.words.subarray(4 * j, 4 * end), 4 * d);
      at[k] = d + end - j;
      j = end;
    }
  }
  const out = new Map<string, PriceSeries>();
  tokens.forEach((t, k) => {
    const [hours, w] = inHourOrder(ts[k]!, words[k]!);
    const usd = new Array<string>(hours.length);
    const usdF = new Float64Array(hours.length);
    for (let i = 0; i < hours.length; i++) formatUnitsWords(w, i, USD_PRICE_DECIMALS, usd, usdF);
    const p: PriceSeries = { chain_id: t.chain_id, address: t.address, ts: hours, usd, usd_f: usdF };
    primeUsdTableWords(p, w);
    out.set(priceKey(t.chain_id, t.address), p);
  });
  return out;
}

/** The hours ascending, each with its four 32-bit words (rows out of order are sorted here). */
function inHourOrder(ts: Float64Array, words: Uint32Array): [Float64Array, Uint32Array] {
  const n = ts.length;
  let sorted = true;
  let whole = n < INDEX_SPAN;
  for (let i = 0; i < n; i++) {
    const t = ts[i]!;
    if (i > 0 && ts[i - 1]! > t) sorted = false;
    if (!(Number.isInteger(t) && t >= 0 && t < 2 ** 32)) whole = false;
  }
  if (sorted) return [ts, words];
  let order: ArrayLike<number>;
  if (whole) {
    // whole seconds below 2^32 and fewer than 2^21 rows: (second, row) packed exactly into one
    // double each, sorted natively (~10× a comparator sort), ties by row
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = ts[i]! * INDEX_SPAN + i;
    keys.sort();
    order = Int32Array.from(keys, (key) => key % INDEX_SPAN);
  } else order = Array.from(ts.keys()).sort((a, b) => ts[a]! - ts[b]! || a - b);
  const hours = new Float64Array(n);
  const w = new Uint32Array(words.length);
  for (let i = 0; i < n; i++) {
    const from = order[i]!;
    hours[i] = ts[from]!;
    w.set(words.subarray(4 * from, 4 * from + 4), 4 * i);
  }
  return [hours, w];
}

const INDEX_SPAN = 2 ** 21;
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
export async function loadPriceDigests(
  store: Store,
  known: ReadonlyMap<string, PriceDigest> = new Map(),
): Promise<Map<string, PriceDigest & { prefix: string | null }>> {
  const keys = [...known].map(([key, d]) => {
    const [chain, address] = key.split(':');
    return { chain_id: Number(chain), address: address!, last: d.last };
  });
  const rows = await priceDigestRows(store, keys);
  return new Map(rows.map((r) => [priceKey(r.chain_id, r.address), { n: r.n, last: r.last, digest: r.digest, prefix: r.prefix }]));
}

export async function loadAllocations(store: Store): Promise<World['allocations']> {
  const rows = await latestAllocations(store);
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
  const good = await lastGoodTvlValues(store);
  const newest = await newestTvlReadings(store);
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
 * checkpoint and whether it has stalled (ingest_status); others the newest snapshot. In chain
 * order: a GROUP BY's rows come in any order, and the published world file (its name is its
 * hash) would differ between two publishes of the same inputs.
 */
export async function loadChainHeads(store: Store): Promise<World['chainHeads']> {
  const rows = await snapshotChainHeads(store);
  const heads: World['chainHeads'] = new Map(rows.map((r) => [r.chain_id, { block: r.block, ts: r.ts, stalled: false }]));
  const status = await ingestHeads(store);
  for (const r of status) {
    const prev = heads.get(r.chain_id);
    heads.set(r.chain_id, { block: r.block ?? prev?.block ?? null, ts: r.ts ?? prev?.ts ?? null, stalled: r.stalled });
  }
  return heads;
}
