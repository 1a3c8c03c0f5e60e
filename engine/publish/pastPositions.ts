// Where a view of the past (as_of, DESIGN §11.6) finds a wallet's position items: replayed on
// the compute pool for the positions a request names, never on the serving thread, and kept.
// An item is a function of (position, rows by the instant, its vault's snapshot index by the
// instant): the hour fixes the index, the instant's rows the rest, so an item kept for one
// instant answers every instant of that hour with the same rows (a mid-hour instant after a
// row of that hour has another row count, hence its own item). The replay states behind the
// items are kept too, by (position, rows): a later instant resumes from the nearest earlier
// state instead of from the position's first row. Both caches are bounded.
import type { World } from '../../model/world.js';
import { ENABLED, eventColumns, HIDDEN, type PositionsShared, SKIPPED, VALUED, vaultInputOf, walletIndexColumns } from '../positions/positionItems.js';
import type { PackedState, PastPositionsInput, PastPositionsOutput } from '../positions/pastPositionsTask.js';
import { computePastPositions } from '../positions/pastPositionsTask.js';
import { createBoundedCache } from './boundedCache.js';
import type { PositionSource } from './positionSource.js';
import { asOfIndex } from '../series/asOf.js';

/** Items kept per snapshot, by (position, rows, snapshot index): entries and bytes. */
export const PAST_ITEMS_KEPT = 65_536;
export const PAST_ITEMS_BYTES = 32 * 1024 * 1024;
/** Replay states kept per snapshot, and per position at most (the closest pair is thinned first). */
export const REPLAY_STATES_KEPT = 16_384;
export const REPLAY_STATES_PER_POSITION = 32;

/** Positions valued by one pool task at most (the misses of one turn beyond it go in another). */
export const BATCH_POSITIONS = 512;

interface Miss {
  p: number;
  e: number;
  /** its vault's latest snapshot time at the instant */
  now: number;
  /** the vault's flag bits */
  base: number;
  key: number | string;
}

/** The misses of one turn, sent as one task once `go` is called (at the turn's end, or when full). */
interface Batch {
  wallets: number[];
  misses: Miss[];
  out: Promise<PastPositionsOutput>;
  go: () => void;
}

interface Item {
  flags: number;
  bytes: Buffer;
  skipped?: string;
}

export interface PastPositions {
  /** the position source of the view at instant `at` (its items kept by the view once ready) */
  at(t: number): PositionSource;
  /** counts (tests: the caches stay bounded; tasks are the replays sent to `run`) */
  stats(): { items: number; itemBytes: number; states: number; tasks: number; rowsReplayed: number };
}

/**
 * `world`: the published (latest) world. `run` replays on the compute pool (absent: on this
 * thread, for tests and tools).
 */
