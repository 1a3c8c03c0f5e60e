// Bodies kept by ETag for If-None-Match revalidation (DESIGN §5.6): a small LRU of response
// texts (re-parsed on reuse, so callers never share a mutable body).

export interface EtagEntry {
  etag: string;
  text: string;
}

export interface EtagCache {
  get(key: string): EtagEntry | undefined;
  set(key: string, entry: EtagEntry): void;
}

export function createEtagCache(maxEntries = 500): EtagCache {
  const entries = new Map<string, EtagEntry>();
  return {
    get(key) {
      const e = entries.get(key);
      if (e !== undefined) {
        // Map order is the LRU order
        entries.delete(key);
        entries.set(key, e);
      }
      return e;
    },
    set(key, entry) {
      entries.delete(key);
      entries.set(key, entry);
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    },
  };
}
