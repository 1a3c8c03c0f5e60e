// The engine: keeps the world resident, recomputes it (fully, or incrementally from rows newer
// than what it holds), and publishes immutable snapshots to subscribers (DESIGN §1). A failed
// recompute or publish leaves the previous snapshot serving.
import { createMutex } from '../common/mutex.js';
import { Gauge } from 'prom-client';
import type { Common } from '../common/common.js';
import {
  EVENT_SPARE_ROWS,
  loadAllocations,
  loadChainHeads,
  loadPriceDigests,
  loadPrices,
  loadPriceProviderErrors,
  loadTvlSources,
  loadWorld,
  type PriceDigest,
  type PriceSlice,
} from './load/loadWorld.js';
import { loadEventTable } from './load/loadEvents.js';
import { loadHistory, loadRequestTerms } from './load/loadHistory.js';
import { priceKey } from '../model/world.js';
import type { PriceSeries, VaultSeries, World } from '../model/world.js';
import { buildSnapshot, type Snapshot } from './publish/buildSnapshot.js';
import { buildWalletIndex, frozenView } from './publish/walletIndex.js';
import { computeApy } from './series/apyWindows.js';
import { computeUnitPrices } from './series/unitPrices.js';
import { appendSnapshot } from './series/vaultSeries.js';
import { inputStamp, readPublishIdentity, writePublishIdentity } from '../store/publishIdentity.js';
import type { Store } from '../store/store.js';
import { snapshotsAfter } from '../store/vaultSnapshots.js';
import type { ComputePool } from './pool/computePool.js';
import { poolSeriesCompute } from './pool/recomputeSeries.js';
import { basisOf, computePositionItems, type ItemsBasis, type PositionItems, type PositionsInput, type PositionsOutput } from './positions/positionItems.js';

export type StageTimings = Record<string, number>;

export interface PublishPlan {
  generation: number;
  now: number;
}

/**
 * The next publish's generation and time after `generation`; with a persisted identity, decided
 * with the inputs' stamp (the same inputs republish under the identity saved with them). Also
 * what a sharded recompute's merge publishes under (cli/commands/recomputeShard.ts).
 */
export async function publishPlan(store: Store, persist: boolean | 'read', generation: number, clock: () => number): Promise<PublishPlan> {
  if (!persist) return { generation: generation + 1, now: clock() };
  const stamp = await inputStamp(store);
  const previous = await readPublishIdentity(store);
  if (previous && previous.stamp === stamp) return { generation: previous.generation, now: previous.refreshed_at_s };
  const next = { generation: Math.max(generation, previous?.generation ?? 0) + 1, now: clock() };
  if (persist !== 'read') await writePublishIdentity(store, { stamp, generation: next.generation, refreshed_at_s: next.now });
  return next;
}

/** Runs the series kernels (unit price, then APY) from a start index per vault, and the position items. */
export interface SeriesCompute {
  run(work: { series: VaultSeries; from: number }[]): Promise<void>;
  /** runs a range of position items on workers; null: in-thread */
  positions: ((task: PositionsInput) => Promise<PositionsOutput>) | null;
}

export const inThreadCompute: SeriesCompute = {
  async run(work) {
    for (const { series, from } of work) {
      computeUnitPrices(series, from);
      computeApy(series, from);
    }
  },
  positions: null,
};

/**
 * Series work on the piscina pool when it is large enough to repay a worker round trip
 * (a full recompute); small increments (one new hour) run in-thread.
 */
export function poolCompute(pool: ComputePool, inThreadBelowPoints = 200_000): SeriesCompute {
  const onPool = poolSeriesCompute(pool);
  return {
    async run(work) {
      let points = 0;
      for (const w of work) points += w.series.length - w.from;
      return points < inThreadBelowPoints ? inThreadCompute.run(work) : onPool.run(work);
    },
    positions: (task) => pool.positions(task),
  };
}