export function createPastPositions(world: World, run?: (task: PastPositionsInput) => Promise<PastPositionsOutput>): PastPositions {
  const x = world.walletIndex;
  const ev = world.events;
  const vaultIds = ev.dict.vaults.values;
  const items = createBoundedCache<number | string, Item>({ entries: PAST_ITEMS_KEPT, bytes: PAST_ITEMS_BYTES });
  const states = createStateStore();
  let shared: Omit<PositionsShared, 'vaults' | 'wallets'> | null = null;
  const vaultInputs = new Map<number, PositionsShared['vaults'][number]>();
  let tasks = 0;
  let rowsReplayed = 0;

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

  function at(t: number): PositionSource {
    const ends = new Map<number, number>();
    const kept = new Map<number, Item>();
    const running = new Map<number, Promise<void>>();
    const done = new Set<number>();
    const rowsEnd = (p: number): number => {
      let e = ends.get(p);
      if (e === undefined) ends.set(p, (e = cut(x.rows, x.rowStart[p]!, x.rowStart[p + 1]!, t)));
      return e;
    };

    function ready(w: number): undefined | Promise<void> {
      if (done.has(w)) return undefined;
      const pending = running.get(w);
      if (pending) return pending;
      const misses: Miss[] = [];
      for (let k = x.walletPosStart[w]!; k < x.walletPosStart[w + 1]!; k++) {
        const p = x.walletPos[k]!;
        const e = rowsEnd(p);
        // no rows by then, or a vault that is not listed by then: not a position of the view (flags 0)
        if (e === x.rowStart[p]) continue;
        const vaultId = vaultIds[x.posVault[p]!]!;
        const v = world.vaults.get(vaultId);
        const s = world.series.get(vaultId);
        if (!v || !s) continue;
        const i = asOfIndex(s.ts, s.length, t);
        if (i < 0) continue;
        // a disabled vault's positions are never served: no replay for them
        if (v.visibility === 'disabled') continue;
        const base = ENABLED | VALUED | (v.visibility === 'hidden' ? HIDDEN : 0);
        // (rows end, snapshot index) as one number: an end e > rowStart[p] names position p (its
        // rows are the range that ends there), and a string key per position per request costs a hash
        const key = e < 2 ** 32 && i < 2 ** 21 ? e * 2 ** 21 + i : `${e}|${i}`;
        const hit = items.get(key);
        if (hit) kept.set(p, hit);
        else misses.push({ p, e, now: s.ts[i]!, base, key });
      }
      if (misses.length === 0) {
        done.add(w);
        return undefined;
      }
      const keep = ({ out, at }: { out: PastPositionsOutput; at: number }) => {
        const json = Buffer.from(out.json.buffer, out.json.byteOffset, out.json.byteLength);
        misses.forEach((m, j) => {
          const k = at + j;
          // a copy: a kept slice would hold the whole task's output alive past the byte budget
          const bytes = Buffer.from(json.subarray(out.offsets[k]!, out.offsets[k + 1]!));
          const msg = out.flags[k]! & SKIPPED ? out.skipped.find(([p]) => p === m.p)?.[1] : undefined;
          const item: Item = { flags: m.base | out.flags[k]!, bytes, ...(msg !== undefined ? { skipped: msg } : {}) };
          items.set(m.key, item, bytes.length + 64);
          kept.set(m.p, item);
          const st = out.states[k];
          if (st) states.put(m.p, m.e, st);
        });
        done.add(w);
      };
      if (!run) {
        tasks++;
        keep({ out: computePastPositions(replayTask([w], misses)), at: 0 });
        return undefined;
      }
      const promise = enqueue(run, w, misses).then(keep);
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
      flags: (p) => kept.get(p)?.flags ?? 0,
      bytes: (p) => kept.get(p)!.bytes,
      skipped: (p) => kept.get(p)?.skipped,
    };
  }

  // Misses asked for in one turn of the event loop (the requests of one read of the sockets)
  // share one pool task: a round trip to a worker costs more than valuing a wallet's positions.
  let batch: Batch | null = null;
  function enqueue(runTask: NonNullable<typeof run>, w: number, misses: Miss[]): Promise<{ out: PastPositionsOutput; at: number }> {
    if (batch && batch.misses.length + misses.length > BATCH_POSITIONS) {
      batch.go();
      batch = null;
    }
    let b = batch;
    if (!b) {
      let go!: () => void;
      const started = new Promise<void>((resolve) => {
        go = resolve;
      });
      const fresh: Batch = { wallets: [], misses: [], out: null as unknown as Promise<PastPositionsOutput>, go };
      fresh.out = started.then(() => {
        tasks++;
        return runTask(replayTask(fresh.wallets, fresh.misses));
      });
      batch = b = fresh;
      setImmediate(() => {
        if (batch === fresh) batch = null;
        fresh.go();
      });
    }
    const at = b.misses.length;
    b.wallets.push(w);
    b.misses.push(...misses);
    return b.out.then((out) => ({ out, at }));
  }

  /** The task of wallets' missing items: each position resumes at its nearest kept state. */
  function replayTask(ws: number[], misses: Miss[]): PastPositionsInput {
    shared ??= { events: eventColumns(world), index: walletIndexColumns(world) };
    // only the vaults and the wallet the task names cross (sparse arrays: the items name them by index)
    const vaults: PositionsShared['vaults'] = [];
    const n = misses.length;
    const from = new Int32Array(n);
    const list = new Int32Array(n);
    const ends = new Int32Array(n);
    const nows = new Float64Array(n);
    const packed: (PackedState | null)[] = new Array(n);
    misses.forEach((m, k) => {
      const vi = x.posVault[m.p]!;
      let input = vaultInputs.get(vi);
      if (input === undefined) vaultInputs.set(vi, (input = vaultInputOf(world, vaultIds[vi]!)));
      vaults[vi] = input;
      const resume = states.best(m.p, m.e);
      list[k] = m.p;
      ends[k] = m.e;
      nows[k] = m.now;
      from[k] = resume ? resume.e : x.rowStart[m.p]!;
      packed[k] = resume ? resume.state : null;
      rowsReplayed += m.e - from[k]!;
    });
    const wallets: string[] = [];
    for (const w of ws) wallets[w] = ev.dict.wallets.values[w]!;
    return { kind: 'pastPositions', ...shared, vaults, wallets, list, from, states: packed, ends, nows };
  }

  return {
    at,
    stats: () => ({ items: items.size, itemBytes: items.bytes, states: states.size(), tasks, rowsReplayed }),
  };
}

/**
 * Replay states by position, each position's sorted by rows replayed; positions least recently
 * used go first past REPLAY_STATES_KEPT, and a position past REPLAY_STATES_PER_POSITION loses the
 * state closest to the one before it (the states stay spread over its rows).
 */
function createStateStore() {
  const byPosition = new Map<number, { ends: number[]; states: PackedState[] }>();
  let count = 0;
  return {
    best(p: number, e: number): { e: number; state: PackedState } | null {
      const entry = byPosition.get(p);
      if (!entry) return null;
      byPosition.delete(p);
      byPosition.set(p, entry);
      // the last kept end at or before e
      let lo = 0;
      let hi = entry.ends.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (entry.ends[mid]! <= e) lo = mid + 1;
        else hi = mid;
      }
      return lo === 0 ? null : { e: entry.ends[lo - 1]!, state: entry.states[lo - 1]! };
    },
    put(p: number, e: number, state: PackedState): void {
      let entry = byPosition.get(p);
      if (!entry) byPosition.set(p, (entry = { ends: [], states: [] }));
      let j = 0;
      while (j < entry.ends.length && entry.ends[j]! < e) j++;
      if (entry.ends[j] === e) return;
      entry.ends.splice(j, 0, e);
      entry.states.splice(j, 0, state);
      count++;
      if (entry.ends.length > REPLAY_STATES_PER_POSITION) {
        let drop = 1;
        for (let k = 2; k < entry.ends.length; k++) if (entry.ends[k]! - entry.ends[k - 1]! < entry.ends[drop]! - entry.ends[drop - 1]!) drop = k;
        entry.ends.splice(drop, 1);
        entry.states.splice(drop, 1);
        count--;
      }
      for (const [q, other] of byPosition) {
        if (count <= REPLAY_STATES_KEPT) break;
        byPosition.delete(q);
        count -= other.ends.length;
      }
    },
    size: () => count,
  };
}
