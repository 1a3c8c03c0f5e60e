// The read model (STYLE 19): the one door from a published snapshot to the server. Every
// method answers one route family with ready byte parts (prebuilt pages, serialized items,
// slices of serialized series) and the key of the next page; the server only parses the
// request, asks, and writes the envelope. Nothing here mutates the snapshot, and every array
// a method reads is the snapshot's published length (refreshes append past it).
import { isoSeconds } from '../../model/format/numbers.js';
import { vaultIdOf, type EventTable } from '../../model/events.js';
import { priceKey, type PriceSeries } from '../../model/world.js';
import { activityRowAt } from '../activity/activityRows.js';
import type { PartialError } from '../aggregates/tvl.js';
import { VaultdError } from '../../common/errors.js';
import { eventColumns, vaultInputOf } from '../positions/positionItems.js';
import { type PositionSource, publishedPositions } from './positionSource.js';
import { dataEnd, lazySnapshotAt } from './asOfView.js';
import { createBoundedCache } from './boundedCache.js';
import { createPastPositions } from './pastPositions.js';
import { createPastVaults } from './pastVaults.js';
import { type PastShared, type PastStats, PastView } from './pastView.js';
import type { PastPositionsInput, PastPositionsOutput } from '../positions/pastPositionsTask.js';
import { computePositionWindow, type PositionWindowInput, type PositionWindowOutput } from '../positions/positionWindowTask.js';
import { defaultPositionStart, type Granularity } from '../positions/positionTimeseries.js';
import { asOfIndex } from '../series/asOf.js';
import { gridWindow, windowPoints } from '../series/rollups.js';
import { VAULT_LIST_LIMIT, priceBody, type Snapshot } from './buildSnapshot.js';
import { asOfFrame, type Page } from './page.js';
import { computeSeriesBlocks, type SeriesBlocksInput, type SeriesBlocksOutput } from './seriesBlocksTask.js';
import {
  type Block,
  coldBlocks,
  coldCount,
  type DeflatedItems,
  putBlocks,
  type SeriesBuffer,
  seriesBuffer,
  sliceSeries,
  windowBlocks,
} from './seriesBuffers.js';
import type { PositionContext } from '../positions/replayPosition.js';
import { positionContext, walletOf } from './walletIndex.js';
import { findPosition as findPositionOf, positionAnswer, positionsAnswer, positionsPage as positionsPageOf } from './walletPositions.js';
import type { PositionAuditInput, PositionAuditOutput } from '../audit/positionAuditTask.js';
import type { ApyWindowProvenance } from '../audit/apyProvenance.js';
import type { PointOptions } from '../positions/positionTimeseries.js';
import { createAuditViews, type Include, type LotState } from './auditViews.js';
import { type RequestItem, type RequestStatus, requestItemOf, walletRequestRows } from '../requests/requestItems.js';

/** A page of serialized list items: the items joined by commas (no brackets), and what the envelope's meta needs. */
export interface ItemsAnswer<K> {
  parts: Buffer[];
  count: number;
  /** the last item's key when more items follow (the next page's cursor key), else null */
  nextKey: K | null;
  partialErrors: PartialError[];
}

/** A window of a series: the points as parts (and as prepared deflate pieces), the effective bounds. */
export interface WindowAnswer {
  parts: Buffer[];
  count: number;
  nextKey: number | null;
  /** the same points as deflate pieces, made on request (only gzip answers need them); absent when empty */
  deflated?: () => DeflatedItems;
  /** meta.start / meta.end as RFC 3339, or null */
  start: string | null;
  end: string | null;
  /** the effective bounds (Unix seconds): part of the answer's identity */
  startS: number;
  endS: number;
}

export interface WindowQuery {
  granularity: Granularity;
  start?: number;
  end?: number;
  order: 'asc' | 'desc';
  limit: number;
  /** the previous page's last instant */
  after?: number;
}

/** A position's points at the grid instants of a window (position timeseries). */
export interface PointsAnswer {
  parts: Buffer[];
  count: number;
  nextKey: number | null;
  /** the same points as one prepared deflate run (gzip answers); absent when empty */
  deflated?: () => DeflatedItems;
  start: string;
  end: string;
  startS: number;
  endS: number;
}

export type ActivityKey = [number, number, number, number, number];

export interface ChainHead {
  chain_id: number;
  latest_block: number | null;
  latest_timestamp: number | null;
  stalled: boolean;
}

/** The published snapshot as the server reads it. */
export interface ReadModel {
  readonly generation: number;
  /** publish time, RFC 3339, and in Unix seconds */
  readonly refreshedAt: string;
  readonly refreshedAtS: number;
  /** content identity (ETag seed of per-request bodies) */
  readonly id: string;
  /** a view of the past (DESIGN §11.6): its instant, RFC 3339 (meta.as_of); null for the latest data */
  readonly asOf: string | null;
  /** the newest instant with data (a snapshot, an event or a price): views of the past end here */
  readonly dataEnd: number;
  /**
   * The view of the data known at `t` (Unix seconds, at most dataEnd), made at once and kept for
   * recent instants: it builds what a route reads of it (engine/publish/pastView.ts). `echo` false: its answers carry no meta.as_of (the later pages of a walk begun
   * without as_of, pinned to its first page's data).
   */
  at(t: number, echo?: boolean): ReadModel;
  /** The counts of the caches behind views of the past (tests and tools: each stays bounded). */
  pastStats(): PastStats;
  /** What a walk begun on this model is pinned to: its data time and the rows it held by then (DESIGN §11.6). */
  pin(): { t: number; f: number };