export interface Engine {
  current(): Snapshot | null;
  world(): World | null;
  subscribe(listener: (s: Snapshot) => void): void;
  /**
   * Read every raw row, compute everything, publish. `alongside` (a batch recompute writing
   * its tables) starts once the series are computed and runs while the position items are
   * computed on the pool and published: it gets the world and the publish, and the recompute
   * ends when both have (either failing fails it). `afterLoad` runs once the inputs are read
   * and nothing more is read from the store (a server holding the file through its start lets
   * it go there, not before the read: a reopen costs a cold start ~60 ms). `signal` (the stop)
   * ends it between chunks of the read and between stages, before anything is published.
   */
  recomputeFull(opts?: RecomputeOptions): Promise<StageTimings>;
  /** Read rows newer than the world, compute what they touch, publish; null when nothing is new. A stop (`signal`) is seen before it starts. */
  refresh(signal?: AbortSignal): Promise<StageTimings | null>;
  /**
   * Publish a world read back from its published files (engine/publish/snapshotFiles.ts) under
   * the identity it was published with, without recomputing; refreshes then extend it.
   * `digests`: the price digests of the inputs the world was published from, when the caller
   * reads them itself (else they are read here, while the snapshot is built).
   */
  adopt(w: World, at: { generation: number; refreshed_at_s: number }, digests?: Promise<Map<string, PriceDigest>>): Promise<StageTimings>;
  /** Run `work` while no recompute or refresh runs (the world is exactly the current snapshot's). */
  locked<T>(work: () => T | Promise<T>): Promise<T>;
}

export interface RecomputeOptions {
  alongside?: (w: World, published: Promise<Snapshot>) => Promise<unknown>;
  afterLoad?: () => Promise<void>;
  signal?: AbortSignal;
}

/** Runs work with the database open (a long-running server opens it per job). */
export type StoreAccess = <T>(work: (store: Store) => Promise<T>) => Promise<T>;

export interface EngineOptions {
  compute?: SeriesCompute;
  clock?: () => number;
  /**
   * Keep the publish identity in the database (the server): a full recompute of inputs that
   * have not changed since the last publish republishes under its generation and time.
   * 'read': use a stored identity that matches, never write one (a server started read-only).
   */
  persistIdentity?: boolean | 'read';
  /** keep events' block and transaction hashes (default true; a batch recompute serves no pages) */
  eventHashes?: boolean;
  /**
   * keep every point's APY windows in columns (default true: a batch recompute writes them
   * all); a server computes a point's when a page or window reads it (apyAt), ~24 bytes a
   * point less resident
   */
  apyColumns?: boolean;
  /**
   * a batch recompute: the position items carry the positions table's columns and no JSON (its
   * snapshot is never served)
   */
  positionRows?: boolean;
  /**
   * a full recompute publishes before the positions' returns are made; they are made on the
   * pool when first asked for (a request for them, the snapshot files, the next publish): a
   * server's cold start (positionItems.ts deferReturns)
   */
  deferReturns?: boolean;
}

