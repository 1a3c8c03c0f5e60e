// Paged walks that stay on one snapshot generation (issue #11): a cursor names the generation
// its page was cut from; a server keeps the last few generations it published and answers the
// next page from the one the cursor names. A reader that has not yet loaded the named (newer)
// generation catches up first, so a walk spread over several readers behind a load balancer
// never mixes generations. Generations older than those kept are answered from the newest.
import { type CursorCodec, type CursorPin, cursorGeneration } from './cursor.js';
import type { ReadModel } from '../engine/publish/index.js';

/** Generations kept besides the newest (a walk may straddle this many publishes). */
export const KEEP_PREVIOUS = 2;

export interface Generations {
  publish(served: ReadModel): void;
  current(): ReadModel | null;
  /** The snapshot of generation `g`: kept, or (when newer than the newest) after `catchUp`; null when gone. */
  find(g: number, catchUp: () => Promise<void>): ReadModel | null | Promise<ReadModel | null>;
}

export function createGenerations(keep = KEEP_PREVIOUS): Generations {
  const kept: ReadModel[] = [];
  const lookup = (g: number) => kept.find((s) => s.generation === g) ?? null;
  return {
    publish(served) {
      const same = kept.findIndex((s) => s.generation === served.generation);
      if (same >= 0) kept.splice(same, 1);
      kept.push(served);
      while (kept.length > keep + 1) kept.shift();
    },
    current: () => kept.at(-1) ?? null,
    find(g, catchUp) {
      const hit = lookup(g);
      if (hit) return hit;
      const newest = kept.at(-1);
      if (newest && g > newest.generation) return catchUp().then(() => lookup(g));
      return null;
    },
  };
}

/**
 * The snapshot that answers a request: the newest, or the one its `next` cursor names when the
 * server keeps generations (`find`). Never null when a snapshot is served.
 */
export function servedFor(
  current: ReadModel | null,
  find: ((g: number) => ReadModel | null | Promise<ReadModel | null>) | undefined,
  query: string,
): ReadModel | null | Promise<ReadModel | null> {
  if (!find || !current || !query.includes('next=')) return current;
  const next = new URLSearchParams(query).get('next');
  const g = next ? cursorGeneration(next) : null;
  if (g === null || g === current.generation) return current;
  const found = find(g);
  if (found instanceof Promise)
    return found.then(
      (s) => s ?? current,
      () => current,
    );
  return found ?? current;
}

const bound = new WeakMap<ReadModel, { codec: CursorCodec; bound: CursorCodec }>();

/** `codec` writing `served`'s generation into every cursor it makes. */
export function cursorsFor(codec: CursorCodec, served: ReadModel | null): CursorCodec {
  if (!served) return codec;
  const hit = bound.get(served);
  if (hit && hit.codec === codec) return hit.bound;
  const g = served.generation;
  // every cursor pins the data its walk began on (DESIGN §11.6): made on the first encode
  let pin: CursorPin | undefined;
  const b: CursorCodec = {
    encode: (route, query, order, key) => codec.encode(route, query, order, key, g, (pin ??= served.pin())),
    decode: codec.decode,
    pinOf: codec.pinOf,
  };
  bound.set(served, { codec, bound: b });
  return b;
}
