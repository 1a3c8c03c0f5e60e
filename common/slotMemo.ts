// A memo of string-keyed values in a fixed number of slots: a key's slot is a hash of it, and
// a new key takes over its slot (direct-mapped, like a CPU cache). For the request path's memos
// (parsed queries, cursors), which traffic of distinct keys (random windows) fills as fast as
// requests come: a Map cleared when full kept every key and value it had held alive until the
// next mark-compact, because the cleared table's old-to-new slots still pointed at them, so
// all of it was promoted (~0.4 MB a scavenge at 12 k req/s, a mark-compact every ~2 s). Here a
// replaced entry is no longer referenced and dies young; a popular key keeps its slot.

import { fnv1a } from './fnv1a.js';

export class SlotMemo<V> {
  private readonly keys: (string | undefined)[];
  private readonly values: (V | undefined)[];
  private readonly mask: number;

  /** `slots`: a power of two */
  constructor(slots: number) {
    if (!Number.isInteger(Math.log2(slots)) || slots < 1) throw new RangeError(`slots must be a power of two, not ${slots}`);
    this.keys = new Array<string | undefined>(slots).fill(undefined);
    this.values = new Array<V | undefined>(slots).fill(undefined);
    this.mask = slots - 1;
  }

  /** The last key looked up and its slot: a miss is followed by a set of the same key, which need not hash it again. */
  private lastKey: string | undefined = undefined;
  private lastSlot = 0;

  /** The value remembered for `key`, or undefined. */
  get(key: string): V | undefined {
    const i = this.slot(key);
    this.lastKey = key;
    this.lastSlot = i;
    return this.keys[i] === key ? this.values[i] : undefined;
  }

  /** Remember `value` for `key`, replacing whatever its slot held. */
  set(key: string, value: V): void {
    const i = key === this.lastKey ? this.lastSlot : this.slot(key);
    this.keys[i] = key;
    this.values[i] = value;
  }

  /** FNV-1a of the key (short keys: a query, a cursor's payload), high bits folded in. */
  private slot(key: string): number {
    const h = fnv1a(key);
    return (h ^ (h >>> 15)) & this.mask;
  }
}
