// Where a view of the past (as_of, DESIGN §11.6) finds a wallet's position items. A position's
// replay runs once, on the compute pool, over all of its rows: its timeline, the state after
// each row, is kept (by position: a wallet's positions are its (wallet, vault) pairs). An
// instant is then a binary search for the rows at or before it and a valuation of that state at
// its vault's snapshot by then (pastItem: a few bigint products, no replay), here. A view keeps
// the items it valued (an instant asked again while its view is kept is a lookup); no cache of
// items outlives the views: random instants rarely repeat, and a big cache of them turned over
// faster than the garbage collector liked. The timelines' cache is bounded, and a position too
// long to keep whole (TIMELINE_ROWS) is replayed on the pool to the rows each instant holds.
import type { World } from '../../model/world.js';
import { contextOf, ENABLED, eventColumns, HIDDEN, type PositionsShared, VALUED, vaultInputOf, walletIndexColumns } from '../positions/positionItems.js';
import { type PastBasis, pastBasis } from '../positions/positionMetrics.js';
import type { PositionContext } from '../positions/replayPosition.js';
import {
  computePastPositions,
  type PackedState,
  type PastPositionsInput,
  type PastPositionsOutput,
  pastItem,
  pastItemHead,
} from '../positions/pastPositionsTask.js';
import { asOfIndex } from '../series/asOf.js';
import { createBoundedCache } from './boundedCache.js';
import type { PositionSource } from './positionSource.js';

/** Positions whose timeline is kept per snapshot, and the states they may hold in all (~0.5 KB each). */
export const TIMELINES_KEPT = 16_384;
export const TIMELINE_STATES_KEPT = 131_072;
/**
 * A position with more rows than this is not replayed whole (a state per row would cross from
 * the pool and be kept): each instant asks the pool for the state at the rows it holds, not kept.
 */
export const TIMELINE_ROWS = 16_384;

/** Positions replayed by one pool task at most (the misses of one turn beyond it go in another). */
export const BATCH_POSITIONS = 512;

interface Miss {
  p: number;
  e: number;
  /** its vault's latest snapshot time at the instant */
  now: number;
  /** the vault's flag bits */
  base: number;
  /** the timeline it is valued from: p (the position's whole timeline) or −e (its state at rows end e alone) */
  key: number;
}

/** The positions to replay asked for in one turn, sent as one task once `go` is called (at the turn's end, or when full). */
interface Batch {
  /** the positions, and the rows end of each (0: all its rows) */
  list: number[];
  ends: number[];
  /** their timelines' keys (Miss.key) */
  named: Set<number>;
  /** the timelines of the batch's positions, once replayed */
  timelines: Promise<Map<number, Timeline>>;
  go: () => void;
}

/** A position's timeline, its states' bases (made at a state's first valuation) and its item JSON up to the metrics (at its first). */
interface Timeline {
  /** line[k]: the state after the position's first `first` + k rows */
  line: PackedState[];
  first: number;
  bases: (PastBasis | undefined)[];
  head: string | null;
}

const NO_BYTES = Buffer.alloc(0);

interface Item {
  flags: number;
  /** the item's JSON (null: a closed position, never served) and its bytes once asked for */
  json: string | null;
  bytes: Buffer | null;
  skipped?: string;
}

export interface PastPositions {
  /** the position source of the view at instant `at` (its items kept by the view once ready) */
  at(t: number, viewKept: () => boolean): PositionSource;
  /** counts (tests: the caches stay bounded; items and their bytes are the valuations made, tasks the replays sent to `run`, states the timelines' states kept) */
  stats(): { items: number; itemBytes: number; states: number; tasks: number; rowsReplayed: number };
}

/**
 * `world`: the published (latest) world. `run` replays on the compute pool (absent: on this
 * thread, for tests and tools).
 */