  /** the vault list (limit ≤ VAULT_LIST_LIMIT): the prebuilt page for a first page of the default size, else items */
  vaultList(q: {
    includeHidden: boolean;
    after: [number, string] | null;
    limit: number;
  }): { page: Page } | (ItemsAnswer<[number, string]> & { offset: number });
  featured(): Page | undefined;
  strategies(): Page | undefined;
  slug(slug: string): Page | undefined;
  /** the vault's detail, definition or allocations page; undefined for an unknown or disabled vault */
  vault(id: string, part: 'detail' | 'definition' | 'allocations'): Page | undefined;
  /** whether the vault is registered and not disabled */
  hasVault(id: string): boolean;
  tvl(breakdown: boolean): Page | undefined;
  /** the TVL data object and its partial errors (the deprecated include_sources alias builds its own envelope) */
  tvlData(breakdown: boolean): { data: unknown; partialErrors: PartialError[] };

  /** the effective window of a vault timeseries (Unix seconds) */
  vaultBounds(id: string, q: Pick<WindowQuery, 'start' | 'end'>): { startS: number; endS: number };
  /**
   * The vault's series at a granularity (no points when it has no snapshot yet): sliced from
   * kept blocks at once, or after the compute pool built the blocks the window needs.
   */
  vaultWindow(id: string, q: WindowQuery): WindowAnswer | Promise<WindowAnswer>;

  positions(wallet: string, q: { includeHidden: boolean; after: number; limit: number }): ItemsAnswer<number>;
  /**
   * The wallet's positions ready to be read (check before the position routes): at once, or a
   * Promise while they are replayed on the pool (a view of the past computes them on first use).
   */
  walletReady(wallet: string): undefined | Promise<void>;
  /** the item JSON of the wallet's open position; a string saying why when there is none */
  position(wallet: string, vaultId: string): Buffer | { missing: string };
  /** why the wallet's position in the vault has no timeseries (no position, no history), or null */
  positionSeriesMissing(wallet: string, vaultId: string): string | null;
  /** the effective window of a position timeseries (Unix seconds; check positionSeriesMissing first) */
  positionBounds(wallet: string, vaultId: string, granularity: Granularity, q: Pick<WindowQuery, 'start' | 'end'>): { startS: number; endS: number };
  /**
   * The position's points in the window (check positionSeriesMissing first), computed on the
   * compute pool and kept for the snapshot's life within a byte budget; 503 NOT_READY while too
   * many are being computed.
   */
  positionWindow(wallet: string, vaultId: string, q: WindowQuery, options?: PointOptions): PointsAnswer | Promise<PointsAnswer>;
  /** the wallet's activity page; a long one is formatted a slice per turn of the event loop (then a Promise) */
  activity(
    wallet: string,
    q: { vaultId: string | null; includeHidden: boolean; order: 'asc' | 'desc'; after: ActivityKey | null; limit: number },
  ): ItemsAnswer<ActivityKey> | Promise<ItemsAnswer<ActivityKey>>;

  /**
   * The wallet's async requests (DESIGN §11.8), newest request first, at this model's data time:
   * `status` 'all' or one status; the key is the request row's activity key.
   */
  requests(
    wallet: string,
    q: { status: RequestStatus | 'all'; vaultId: string | null; includeHidden: boolean; after: ActivityKey | null; limit: number },
  ): ItemsAnswer<ActivityKey>;
  /**
   * Every request item of the wallet in vaults it may see (hidden ones included, disabled ones
   * never), oldest first: what a `wallet.request` message compares between publishes.
   */
  requestItems(wallet: string): RequestItem[];

  /** the latest USD price body, or the one at `at`; a string saying why when there is none */
  price(chainId: number, address: string, at?: number): Buffer | { missing: string };
  priceWindow(
    chainId: number,
    address: string,
    q: { granularity: 'raw' | Granularity; start: number; end: number; limit: number },
  ): Buffer | { missing: string };

  /** each chain with an enabled vault: its newest indexed block */
  chainHeads(): ChainHead[];

  // ---- opt-in audit detail (DESIGN §11): answers of the same snapshot, never part of the plain ones ----
  /** APY provenance at the as-of snapshot of `at` (default the latest); a string saying why when there is none */
  vaultApy(vaultId: string, at?: number): { vault_id: string; at: string; windows: ApyWindowProvenance[] } | { missing: string };
  /** the vault's detail JSON with `metrics.apy_provenance` and/or `metrics.quality`; undefined for an unknown or disabled vault */
  vaultDetailWith(vaultId: string, include: Pick<Include, 'provenance' | 'quality'>): Buffer | undefined;
  /** the vault list's page with `metrics.quality` on every item */
  vaultListWith(q: { includeHidden: boolean; after: [number, string] | null; limit: number }): ItemsAnswer<[number, string]> & { offset: number };
  /** a vault window with `quality` on every point (no prepared deflate pieces) */
  vaultWindowWith(vaultId: string, q: WindowQuery): WindowAnswer | Promise<WindowAnswer>;
  /** the positions page with FIFO cost basis and/or returns */
  positionsWith(
    wallet: string,
    q: { includeHidden: boolean; after: number; limit: number },
    opts: { fifo: boolean; returns: boolean },
  ): ItemsAnswer<number> | Promise<ItemsAnswer<number>>;
  /** the open position's item with FIFO cost basis and/or returns */
  positionWith(wallet: string, vaultId: string, opts: { fifo: boolean; returns: boolean }): Buffer | { missing: string } | Promise<Buffer>;
  /** the position's FIFO lots (an exited position's too); `after` is the index of the page's first lot */
  lots(
    wallet: string,
    vaultId: string,
    q: { state: LotState; after: number; limit: number },
  ): ItemsAnswer<number> | { missing: string } | Promise<ItemsAnswer<number>>;
}

