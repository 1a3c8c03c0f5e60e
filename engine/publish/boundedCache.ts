// A map bounded in entries and in bytes: the caches of answers about the past (as_of, DESIGN
// §11.6) hold what random instants asked for, so they must forget. The order is kept by second
// chance (CLOCK), not by moving each used entry to the back: a use only stamps the entry, and
// past a bound the entries at the front used since they were put there go to the back instead
// of out. A Map delete and set per hit grew the Map's table per request, and those tables (and
// the values the dead ones still pointed at) lived long enough to be promoted: with 256 views
// kept, a random hour's vault detail spent most of its time in scavenges (bench/README.md).

export interface BoundedCache<K, V> {
  /** the value (now marked used: it gets a second chance when the cache is past a bound) */
  get(key: K): V | undefined;
  /**
   * keeps `value` (its size in bytes: `bytes`); one already kept under `key` is replaced in place.
   * Past either bound, drops entries not used since they were put (down to 1/32 below it).
   */
  set(key: K, value: V, bytes?: number): void;
  /** whether `key` is kept (not a use) */
  has(key: K): boolean;
  /** drops every entry, telling `evicted` of each */
  clear(): void;
  readonly size: number;
  readonly bytes: number;
}

interface Entry<V> {
  value: V;
  bytes: number;
  /** the use count when last used, and when put at the back */
  at: number;
  placed: number;
}

/**
 * `evicted`: told of each value dropped to stay within the bounds (not of one replaced under its
 * key, unless the new one is past the whole byte budget: then neither is kept) and by clear().
 * A value put past the whole budget is not kept and not told of: `has` says so.
 */
export function createBoundedCache<K, V>(bounds: { entries: number; bytes?: number; evicted?: (key: K, value: V) => void }): BoundedCache<K, V> {
  const map = new Map<K, Entry<V>>();
  const maxBytes = bounds.bytes ?? Number.POSITIVE_INFINITY;
  const lowEntries = bounds.entries - Math.floor(bounds.entries / 32);
  const lowBytes = Number.isFinite(maxBytes) ? maxBytes - Math.floor(maxBytes / 32) : maxBytes;
  let bytes = 0;
  let uses = 0;
  return {
    get(key) {
      const hit = map.get(key);
      if (!hit) return undefined;
      hit.at = ++uses;
      return hit.value;
    },
    set(key, value, size = 0) {
      const old = map.get(key);
      if (old) {
        // one value past the whole byte budget is not kept, and the one it replaces is dropped
        // (told of, as of an eviction)
        if (size > maxBytes) {
          map.delete(key);
          bytes -= old.bytes;
          bounds.evicted?.(key, old.value);
          return;
        }
        // not a use: a view's pages growing is not a second request for its instant
        bytes += size - old.bytes;
        old.value = value;
        old.bytes = size;
      } else {
        // one value past the whole byte budget is not kept (it would empty the cache for nothing)
        if (size > maxBytes) return;
        const now = ++uses;
        map.set(key, { value, bytes: size, at: now, placed: now });
        bytes += size;
      }
      if (map.size <= bounds.entries && bytes <= maxBytes) return;
      // past a bound, down to 1/32 below it: a walk from the front (a Map walk skips the holes
      // deletes leave there, so evicting in batches keeps a full cache's set cheap); an entry
      // used since it was placed goes to the back once, unstamped, and is visited again; the
      // entry just set is never the one dropped
      for (const [k, e] of map) {
        if ((map.size <= lowEntries && bytes <= lowBytes) || map.size === 1) break;
        map.delete(k);
        if (k === key || e.at > e.placed) {
          e.placed = e.at = k === key ? e.at : ++uses;
          map.set(k, e);
          continue;
        }
        bytes -= e.bytes;
        bounds.evicted?.(k, e.value);
      }
    },
    has: (key) => map.has(key),
    clear() {
      const all = [...map];
      map.clear();
      bytes = 0;
      for (const [k, e] of all) bounds.evicted?.(k, e.value);
    },
    get size() {
      return map.size;
    },
    get bytes() {
      return bytes;
    },
  };
}