export function createEngine(common: Common, access: StoreAccess, opts: EngineOptions = {}): Engine {
  const compute = opts.compute ?? inThreadCompute;
  const clock = opts.clock ?? (() => Math.floor(Date.now() / 1000));
  const listeners: ((s: Snapshot) => void)[] = [];
  let world: World | null = null;
  let snapshot: Snapshot | null = null;
  let generation = 0;
  /** what the last publish's position items were computed from (the next recomputes only what changed) */
  let itemsBasis: ItemsBasis | null = null;
  /** what the world's price series were loaded from, per token (refresh reloads what changed) */
  let digests: Map<string, PriceDigest> = new Map();
  const busy = createMutex();
  const generationGauge = new Gauge({ name: 'vaultd_snapshot_generation', help: 'Generation of the published snapshot', registers: [common.metrics] });
  const publishedGauge = new Gauge({
    name: 'vaultd_snapshot_published_timestamp_seconds',
    help: 'Publish time of the serving snapshot',
    registers: [common.metrics],
  });
  new Gauge({
    name: 'vaultd_snapshot_age_seconds',
    help: 'Seconds since the serving snapshot was published',
    registers: [common.metrics],
    collect() {
      if (snapshot) this.set(Date.now() / 1000 - snapshot.refreshed_at_s);
    },
  });
  const skippedGauge = new Gauge({ name: 'vaultd_corrupt_snapshots_skipped', help: 'Raw snapshot rows skipped as corrupt', registers: [common.metrics] });

  async function timed<T>(timings: StageTimings, stage: string, work: () => Promise<T> | T): Promise<T> {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      timings[stage] = Math.round((performance.now() - t0) * 10) / 10;
    }
  }

  /** The next publish's generation and time; with a persisted identity, decided with the inputs' stamp. */
  function plan(store: Store): Promise<PublishPlan> {
    return publishPlan(store, opts.persistIdentity ?? false, generation, clock);
  }

  /** Publish `w`; its position items are computed first unless `w` already carries them (restored from files). */
  async function publish(w: World, timings: StageTimings, at: PublishPlan, items: 'compute' | 'keep' = 'compute'): Promise<void> {
    // the snapshot reads a frozen view: later refreshes grow `w`, never what was published
    const view = frozenView(w);
    if (items === 'compute' || !view.positionItems) {
      const r = await timed(timings, 'positions', () =>
        computePositionItems(view, compute.positions, opts.positionRows ? 'table' : 'serve', itemsBasis, { deferReturns: opts.deferReturns ?? false }),
      );
      view.positionItems = r.items;
      itemsBasis = r.basis;
    } else itemsBasis = basisOf(view, view.positionItems as PositionItems);
    return timed(timings, 'publish', () => {
      const next = buildSnapshot(view, at);
      generation = next.generation;
      snapshot = next;
      world = w;
      generationGauge.set(generation);
      publishedGauge.set(next.refreshed_at_s);
      let skipped = 0;
      for (const s of w.series.values()) skipped += s.skipped;
      skippedGauge.set(skipped);
      for (const l of listeners) l(next);
    });
  }

  /** One recompute at a time: a refresh waits for a running full recompute and vice versa. */
  function exclusive<T>(work: () => Promise<T>): Promise<T> {
    return busy.run(work);
  }

  return {
    current: () => snapshot,
    world: () => world,
    subscribe: (l) => void listeners.push(l),
    recomputeFull: ({ alongside, afterLoad, signal } = {}) =>
      exclusive(async () => {
        const timings: StageTimings = {};
        let at: PublishPlan | null = null;
        let stage = 'load';
        try {
          signal?.throwIfAborted();
          itemsBasis = null;
          const w = await timed(timings, 'load', () =>
            access(async (store) => {
              const loaded = await loadWorld(common, store, { eventHashes: opts.eventHashes ?? true, apy: opts.apyColumns ?? true, signal });
              digests = await loadPriceDigests(store);
              at = await plan(store);
              return loaded;
            }),
          );
          await afterLoad?.();
          signal?.throwIfAborted();
          stage = 'series';
          await timed(timings, 'series', () => compute.run([...w.series.values()].map((series) => ({ series, from: 0 }))));
          signal?.throwIfAborted();
          stage = 'publish';
          const published = publish(w, timings, at!).then(() => snapshot!);
          if (alongside) {
            // the publish's rejection is seen by whichever awaits it first; never left unhandled
            published.catch(() => undefined);
            await Promise.all([alongside(w, published), published]);
          } else await published;
        } catch (err) {
          // the previous snapshot keeps serving; a stop says where it cut the work
          if (signal?.aborted) common.logger.info({ stage, timings }, 'recompute stopped');
          throw err;
        }
        common.logger.info({ timings, generation }, 'recomputed');
        return timings;
      }),
    locked: (work) => exclusive(async () => work()),
    adopt: (w, at, loaded) =>
      exclusive(async () => {
        const timings: StageTimings = {};
        // DuckDB reads the digests on its threads while this one publishes (or they were read
        // while the world's files were: restoreSnapshot)
        const loading = timed(timings, 'load', () => loaded ?? access((store) => loadPriceDigests(store)));
        loading.catch(() => undefined); // awaited below, after the publish
        await publish(w, timings, { generation: at.generation, now: at.refreshed_at_s }, 'keep');
        digests = await loading;
        common.logger.info({ timings, generation }, 'published snapshot restored from its files');
        return timings;
      }),
    refresh: (signal) =>
      exclusive(async () => {
        // once its rows are read into the live world, a refresh runs to its publish: stopping
        // between would leave rows in the world that no publish computed
        signal?.throwIfAborted();
        if (!world) return null;
        const timings: StageTimings = {};
        const w = world;
        let at: PublishPlan | null = null;
        const work = await timed(timings, 'load', () =>
          access(async (store) => {
            const prices = await refreshPrices(store, w, digests);
            digests = prices.digests;
            const rows = await appendNewRows(store, w, prices.changed);
            if (rows) at = await plan(store);
            return rows;
          }),
        );
        if (!work) return null;
        await timed(timings, 'series', () => compute.run(work));
        await publish(w, timings, at!);
        common.logger.info({ timings, generation, points: work.length }, 'refreshed');
        return timings;
      }),
  };
}

/**
 * Append raw rows newer than the world to it (series and events grow past their published
 * lengths, the wallet index is rebuilt, so published snapshots keep theirs). Returns the series
 * work, or null when nothing is new.
 */