export interface ReadModelOptions {
  /** where the positions come from (absent: the items computed at publish) */
  positions?: PositionSource;
  /** a view's instant (Unix seconds; absent: the newest data); its walks are pinned to its newest data time at or before it */
  dataTime?: number;
  /** the snapshot whose serialized vault series this model slices (a view of the past: the latest publish's) */
  seriesBase?: Snapshot;
  /** replays a wallet's positions to an instant on the compute pool (views of the past; absent: in-thread, for tests and tools) */
  pastPositions?: (task: PastPositionsInput) => Promise<PastPositionsOutput>;
  /** positions with more rows are replayed to each instant, not kept whole (default TIMELINE_ROWS; tests lower it) */
  pastTimelineRows?: number;
  /** runs a position window on the compute pool (absent: on this thread, for tests and tools) */
  positionWindow?: (task: PositionWindowInput) => Promise<PositionWindowOutput>;
  /** builds series blocks on the compute pool (absent: on this thread, when a window first needs them) */
  seriesBlocks?: (task: SeriesBlocksInput) => Promise<SeriesBlocksOutput>;
  /** audits a position (FIFO, lots, returns) on the compute pool (absent: on this thread) */
  positionAudit?: (task: PositionAuditInput) => Promise<PositionAuditOutput>;
}

/**
 * Views of the past kept per snapshot, by instant (each holds the pages and items it answered):
 * few, for the instants that repeat (month ends, a dashboard's date), and only from the second
 * time an instant is asked among the last PAST_INSTANTS_SEEN (or once it made its full view).
 * Random instants rarely repeat, and keeping their views cost more than it saved: answers hung
 * on kept views outlived scavenges (a random hour's vault detail spent most of its time in the
 * garbage collector with 256 kept; bench/README.md, "as_of: third round").
 */
export const PAST_VIEWS_KEPT = 16;
export const PAST_INSTANTS_SEEN = 64;
/** Full views of the past kept (a world cut at the instant, its aggregate pages once read). */
export const FULL_VIEWS_KEPT = 16;
/** The bytes of the vault pages the views of the past kept hold, at most (each view keeps the pages it made). */
export const PAST_PAGES_BYTES = 16 * 1024 * 1024;

/** Position windows kept per snapshot, in bytes (identity and deflated), least recently used out first. */
export const POSITION_WINDOW_CACHE_BYTES = 16 * 1024 * 1024;
/** Position windows being computed at once, at most; more get 503 NOT_READY (a work cap on the pool). */
export const POSITION_WINDOWS_IN_FLIGHT = 16;
/**
 * Work small enough for the serving thread (a few ms at most): answered at once, without a pool
 * round trip — a window of at most this many points of a position of at most this many rows,
 * and a window needing at most one cold series block (256 points).
 */
export const IN_THREAD_POINTS = 256;
export const IN_THREAD_ROWS = 4096;
export const IN_THREAD_BLOCKS = 1;
/** Activity rows formatted in one turn of the event loop; a longer page yields between slices of this many. */
export const IN_THREAD_ROWS_FORMATTED = 100;

