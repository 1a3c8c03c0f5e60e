// Where the read model finds a wallet's positions: the items computed at publish for the
// latest data, or — for a view of the past (as_of, DESIGN §11.6) — each position's rows up to
// the view's instant, replayed for the one wallet a request names (on the compute pool when
// long) and kept for the view's life. Position ids are those of the whole index: they are the
// order in which positions first appear in the event stream, so a position that existed at an
// instant has the id a world cut at that instant would give it.
import type { World } from '../../model/world.js';
import { itemBytes, type PositionsInput, type PositionsOutput, type PositionsShared, computePositions, positionsShared } from '../positions/positionItems.js';

export interface PositionSource {
  /** where position p's rows end in the index (its rows in the view) */
  rowsEnd(p: number): number;
  /** where wallet w's activity rows end in the index */
  activityEnd(w: number): number;
  /** the items of wallet w's positions, ready: at once, or once the pool computed them */
  ready(w: number): undefined | Promise<void>;
  flags(p: number): number;
  bytes(p: number): Buffer;
  /** the CORRUPT_ROWS_SKIPPED message of position p, if it skipped rows */
  skipped(p: number): string | undefined;
}

/** The items the publish computed (every position, valued at its vault's latest snapshot). */
export function publishedPositions(world: World): PositionSource {
  const items = world.positionItems;
  if (!items) throw new Error('a snapshot was published without its position items');
  const x = world.walletIndex;
  return {
    rowsEnd: (p) => x.rowStart[p + 1]!,
    activityEnd: (w) => x.activityStart[w + 1]!,
    ready: () => undefined,
    flags: (p) => items.flags[p]!,
    bytes: (p) => itemBytes(items, p),
    skipped: (p) => items.skipped.get(p)?.message,
  };
}

/** Rows a wallet's positions may hold to be replayed on the serving thread (a few ms); more go to the pool. */
export const IN_THREAD_REPLAY_ROWS = 4096;

/**
 * The positions of `view` — a world cut at instant `at` (engine/publish/asOfView.ts), whose
 * event table, series and prices end at `at` while its wallet index is the whole one — replayed
 * per wallet on first use. `run` computes on the pool (absent: in-thread).
 */
export function positionsAt(view: World, at: number, run?: (task: PositionsInput) => Promise<PositionsOutput>): PositionSource {
  const x = view.walletIndex;
  const ts = view.events.ts;
  const ends = new Map<number, number>();
  const flags = new Map<number, number>();
  const bytes = new Map<number, Buffer>();
  const skipped = new Map<number, string>();
  const computing = new Map<number, Promise<void>>();
  const computed = new Set<number>();
  let shared: PositionsShared | null = null;

  /** The end of [from, to) of row indexes (ascending block_timestamp) holding rows at or before `at`. */
  const cut = (idx: Int32Array, from: number, to: number): number => {
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ts[idx[mid]!]! <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const rowsEnd = (p: number): number => {
    let e = ends.get(p);
    if (e === undefined) ends.set(p, (e = cut(x.rows, x.rowStart[p]!, x.rowStart[p + 1]!)));
    return e;
  };

  function keep(out: PositionsOutput): void {
    const json = Buffer.from(out.json.buffer, out.json.byteOffset, out.json.byteLength);
    out.list.forEach((p, k) => {
      flags.set(p, out.flags[k]!);
      bytes.set(p, json.subarray(out.offsets[k]!, out.offsets[k + 1]!));
    });
    for (const [p, s] of out.skipped) skipped.set(p, s.message);
  }

  return {
    rowsEnd,
    activityEnd: (w) => cut(x.activity, x.activityStart[w]!, x.activityStart[w + 1]!),
    ready(w) {
      if (computed.has(w)) return undefined;
      const running = computing.get(w);
      if (running) return running;
      // the wallet's positions that had rows by then
      const list: number[] = [];
      const upTo: number[] = [];
      let rows = 0;
      for (let k = x.walletPosStart[w]!; k < x.walletPosStart[w + 1]!; k++) {
        const p = x.walletPos[k]!;
        const e = rowsEnd(p);
        if (e === x.rowStart[p]) continue;
        list.push(p);
        upTo.push(e);
        rows += e - x.rowStart[p]!;
      }
      shared ??= positionsShared(view, true);
      // only this wallet's address crosses (a sparse list: the items name it by its index)
      const wallets: string[] = [];
      wallets[w] = view.events.dict.wallets.values[w]!;
      const task: PositionsInput = {
        kind: 'positions',
        list: Int32Array.from(list),
        ends: Int32Array.from(upTo),
        table: false,
        json: true,
        ...shared,
        wallets,
      };
      if (!run || rows <= IN_THREAD_REPLAY_ROWS) {
        keep(computePositions(task));
        computed.add(w);
        return undefined;
      }
      const done = run(task).then((out) => {
        keep(out);
        computed.add(w);
      });
      computing.set(w, done);
      done.then(
        () => computing.delete(w),
        () => computing.delete(w),
      );
      return done;
    },
    flags: (p) => flags.get(p) ?? 0,
    bytes: (p) => bytes.get(p)!,
    skipped: (p) => skipped.get(p),
  };
}
