// Reads raw events out of DuckDB into the resident event table (model/events.ts) without a
// string or an object per row: the repeating strings (vault, wallet, counterparty, token, kind,
// request hash) are read once each as distinct values, numbered into the table's dictionaries,
// and joined back in SQL as integers (store/vaultEvents.ts); block and transaction hashes
// arrive as 64-bit words parsed by DuckDB; numbers and amounts are copied from the chunks'
// vector memory.
import type { SharedArena } from '../../model/arena.js';
import type { EventTable } from '../../model/events.js';
import { createEventTable, HASH_WORDS, withCapacity, type Dictionary } from '../../model/events.js';
import type { Store } from '../../store/store.js';
import {
  countEvents,
  dropEventDictionaries,
  EVENT_DICTIONARIES,
  renumberEventDictionary,
  stageEventDictionary,
  streamEvents,
  type EventDictionary,
  type EventSpan,
} from '../../store/vaultEvents.js';
import { float64Items, hugeintBytes, int32Items, uint64Items, uint8Items } from './vectorMemory.js';

export type { EventSpan } from '../../store/vaultEvents.js';

const DICTIONARY: Record<EventDictionary, (t: EventTable) => Dictionary> = {
  vaults: (t) => t.dict.vaults,
  wallets: (t) => t.dict.wallets,
  tokens: (t) => t.dict.tokens,
  kinds: (t) => t.dict.kinds,
  requests: (t) => t.dict.requests,
};

export interface LoadEventsOptions {
  /** rows of room left for later appends */
  spare?: number;
  /**
   * read block and transaction hashes (default true). Only pages show them: a batch recompute
   * leaves them out (the activity table takes them from vault_events), which halves the read.
   */
  hashes?: boolean;
  /** a stop: the read ends between chunks (throwing the signal's reason) */
  signal?: AbortSignal;
  /** carve a new table from this memory while it has the room (model/arena.ts) */
  arena?: SharedArena;
}

/**
 * Append the events of `span` (their rows must all come after `into`'s rows in world order) to
 * `into` (a new table when null). Returns the table holding them: `into` itself when it had the
 * room, else a grown copy sharing its dictionaries.
 */
export async function loadEventTable(store: Store, into: EventTable | null, span: EventSpan = {}, opts: LoadEventsOptions = {}): Promise<EventTable> {
  const spare = opts.spare ?? 0;
  const n = await countEvents(store, span);
  const base = into ?? createEventTable(n + spare, undefined, opts.arena);
  const table = withCapacity(base, base.length + n + (n > 0 ? spare : 0));
  if (n === 0) return table;

  const hashes = opts.hashes ?? true;
  if (!hashes) table.hasHashes = false;
  try {
    for (const name of EVENT_DICTIONARIES) await mapDictionary(store, name, span, DICTIONARY[name](table));
    await readRows(store, span, table, hashes, opts.signal);
  } finally {
    await dropEventDictionaries(store);
  }
  return table;
}

/**
 * Number the span's distinct values of dictionary `name` in `dict` (new ones are added). The
 * ids go back to the staged table only when they are not simply the next ones in order (a first
 * load).
 */
async function mapDictionary(store: Store, name: EventDictionary, span: EventSpan, dict: Dictionary): Promise<void> {
  const base = dict.size;
  const list = await stageEventDictionary(store, name, span, base);
  if (list.length === 0) return;
  const ids = list.map((v) => dict.id(v));
  if (ids.every((id, j) => id === base + j)) return;
  await renumberEventDictionary(store, name, ids);
}

async function readRows(store: Store, span: EventSpan, t: EventTable, hashes: boolean, signal?: AbortSignal): Promise<void> {
  let at = t.length;
  await streamEvents(
    store,
    span,
    hashes,
    (chunk) => {
      const n = chunk.rowCount;
      const col = (c: number) => chunk.getColumnVector(c);
      t.chain_id.set(float64Items(col(0)), at);
      t.block_number.set(float64Items(col(1)), at);
      t.log_index.set(int32Items(col(2)), at);
      t.sub_index.set(int32Items(col(3)), at);
      t.ts.set(float64Items(col(4)), at);
      t.vault.set(int32Items(col(5)), at);
      t.kind.set(uint8Items(col(6)), at);
      t.wallet.set(int32Items(col(7)), at);
      t.counterparty.set(int32Items(col(8)), at);
      t.token.set(int32Items(col(9)), at);
      t.request.set(int32Items(col(10)), at);
      bytesOf(t.assets.words).set(hugeintBytes(col(11)), at * 16);
      bytesOf(t.shares.words).set(hugeintBytes(col(12)), at * 16);
      if (!hashes) {
        at += n;
        t.length = at;
        return;
      }
      // words interleaved per row, copied as 32-bit halves (no BigInt per value)
      const dst = new Uint32Array(t.hashes.buffer, t.hashes.byteOffset, t.hashes.length * 2);
      for (let k = 0; k < HASH_WORDS; k++) {
        const w = uint64Items(col(14 + k));
        const src = new Uint32Array(w.buffer, w.byteOffset, 2 * n);
        for (let r = 0, o = (at * HASH_WORDS + k) * 2; r < n; r++, o += 2 * HASH_WORDS) {
          dst[o] = src[2 * r]!;
          dst[o + 1] = src[2 * r + 1]!;
        }
      }
      const ok = uint8Items(col(13));
      for (let r = 0; r < n; r++) {
        if (ok[r] === 1) continue;
        t.oddHashes.set(at + r, { block_hash: col(14 + HASH_WORDS).getItem(r) as string, tx_hash: col(15 + HASH_WORDS).getItem(r) as string });
      }
      at += n;
      t.length = at;
    },
    signal,
  );
}

const bytesOf = (a: BigUint64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