export function createReadModel(snapshot: Snapshot, opts: ReadModelOptions = {}): ReadModel {
  const { world } = snapshot;
  const src = opts.positions ?? publishedPositions(world);
  const x = world.walletIndex;
  const t = world.events;
  const vaultIds = t.dict.vaults.values;
  // a view of the past answers other bytes than the latest data: its own identity (ETag seed)
  const id = `${snapshot.generation}:${snapshot.refreshed_at}${snapshot.as_of !== null ? `@${snapshot.as_of}` : opts.dataTime !== undefined ? `#${opts.dataTime}` : ''}`;
  const listedAt = (vaultId: string) => world.vaults.get(vaultId)!.listed_at;
  const findPosition = (wallet: string, vaultId: string) => findPositionOf(world, src, wallet, vaultId);

  function token(
    chainId: number,
    address: string,
  ): { latest: Snapshot['latestPrices'] extends Map<string, infer L> ? L : never; series: PriceSeries; key: string } | null {
    const key = priceKey(chainId, address);
    const latest = snapshot.latestPrices.get(key);
    const series = world.prices.get(key);
    return latest && series ? { latest, series, key } : null;
  }

  /** The index of the first vault strictly after the cursor key in (listed_at desc, vault_id asc) order; 0 without one. */
  function vaultListFrom(list: readonly { vault_id: string }[], after: [number, string] | null): number {
    if (after === null) return 0;
    const [at, vaultId] = after;
    const from = list.findIndex((d) => {
      const l = listedAt(d.vault_id);
      return l < at || (l === at && d.vault_id > vaultId);
    });
    return from < 0 ? list.length : from;
  }

  const positionsPage = (wallet: string, q: { includeHidden: boolean; after: number; limit: number }) => positionsPageOf(world, src, wallet, q);

  const windows = createWindowCache();
  // views of the past asked for recently, by instant (the oldest use out first); the few whose
  // full view was made (a route over the whole world at the instant) hold it until released
  const views = createBoundedCache<number, PastView>({ entries: PAST_VIEWS_KEPT, bytes: PAST_PAGES_BYTES, evicted: (_t, view) => view.releasePages() });
  const fulls = createBoundedCache<PastView, true>({ entries: FULL_VIEWS_KEPT, evicted: (view) => view.releaseFull() });
  const seen = new Float64Array(PAST_INSTANTS_SEEN).fill(Number.NaN);
  const keep = (view: PastView) => {
    view.kept = true;
    views.set(view.key, view, 0);
  };
  let past: PastShared | null = null;
  const pastShared = (): PastShared => {
    if (past) return past;
    const positions = createPastPositions(world, opts.pastPositions, { timelineRows: opts.pastTimelineRows });
    past = {
      generation: snapshot.generation,
      refreshedAt: snapshot.refreshed_at,
      refreshedAtS: snapshot.refreshed_at_s,
      world,
      vaults: createPastVaults(world, snapshot.refreshed_at_s, id),
      frame: asOfFrame(snapshot.refreshed_at),
      grew: (view, bytes) => {
        if (views.has(view.key)) views.set(view.key, view, bytes);
      },
      positionsAt: (at, kept) => positions.at(at, kept),
      stats: () => ({
        ...positions.stats(),
        details: past!.vaults.kept,
        pageBytes: views.bytes,
        views: views.size,
        fullViews: fulls.size,
      }),
      full(view) {
        // a full view costs a cut of the world: its view is kept from the first ask
        if (!views.has(view.key)) keep(view);
        fulls.set(view, true);
        return createReadModel(lazySnapshotAt(snapshot, view.t, view.echo), { ...opts, seriesBase, positions: view.positionSource, dataTime: view.t });
      },
    };
    return past;
  };
  let end: number | null = null;
  // serialized vault series are the latest publish's: a view of the past slices them
  const seriesBase = opts.seriesBase ?? snapshot;
  const blocks = createBlockBuilder(seriesBase.world, opts.seriesBlocks);
  const audit = createAuditViews(snapshot, opts.positionAudit, (wallet, vaultId) => {
    const found = findPosition(wallet, vaultId);
    return found && { p: found.p, rows: { from: found.rows.from, to: found.rows.to } };
  });

  /** The wallet's requests in this model's rows (its activity rows up to the published or as-of end). */
  function walletRequests(wallet: string) {
    const w = walletOf(world, wallet);
    if (w < 0) return [];
    return walletRequestRows(t, x.activity, x.activityStart[w]!, src.activityEnd(w));
  }
  const model: ReadModel = {
    generation: snapshot.generation,
    refreshedAt: snapshot.refreshed_at,
    refreshedAtS: snapshot.refreshed_at_s,
    id,
    asOf: snapshot.as_of,
    get dataEnd() {
      end ??= dataEnd(world);
      return end;
    },
    at(t, echo = true) {
      const key = echo ? t : -t - 1;
      const kept = views.get(key);
      if (kept) return kept;
      const view = new PastView(pastShared(), t, echo);
      // kept from its instant's second ask: a direct-mapped table of the instants seen lately
      const slot = Math.imul(key | 0, 0x9e3779b1) >>> (32 - Math.log2(PAST_INSTANTS_SEEN));
      if (seen[slot] === key) keep(view);
      else seen[slot] = key;
      return view;
    },
    pastStats: () => pastShared().stats(),
    pin() {
      let f = world.events.length;
      for (const s of world.series.values()) f += s.length;
      // the newest data time of this model, a view's too: a view of the past at an instant
      // after its last row pins what the world built to that instant pins (DESIGN §11.6)
      return { t: model.dataEnd, f };
    },

    vaultList({ includeHidden, after, limit }) {
      const list = includeHidden ? snapshot.vaultList.withHidden : snapshot.vaultList.visible;
      const from = vaultListFrom(list, after);
      if (after === null && limit === VAULT_LIST_LIMIT) {
        const page = snapshot.pages.get(includeHidden ? '/v1/vaults?include_hidden=true' : '/v1/vaults');
        if (page) return { page };
      }
      const slice = list.slice(from, from + limit);
      const parts = joined(slice);
      const last = slice.at(-1);
      const more = from + limit < list.length;
      return { parts, count: slice.length, nextKey: more && last ? [listedAt(last.vault_id), last.vault_id] : null, partialErrors: [], offset: from };
    },
    featured: () => snapshot.pages.get('/v1/vaults/featured'),
    strategies: () => snapshot.pages.get('/v1/strategies'),
    slug: (slug) => snapshot.pages.get(`/v1/vaults/slug/${slug}`),
    vault: (vaultId, part) => snapshot.pages.get(`/v1/vaults/${vaultId}${part === 'detail' ? '' : `/${part}`}`),
    hasVault: (vaultId) => snapshot.details.has(vaultId),
    tvl: (breakdown) => snapshot.pages.get(breakdown ? '/v1/tvl?include_breakdown=true' : '/v1/tvl'),
    tvlData(breakdown) {
      const { breakdown: rows, ...rest } = snapshot.tvl.data;
      return { data: breakdown ? { ...rest, breakdown: rows } : rest, partialErrors: snapshot.tvl.partial_errors };
    },

    vaultBounds(vaultId, q) {
      const s = world.series.get(vaultId);
      const first = s && s.length > 0 ? s.ts[0]! : 0;
      const last = s && s.length > 0 ? s.ts[s.length - 1]! : 0;
      return { startS: q.start ?? first, endS: q.end ?? last };
    },

    vaultWindow(vaultId, q) {
      const s = world.series.get(vaultId);
      const first = s && s.length > 0 ? s.ts[0]! : null;
      const last = s && s.length > 0 ? s.ts[s.length - 1]! : null;
      const start = q.start ?? first ?? 0;
      const end = q.end ?? last ?? 0;
      // points exist up to the latest snapshot (a view of the past reads the latest publish's
      // serialized series, which go on past its instant, so the window stops at its own latest)
      const to = last === null ? Number.NEGATIVE_INFINITY : Math.min(end, last);
      const sb = seriesBuffer(seriesBase, vaultId, q.granularity);
      // a warm window (the usual one) is counted, not listed: the list is made only for the pool
      if (sb && opts.seriesBlocks && coldCount(sb, start, to, q.order, q.limit, q.after) > IN_THREAD_BLOCKS) {
        const cold = coldBlocks(sb, windowBlocks(sb, start, to, q.order, q.limit, q.after), q.order);
        return blocks.build(vaultId, sb, q.granularity, q.order, cold).then(() => model.vaultWindow(vaultId, q));
      }
      const slice = sb ? sliceSeries(sb, start, to, q.order, q.limit, q.after) : null;
      return {
        parts: slice?.body ?? [],
        count: slice?.count ?? 0,
        nextKey: slice?.hasMore && slice.lastInstant !== null ? slice.lastInstant : null,
        ...(slice && slice.count > 0 ? { deflated: slice.deflate } : {}),
        start: q.start !== undefined || first !== null ? iso(start) : null,
        end: q.end !== undefined || last !== null ? iso(end) : null,
        startS: start,
        endS: end,
      };
    },

    walletReady(wallet) {
      const w = walletOf(world, wallet);
      return w < 0 ? undefined : src.ready(w);
    },

    positions: (wallet, q) => positionsAnswer(world, src, wallet, q),

    position: (wallet, vaultId) => positionAnswer(world, src, wallet, vaultId),

    positionSeriesMissing(wallet, vaultId) {
      if (!findPosition(wallet, vaultId)) return `wallet ${wallet} has no position in vault "${vaultId}"`;
      const pctx = positionContext(world, vaultId);
      return !pctx || pctx.series.length === 0 ? `vault "${vaultId}" has no history yet` : null;
    },

    positionBounds(wallet, vaultId, granularity, q) {
      const found = findPosition(wallet, vaultId);
      const s = world.series.get(vaultId);
      if (!found || !s || s.length === 0) throw new Error(`positionBounds: ${model.positionSeriesMissing(wallet, vaultId)}`);
      const defaultStart = defaultPositionStart(found.rows, granularity) ?? s.ts[0]!;
      return { startS: q.start ?? defaultStart, endS: q.end ?? s.ts[s.length - 1]! };
    },

    positionWindow(wallet, vaultId, q, options) {
      const found = findPosition(wallet, vaultId);
      const pctx = positionContext(world, vaultId);
      if (!found || !pctx || pctx.series.length === 0) throw new Error(`positionWindow: ${model.positionSeriesMissing(wallet, vaultId)}`);
      const s = pctx.series;
      const defaultStart = defaultPositionStart(found.rows, q.granularity) ?? s.ts[0]!;
      const start = q.start ?? defaultStart;
      const end = q.end ?? s.ts[s.length - 1]!;
      // Points before the position's first row are omitted (DESIGN §4.8).
      const from = Math.max(start, defaultStart);
      const pts =
        from <= end
          ? windowPoints(s, q.granularity, { start: from, end, order: q.order, limit: q.limit, after: q.after })
          : { instants: [], indices: [], hasMore: false };
      const lastInstant = pts.instants.at(-1);
      const frame = {
        nextKey: pts.hasMore && lastInstant !== undefined ? lastInstant : null,
        start: isoSeconds(start),
        end: isoSeconds(end),
        startS: start,
        endS: end,
      };
      const opted = options?.fifo || options?.quality ? options : undefined;
      const key = `${found.p}|${q.granularity}|${start}|${end}|${q.order}|${q.limit}|${q.after}${opted ? `|${opted.fifo ?? false}|${opted.quality ?? false}` : ''}`;
      const input = () =>
        positionWindowInput(
          world,
          vaultId,
          found.p,
          found.rows.to,
          Float64Array.from(q.order === 'asc' ? pts.instants : [...pts.instants].reverse()),
          q.order === 'desc',
          opted,
        );
      const kept = windows.kept(key);
      if (kept) return { ...frame, ...windowAnswer(kept) };
      if (!opts.positionWindow || (pts.instants.length <= IN_THREAD_POINTS && found.rows.to - found.rows.from <= IN_THREAD_ROWS)) {
        const task = input();
        return { ...frame, ...windowAnswer(task ? computePositionWindow(task) : EMPTY_WINDOW) };
      }
      const run = opts.positionWindow;
      return windows
        .get(key, () => {
          const task = input();
          return task ? run(task) : Promise.resolve(EMPTY_WINDOW);
        })
        .then((out) => ({ ...frame, ...windowAnswer(out) }));
    },

    activity(wallet, q) {
      const w = walletOf(world, wallet);
      const lo = w < 0 ? 0 : x.activityStart[w]!;
      const n = w < 0 ? 0 : src.activityEnd(w) - lo;
      // pick the page's rows (cheap), then format them (the cost: a few µs a row)
      const rows: number[] = [];
      const contexts: PositionContext[] = [];
      let more = false;
      for (let k = 0; k < n; k++) {
        const i = x.activity[lo + (q.order === 'asc' ? k : n - 1 - k)]!;
        const vaultId = vaultIdOf(t, i);
        if (q.vaultId !== null && vaultId !== q.vaultId) continue;
        const v = world.vaults.get(vaultId);
        // A named vault's rows come whatever include_hidden says: the real client's history and
        // settlement helpers cannot send it (DESIGN §5.2). Disabled vaults never show.
        if (!v || v.visibility === 'disabled' || (v.visibility === 'hidden' && !q.includeHidden && q.vaultId === null)) continue;
        if (q.after !== null) {
          const c = cmpKey(keyOf(t, i), q.after);
          if (q.order === 'asc' ? c <= 0 : c >= 0) continue;
        }
        if (rows.length === q.limit) {
          more = true;
          break;
        }
        const pctx = positionContext(world, vaultId);
        if (!pctx) continue;
        rows.push(i);
        contexts.push(pctx);
      }
      const last = rows.at(-1);
      const nextKey = more && last !== undefined ? keyOf(t, last) : null;
      const format = (from: number, to: number) => {
        let text = '';
        for (let k = from; k < to; k++) text += `${k === 0 ? '' : ','}${JSON.stringify(activityRowAt(t, rows[k]!, contexts[k]!))}`;
        return text;
      };
      const answer = (parts: Buffer[]) => ({ parts, count: rows.length, nextKey, partialErrors: [] });
      if (rows.length <= IN_THREAD_ROWS_FORMATTED) return answer(rows.length === 0 ? [] : [Buffer.from(format(0, rows.length))]);
      // a long page is formatted a slice per turn of the event loop: other requests go between
      return (async () => {
        const parts: Buffer[] = [];
        for (let from = 0; from < rows.length; from += IN_THREAD_ROWS_FORMATTED) {
          if (from > 0) await new Promise((resume) => setImmediate(resume));
          parts.push(Buffer.from(format(from, Math.min(rows.length, from + IN_THREAD_ROWS_FORMATTED))));
        }
        return answer(parts);
      })();
    },

    requests(wallet, q) {
      // the newest data known (a view: at or before its instant), as the world built to that instant has it
      const now = model.dataEnd;
      const parts: string[] = [];
      let more = false;
      let last = -1;
      const reqs = walletRequests(wallet);
      for (let k = reqs.length - 1; k >= 0; k--) {
        const req = reqs[k]!;
        const i = req.opened;
        const vaultId = vaultIdOf(t, i);
        if (q.vaultId !== null && vaultId !== q.vaultId) continue;
        const v = world.vaults.get(vaultId);
        // the activity route's rule: a named vault's rows whatever include_hidden says; disabled never
        if (!v || v.visibility === 'disabled' || (v.visibility === 'hidden' && !q.includeHidden && q.vaultId === null)) continue;
        if (q.after !== null && cmpKey(keyOf(t, i), q.after) >= 0) continue;
        const item = requestItemOf(t, req, v.numeraire_decimals, world.requestTerms, now);
        if (q.status !== 'all' && item.status !== q.status) continue;
        if (parts.length === q.limit) {
          more = true;
          break;
        }
        parts.push(JSON.stringify(item));
        last = i;
      }
      return {
        parts: parts.length === 0 ? [] : [Buffer.from(parts.join(','))],
        count: parts.length,
        nextKey: more && last >= 0 ? keyOf(t, last) : null,
        partialErrors: [],
      };
    },

    requestItems(wallet) {
      // the newest data known (a view: at or before its instant), as the world built to that instant has it
      const now = model.dataEnd;
      const out: RequestItem[] = [];
      for (const req of walletRequests(wallet)) {
        const v = world.vaults.get(vaultIdOf(t, req.opened));
        if (!v || v.visibility === 'disabled') continue;
        out.push(requestItemOf(t, req, v.numeraire_decimals, world.requestTerms, now));
      }
      return out;
    },

    price(chainId, address, at) {
      const found = token(chainId, address);
      if (!found) return { missing: `no USD price for token ${address.toLowerCase()} on chain ${chainId}` };
      if (at === undefined) return snapshot.priceBodies.get(found.key)!;
      const { latest, series } = found;
      const i = asOfIndex(series.ts, series.ts.length, at);
      if (i < 0) return { missing: `no USD price for token ${latest.address} on chain ${chainId} at or before ${isoSeconds(at)}` };
      return priceBody({ ...latest, price: { decimals: latest.price.decimals, usd: series.usd_f[i]! }, timestamp: isoSeconds(series.ts[i]!) });
    },

    priceWindow(chainId, address, q) {
      const found = token(chainId, address);
      if (!found) return { missing: `no USD price for token ${address.toLowerCase()} on chain ${chainId}` };
      const points =
        q.granularity === 'raw' ? rawPrices(found.series, q.start, q.end, q.limit) : gridPrices(found.series, q.granularity, q.start, q.end, q.limit);
      return Buffer.from(JSON.stringify({ data: points }));
    },

    chainHeads() {
      const chains = new Set(world.registry.vaults.filter((v) => v.visibility !== 'disabled').map((v) => v.chain_id));
      return [...chains]
        .sort((a, b) => a - b)
        .map((chain_id) => {
          const head = world.chainHeads.get(chain_id);
          return { chain_id, latest_block: head?.block ?? null, latest_timestamp: head?.ts ?? null, stalled: head?.stalled ?? false };
        });
    },

    vaultApy: (vaultId, at) => audit.vaultApy(vaultId, at),
    vaultDetailWith: (vaultId, include) => audit.vaultDetail(vaultId, include),

    vaultListWith({ includeHidden, after, limit }) {
      const list = includeHidden ? snapshot.vaultList.withHidden : snapshot.vaultList.visible;
      const from = vaultListFrom(list, after);
      const slice = list.slice(from, from + limit);
      const last = slice.at(-1);
      const more = from + limit < list.length;
      return {
        parts: audit.vaultItems(list, from, limit),
        count: slice.length,
        nextKey: more && last ? [listedAt(last.vault_id), last.vault_id] : null,
        partialErrors: [],
        offset: from,
      };
    },

    vaultWindowWith(vaultId, q) {
      const s = world.series.get(vaultId);
      const first = s && s.length > 0 ? s.ts[0]! : null;
      const last = s && s.length > 0 ? s.ts[s.length - 1]! : null;
      const start = q.start ?? first ?? 0;
      const end = q.end ?? last ?? 0;
      const pts = audit.vaultQualityPoints(vaultId, { granularity: q.granularity, start, end, order: q.order, limit: q.limit, after: q.after });
      const answer = (parts: Buffer[]): WindowAnswer => ({
        parts,
        count: pts.count,
        nextKey: pts.nextKey,
        start: q.start !== undefined || first !== null ? iso(start) : null,
        end: q.end !== undefined || last !== null ? iso(end) : null,
        startS: start,
        endS: end,
      });
      return pts.parts instanceof Promise ? pts.parts.then(answer) : answer(pts.parts);
    },

    positionsWith(wallet, q, o) {
      const page = positionsPage(wallet, q);
      const items = audit.positionItems(
        wallet,
        page.list.map((p) => ({ p, vaultId: vaultIds[x.posVault[p]!]! })),
        o,
      );
      const answer = (parts: Buffer[]) => ({ parts, count: page.list.length, nextKey: page.nextKey, partialErrors: page.partialErrors });
      return items instanceof Promise ? items.then(answer) : answer(items);
    },

    positionWith(wallet, vaultId, o) {
      const found = findPosition(wallet, vaultId);
      const plain = model.position(wallet, vaultId);
      if (!found || !Buffer.isBuffer(plain)) return plain;
      const items = audit.positionItems(wallet, [{ p: found.p, vaultId }], o);
      return items instanceof Promise ? items.then((parts) => parts[0]!) : items[0]!;
    },

    lots(wallet, vaultId, q) {
      const page = audit.lots(wallet, vaultId, q);
      const answer = (a: { count: number; nextKey: number | null; parts: Buffer[] }): ItemsAnswer<number> => ({ ...a, partialErrors: [] });
      if (page instanceof Promise) return page.then(answer);
      return 'missing' in page ? page : answer(page);
    },
  };
  return Object.freeze(model);
}

