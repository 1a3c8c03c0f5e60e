// A least-recently-used map bounded in entries and in bytes: the caches of answers about the
// past (as_of, DESIGN §11.6) hold what random instants asked for, so they must forget.

export interface BoundedCache<K, V> {
  /** the value, now the most recently used */
  get(key: K): V | undefined;
  /** keeps `value` (its size in bytes: `bytes`), dropping the least recently used past either bound (down to 1/32 below it) */
  set(key: K, value: V, bytes?: number): void;
  readonly size: number;
  readonly bytes: number;
}

/** `evicted`: told of each value dropped to stay within the bounds (not of one replaced under its key). */
export function createBoundedCache<K, V>(bounds: { entries: number; bytes?: number; evicted?: (key: K, value: V) => void }): BoundedCache<K, V> {
  const map = new Map<K, { value: V; bytes: number }>();
  const maxBytes = bounds.bytes ?? Number.POSITIVE_INFINITY;
  const lowEntries = bounds.entries - Math.floor(bounds.entries / 32);
  const lowBytes = Number.isFinite(maxBytes) ? maxBytes - Math.floor(maxBytes / 32) : maxBytes;
  let bytes = 0;
  return {
    get(key) {
      const hit = map.get(key);
      if (!hit) return undefined;
      map.delete(key);
      map.set(key, hit);
      return hit.value;
    },
    set(key, value, size = 0) {
      const old = map.get(key);
      if (old) {
        map.delete(key);
        bytes -= old.bytes;
      }
      // one value past the whole byte budget is not kept (it would empty the cache for nothing)
      if (size > maxBytes) return;
      map.set(key, { value, bytes: size });
      bytes += size;
      if (map.size <= bounds.entries && bytes <= maxBytes) return;
      // past a bound, down to 1/32 below it: a walk from the oldest skips the holes deletes leave
      // at the front of a Map, so evicting in batches keeps a full cache's set cheap
      for (const [k, v] of map) {
        if (map.size <= lowEntries && bytes <= lowBytes) break;
        map.delete(k);
        bytes -= v.bytes;
        bounds.evicted?.(k, v.value);
      }
    },
    get size() {
      return map.size;
    },
    get bytes() {
      return bytes;
    },
  };
}