export function createPastPositions(
  world: World,
  run?: (task: PastPositionsInput) => Promise<PastPositionsOutput>,
  { timelineRows = TIMELINE_ROWS }: { timelineRows?: number } = {},
): PastPositions {
  const x = world.walletIndex;
  const ev = world.events;
  const vaultIds = ev.dict.vaults.values;
  let valued = 0;
  let valuedBytes = 0;
  let states = 0;
  const timelines = createBoundedCache<number, Timeline>({
    entries: TIMELINES_KEPT,
    bytes: TIMELINE_STATES_KEPT,
    evicted: (_p, tl) => {
      states -= tl.line.length;
    },
  });
  let shared: Omit<PastPositionsInput, 'kind' | 'list' | 'ends' | 'vaults'> | null = null;
  const vaultInputs = new Map<number, PositionsShared['vaults'][number]>();
  const contexts = new Map<number, PositionContext>();
  let tasks = 0;
  let rowsReplayed = 0;
  // each vault's row and series by its index in the events' dictionary (no lookup by id per position per request)
  const vaultRows = vaultIds.map((id) => world.vaults.get(id));
  const vaultSeries = vaultIds.map((id) => world.series.get(id));

  const vaultInput = (vi: number) => {
    let input = vaultInputs.get(vi);
    if (input === undefined) vaultInputs.set(vi, (input = vaultInputOf(world, vaultIds[vi]!)));
    return input!;
  };
  const contextAt = (vi: number): PositionContext => {
    let ctx = contexts.get(vi);
    if (ctx === undefined) contexts.set(vi, (ctx = contextOf(vaultInput(vi))!));
    return ctx;
  };
  const keepTimelines = (out: PastPositionsOutput): Map<number, Timeline> => {
    const got = new Map<number, Timeline>();
    out.list.forEach((p, k) => {
      const e = out.ends[k]!;
      if (e !== 0) {
        // one state of a long position, for the instant that asked: not kept
        got.set(-e, { line: out.timelines[k]!, first: e - x.rowStart[p]!, bases: [], head: null });
        return;
      }
      const tl: Timeline = { line: out.timelines[k]!, first: 1, bases: [], head: null };
      got.set(p, tl);
      // states are the budget's unit; one timeline past the whole budget is used, not kept
      if (timelines.get(p) === undefined && tl.line.length <= TIMELINE_STATES_KEPT) {
        states += tl.line.length;
        timelines.set(p, tl, tl.line.length);
      }
    });
    return got;
  };

  /** The end of [from, to) of row indexes (ascending block_timestamp) holding rows at or before `t`. */
  const cut = (idx: Int32Array, from: number, to: number, t: number): number => {
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ev.ts[idx[mid]!]! <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  function at(t: number, viewKept: () => boolean): PositionSource {
    const ends = new Map<number, number>();
    const items = new Map<number, Item>();
    const running = new Map<number, Promise<void>>();
    const done = new Set<number>();
    const rowsEnd = (p: number): number => {
      let e = ends.get(p);
      if (e === undefined) ends.set(p, (e = cut(x.rows, x.rowStart[p]!, x.rowStart[p + 1]!, t)));
      return e;
    };

    /** Values the misses of wallet w from their positions' timelines (this thread: no replay). */
    const value = (w: number, misses: Miss[], got: Map<number, Timeline> | null) => {
      for (const m of misses) {
        const tl = (got?.get(m.key) ?? timelines.get(m.key))!;
        const vi = x.posVault[m.p]!;
        tl.head ??= pastItemHead(vaultInput(vi), ev.dict.wallets.values[w]!);
        const r = m.e - x.rowStart[m.p]! - tl.first;
        const it = pastItem(tl.line[r]!, contextAt(vi), tl.head, m.now, (st) => (tl.bases[r] ??= pastBasis(st)));
        valued++;
        valuedBytes += it.json === null ? 0 : it.json.length;
        items.set(m.p, { flags: m.base | it.flags, json: it.json, bytes: it.json === null ? NO_BYTES : null, skipped: it.skipped });
      }
      done.add(w);
    };

    function ready(w: number): undefined | Promise<void> {
      if (done.has(w)) return undefined;
      const pending = running.get(w);
      if (pending) return pending;
      const misses: Miss[] = [];
      const replay: Miss[] = [];
      for (let k = x.walletPosStart[w]!; k < x.walletPosStart[w + 1]!; k++) {
        const p = x.walletPos[k]!;
        const e = rowsEnd(p);
        // no rows by then, or a vault that is not listed by then: not a position of the view (flags 0)
        if (e === x.rowStart[p]) continue;
        const vi = x.posVault[p]!;
        const v = vaultRows[vi];
        const s = vaultSeries[vi];
        if (!v || !s) continue;
        const i = asOfIndex(s.ts, s.length, t);
        if (i < 0) continue;
        // a disabled vault's positions are never served: no replay for them
        if (v.visibility === 'disabled') continue;
        const base = ENABLED | VALUED | (v.visibility === 'hidden' ? HIDDEN : 0);
        const m: Miss = { p, e, now: s.ts[i]!, base, key: x.rowStart[p + 1]! - x.rowStart[p]! > timelineRows ? -e : p };
        misses.push(m);
        if (m.key < 0 || timelines.get(p) === undefined) replay.push(m);
      }
      if (replay.length === 0) {
        value(w, misses, null);
        return undefined;
      }
      if (!run) {
        tasks++;
        const got = keepTimelines(
          computePastPositions(
            replayTask(
              replay.map((m) => m.p),
              replay.map((m) => (m.key < 0 ? m.e : 0)),
            ),
          ),
        );
        value(w, misses, got);
        return undefined;
      }
      const promise = enqueue(run, replay).then((got) => value(w, misses, got));
      running.set(w, promise);
      promise.then(
        () => running.delete(w),
        () => running.delete(w),
      );
      return promise;
    }

    return {
      rowsEnd,
      activityEnd: (w) => cut(x.activity, x.activityStart[w]!, x.activityStart[w + 1]!, t),
      ready,
      flags: (p) => items.get(p)?.flags ?? 0,
      bytes: (p) => {
        const item = items.get(p)!;
        item.bytes ??= Buffer.from(item.json!);
        return item.bytes;
      },
      // a view asked once encodes a list's items at once (one buffer, not one per item); a kept
      // view's items keep their bytes, for the next request at its instant
      listBytes: (list) => (viewKept() ? null : Buffer.from(list.map((p) => items.get(p)!.json).join(','))),
      skipped: (p) => items.get(p)?.skipped,
    };
  }

  // Positions to replay asked for in one turn of the event loop (the requests of one read of the
  // sockets) share one pool task: a round trip to a worker costs more than a position's replay.
  let batch: Batch | null = null;
  function enqueue(runTask: NonNullable<typeof run>, list: Miss[]): Promise<Map<number, Timeline>> {
    if (batch && batch.list.length + list.length > BATCH_POSITIONS) {
      batch.go();
      batch = null;
    }
    let b = batch;
    if (!b) {
      let go!: () => void;
      const started = new Promise<void>((resolve) => {
        go = resolve;
      });
      const fresh: Batch = { list: [], ends: [], named: new Set(), timelines: null as unknown as Batch['timelines'], go };
      fresh.timelines = started.then(() => {
        tasks++;
        return runTask(replayTask(fresh.list, fresh.ends)).then(keepTimelines);
      });
      batch = b = fresh;
      setImmediate(() => {
        if (batch === fresh) batch = null;
        fresh.go();
      });
    }
    // each timeline of the batch is named once (two views of one turn may ask for the same wallet)
    for (const m of list) {
      if (b.named.has(m.key)) continue;
      b.named.add(m.key);
      b.list.push(m.p);
      b.ends.push(m.key < 0 ? m.e : 0);
    }
    return b.timelines;
  }

  /** The task replaying `list`'s positions: over all their rows, or to the rows end `ends` gives. */
  function replayTask(list: number[], ends: number[]): PastPositionsInput {
    shared ??= { events: eventColumns(world), index: walletIndexColumns(world) };
    // only the vaults the positions are in cross (a sparse array: the task names them by index)
    const vaults: PositionsShared['vaults'] = [];
    list.forEach((p, k) => {
      const vi = x.posVault[p]!;
      vaults[vi] = vaultInput(vi);
      rowsReplayed += (ends[k] || x.rowStart[p + 1]!) - x.rowStart[p]!;
    });
    return { kind: 'pastPositions', ...shared, vaults, list: Int32Array.from(list), ends: Int32Array.from(ends) };
  }

  return {
    at,
    stats: () => ({ items: valued, itemBytes: valuedBytes, states, tasks, rowsReplayed }),
  };
}