const EMPTY_WINDOW: PositionWindowOutput = { json: new Uint8Array(0), count: 0, deflated: null };

/** The task of a window of position `p` (in vault `vaultId`) at `instants`; null when the vault is not registered. */
function positionWindowInput(
  world: Snapshot['world'],
  vaultId: string,
  p: number,
  to: number,
  instants: Float64Array,
  desc: boolean,
  options?: PointOptions,
): PositionWindowInput | null {
  const vault = vaultInputOf(world, vaultId);
  const x = world.walletIndex;
  if (!vault) return null;
  // deflated on the worker when the answer may be compressed (DESIGN §5.6: over 1 KiB)
  return {
    kind: 'positionWindow',
    events: eventColumns(world),
    rows: x.rows,
    from: x.rowStart[p]!,
    to,
    vault,
    instants,
    desc,
    deflate: instants.length > 2,
    ...(options ? { options } : {}),
  };
}

/** A worker's window as the answer's parts and prepared deflate pieces. */
function windowAnswer(out: PositionWindowOutput): Pick<PointsAnswer, 'parts' | 'count' | 'deflated'> {
  const json = Buffer.from(out.json.buffer, out.json.byteOffset, out.json.byteLength);
  const d = out.deflated;
  const deflated: DeflatedItems | null = d && {
    src: [Buffer.from(d.bytes.buffer, d.bytes.byteOffset, d.bytes.byteLength)],
    at: [0, d.bytes.byteLength],
    stored: [false],
    crc: d.crc,
    length: d.length,
  };
  return { parts: out.count > 0 ? [json] : [], count: out.count, ...(deflated ? { deflated: () => deflated } : {}) };
}