async function appendNewRows(store: Store, w: World, pricesChanged: boolean): Promise<{ series: VaultSeries; from: number }[] | null> {
  let oldest = Infinity;
  for (const s of w.series.values()) oldest = Math.min(oldest, s.length > 0 ? s.ts[s.length - 1]! : -Infinity);
  if (!Number.isFinite(oldest)) oldest = -1e15;
  const rows = await snapshotsAfter(store, oldest);
  const from = new Map<VaultSeries, number>();
  for (const r of rows) {
    const s = w.series.get(r.vault_id);
    if (!s || (s.length > 0 && r.ts <= s.ts[s.length - 1]!)) continue;
    if (!from.has(s)) from.set(s, s.length);
    appendSnapshot(s, { ts: r.ts, block_number: r.block_number, total_assets: r.total_assets, total_supply: r.total_supply, unit_price: r.unit_price });
  }

  const before = w.events.length;
  const lastEvent = before > 0 ? w.events.ts[before - 1]! : -1e15;
  // appended past the published length (or into a grown copy): published views never see them
  w.events = await loadEventTable(store, w.events, { after: lastEvent }, { spare: EVENT_SPARE_ROWS, hashes: w.events.hasHashes });
  const newEvents = w.events.length - before;
  if (newEvents > 0) w.walletIndex = buildWalletIndex(w.events);

  w.chainHeads = await loadChainHeads(store);
  w.allocations = await loadAllocations(store);
  w.history = await loadHistory(store);
  w.requestTerms = await loadRequestTerms(store);
  const tvlBefore = JSON.stringify([w.tvlSources, w.priceProviderErrors]);
  w.tvlSources = await loadTvlSources(store, w.registry.tvl_sources);
  w.priceProviderErrors = await loadPriceProviderErrors(store);
  for (const s of w.series.values()) if (s.length > 0) w.end = Math.max(w.end, s.ts[s.length - 1]!);

  if (from.size === 0 && newEvents === 0 && !pricesChanged && JSON.stringify([w.tvlSources, w.priceProviderErrors]) === tvlBefore) return null;
  return [...from].map(([series, start]) => ({ series, from: start }));
}

/**
 * Brings the world's price series up to the table: a token whose rows were only appended gets
 * the new rows; one whose older rows changed (a provider's backfill, a feed rescanned after a
 * reorg) is reloaded whole; a token with no rows left is dropped.
 */
async function refreshPrices(store: Store, w: World, known: Map<string, PriceDigest>): Promise<{ digests: Map<string, PriceDigest>; changed: boolean }> {
  const fresh = await loadPriceDigests(store, known);
  const slices: (PriceSlice & { key: string })[] = [];
  for (const [key, d] of fresh) {
    const old = known.get(key);
    if (old && old.n === d.n && old.digest === d.digest) continue;
    const sep = key.indexOf(':');
    const appended = old !== undefined && d.prefix === old.digest && w.prices.has(key);
    slices.push({ key, chain_id: Number(key.slice(0, sep)), address: key.slice(sep + 1), after: appended ? old.last : null });
  }
  let changed = slices.length > 0;
  for (const key of known.keys()) {
    if (!fresh.has(key)) {
      w.prices.delete(key);
      changed = true;
    }
  }
  const loaded = await loadPrices(
    store,
    slices.map(({ chain_id, address, after }) => ({ chain_id, address, after })),
  );
  for (const s of slices) {
    const add = loaded.get(priceKey(s.chain_id, s.address));
    if (s.after === null) {
      if (add) w.prices.set(s.key, add);
      else w.prices.delete(s.key);
    } else if (add) w.prices.set(s.key, concatPrices(w.prices.get(s.key), add));
  }
  const digests = new Map<string, PriceDigest>();
  for (const [key, d] of fresh) digests.set(key, { n: d.n, last: d.last, digest: d.digest });
  return { digests, changed };
}

function concatPrices(old: PriceSeries | undefined, add: PriceSeries): PriceSeries {
  if (!old) return add;
  const keep = old.ts.length;
  const ts = new Float64Array(keep + add.ts.length);
  ts.set(old.ts);
  ts.set(add.ts, keep);
  const usdF = new Float64Array(keep + add.ts.length);
  usdF.set(old.usd_f);
  usdF.set(add.usd_f, keep);
  return { chain_id: old.chain_id, address: old.address, ts, usd: [...old.usd, ...add.usd], usd_f: usdF };
}
