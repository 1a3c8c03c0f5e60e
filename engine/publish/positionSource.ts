// Where the read model finds a wallet's positions: the items computed at publish for the
// latest data, or — for a view of the past (as_of, DESIGN §11.6) — items replayed to the view's
// instant on the compute pool (pastPositions.ts). Position ids are those of the whole index: they
// are the order in which positions first appear in the event stream, so a position that existed
// at an instant has the id a world cut at that instant would give it.
import type { World } from '../../model/world.js';
import { itemBytes } from '../positions/positionItems.js';

export interface PositionSource {
  /** where position p's rows end in the index (its rows in the view) */
  rowsEnd(p: number): number;
  /** where wallet w's activity rows end in the index */
  activityEnd(w: number): number;
  /** the items of wallet w's positions, ready: at once, or once the pool computed them */
  ready(w: number): undefined | Promise<void>;
  flags(p: number): number;
  bytes(p: number): Buffer;
  /** the items of `list` joined by commas, when the source makes them at once cheaper than item by item (else null) */
  listBytes?(list: number[]): Buffer | null;
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