/**
 * Windows of position histories being computed or kept, by key: a request for a window being
 * computed shares its task; finished ones stay until POSITION_WINDOW_CACHE_BYTES is passed
 * (oldest use out first). Past POSITION_WINDOWS_IN_FLIGHT tasks a new one is refused.
 */
function createWindowCache() {
  const done = new Map<string, { out: PositionWindowOutput; bytes: number }>();
  const running = new Map<string, Promise<PositionWindowOutput>>();
  let bytes = 0;
  return {
    /** a finished window, now the most recently used */
    kept(key: string): PositionWindowOutput | undefined {
      const hit = done.get(key);
      if (!hit) return undefined;
      done.delete(key);
      done.set(key, hit);
      return hit.out;
    },
    get(key: string, compute: () => Promise<PositionWindowOutput>): Promise<PositionWindowOutput> {
      const pending = running.get(key);
      if (pending) return pending;
      if (running.size >= POSITION_WINDOWS_IN_FLIGHT) {
        throw new VaultdError('NOT_READY', `${running.size} position histories are being computed now; retry in a second`);
      }
      const task = compute().then(
        (out) => {
          running.delete(key);
          const size = out.json.byteLength + (out.deflated?.bytes.byteLength ?? 0);
          if (size <= POSITION_WINDOW_CACHE_BYTES / 4) {
            done.set(key, { out, bytes: size });
            bytes += size;
            for (const [k, v] of done) {
              if (bytes <= POSITION_WINDOW_CACHE_BYTES) break;
              done.delete(k);
              bytes -= v.bytes;
            }
          }
          return out;
        },
        (err) => {
          running.delete(key);
          throw err;
        },
      );
      running.set(key, task);
      return task;
    },
  };
}

/**
 * Cold series blocks built on the pool: a block asked for while its task runs waits for that
 * task; past POSITION_WINDOWS_IN_FLIGHT tasks a new one is refused (503).
 */
function createBlockBuilder(world: Snapshot['world'], run: ((task: SeriesBlocksInput) => Promise<SeriesBlocksOutput>) | undefined) {
  const running = new Map<string, Promise<void>>();
  let tasks = 0;
  return {
    build(vaultId: string, sb: SeriesBuffer, granularity: Granularity, order: 'asc' | 'desc', cold: number[]): Promise<void> {
      const key = (b: number) => `${vaultId}|${granularity}|${order}|${b}`;
      const waits = cold.map((b) => running.get(key(b))).filter((p) => p !== undefined);
      const fresh = cold.filter((b) => !running.has(key(b)));
      if (fresh.length > 0) {
        const vault = vaultInputOf(world, vaultId);
        if (!vault) return Promise.resolve();
        if (tasks >= POSITION_WINDOWS_IN_FLIGHT) throw new VaultdError('NOT_READY', `${tasks} series windows are being built now; retry in a second`);
        tasks++;
        const task = (run ?? (async (t: SeriesBlocksInput) => computeSeriesBlocks(t)))({ kind: 'seriesBlocks', vault, granularity, blocks: fresh, order })
          .then((out) =>
            putBlocks(
              sb,
              order,
              out.blocks.map(({ b, block }) => ({ b, block: asBuffers(block) })),
            ),
          )
          .finally(() => {
            tasks--;
            for (const b of fresh) running.delete(key(b));
          });
        for (const b of fresh) running.set(key(b), task);
        waits.push(task);
      }
      return Promise.all(waits).then(() => undefined);
    },
  };
}

/** A block that crossed from a worker: its byte arrays as Buffers again (a clone keeps only the bytes). */
function asBuffers(block: Block): Block {
  const buf = (u: Uint8Array) => (Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength));
  return {
    ...block,
    buf: buf(block.buf),
    ...(block.small ? { small: { bytes: buf(block.small.bytes), at: block.small.at } } : {}),
    ...(block.large ? { large: { bytes: buf(block.large.bytes), at: block.large.at } } : {}),
  };
}

/** Items serialized and joined by commas, as `JSON.stringify` of their array has them between its brackets. */
function joined(list: readonly unknown[]): Buffer[] {
  if (list.length === 0) return [];
  let text = JSON.stringify(list[0]);
  for (let k = 1; k < list.length; k++) text += `,${JSON.stringify(list[k])}`;
  return [Buffer.from(text)];
}

const keyOf = (t: EventTable, i: number): ActivityKey => [t.ts[i]!, t.chain_id[i]!, t.block_number[i]!, t.log_index[i]!, t.sub_index[i]!];
function cmpKey(a: ActivityKey, b: ActivityKey): number {
  for (let i = 0; i < 5; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** isoSeconds remembered: window bounds repeat across pages and clients (bounded, cleared when full). */
const isoMemo = new Map<number, string>();
function iso(seconds: number): string {
  let text = isoMemo.get(seconds);
  if (text === undefined) {
    if (isoMemo.size >= 4096) isoMemo.clear();
    isoMemo.set(seconds, (text = isoSeconds(seconds)));
  }
  return text;
}

type PricePoint = { price: { usd: number }; timestamp: string };

function rawPrices(s: PriceSeries, start: number, end: number, limit: number): PricePoint[] {
  const out: PricePoint[] = [];
  for (let i = Math.max(0, asOfIndex(s.ts, s.ts.length, start - 1) + 1); i < s.ts.length && s.ts[i]! <= end && out.length < limit; i++) {
    out.push({ price: { usd: s.usd_f[i]! }, timestamp: isoSeconds(s.ts[i]!) });
  }
  return out;
}

function gridPrices(s: PriceSeries, granularity: Granularity, start: number, end: number, limit: number): PricePoint[] {
  const { instants, indices } = gridWindow(s.ts, s.ts.length, granularity, { start, end, order: 'asc', limit });
  return instants.map((at, k) => ({ price: { usd: s.usd_f[indices[k]!]! }, timestamp: isoSeconds(at) }));
}
