// The raw events the engine keeps resident, as columns (DESIGN §1, §8): every string that
// repeats (vault, wallet, token, kind, request hash) is an index into a dictionary, block and
// transaction hashes are 256-bit words, amounts are 128-bit words, all on SharedArrayBuffers
// so pool workers read them without copies. Two million events take ~150 bytes each and no
// per-row object; a row object (EventRow) is made only where one row is formatted.
import { carve, type SharedArena } from './arena.js';
import { EVENT_KINDS, type EventKind, type EventRow } from './rows.js';
import { I128Array } from './int128.js';
import { ADDRESS_LENGTH, AddressIndex, NOT_AN_ADDRESS } from './addressIndex.js';

/** No dictionary entry (a NULL counterparty or request hash). */
export const NONE = -1;

/** Hash words per row: block hash (4), then transaction hash (4), most significant word first. */
export const HASH_WORDS = 8;

const CANONICAL_HASH = /^0x[0-9a-f]{64}$/;

/**
 * A growable list of distinct strings and their indexes. The index is built on first lookup:
 * a dictionary read back from files (400 k wallets and request hashes on the benchmark world)
 * costs a restart nothing until a request asks for one of them. Addresses (`0x` and 40
 * lowercase hex digits: wallets) are indexed by their bytes (model/addressIndex.ts), every
 * other string in a Map.
 */
export class Dictionary {
  readonly values: string[];
  private ids: Map<string, number> | null = null;
  private addresses: AddressIndex | null = null;

  constructor(values: string[] = []) {
    this.values = values;
  }

  private index(): Map<string, number> {
    if (this.ids === null) {
      const ids = new Map<string, number>();
      const addresses = new AddressIndex();
      // room for the values of an address's length only (request hashes are longer: none)
      let n = 0;
      let last = -1;
      this.values.forEach((v, k) => {
        if (v.length === ADDRESS_LENGTH) {
          n++;
          last = k;
        }
      });
      addresses.reserve(n, last);
      this.values.forEach((v, k) => {
        if (!addresses.add(v, k)) ids.set(v, k);
      });
      this.ids = ids;
      this.addresses = addresses;
    }
    return this.ids;
  }

  /** The index of `s`, added when new. */
  id(s: string): number {
    const k = this.find(s);
    if (k !== NONE) return k;
    const id = this.values.length;
    if (!this.addresses!.add(s, id)) this.ids!.set(s, id);
    this.values.push(s);
    return id;
  }

  /** The index of `s`, or NONE when it was never added. */
  find(s: string): number {
    const ids = this.index();
    const k = this.addresses!.find(s);
    return k !== NOT_AN_ADDRESS ? k : (ids.get(s) ?? NONE);
  }

  get size(): number {
    return this.values.length;
  }

  /** A dictionary of distinct `values`, in that order. */
  static of(values: readonly string[]): Dictionary {
    return new Dictionary([...values]);
  }
}

export interface EventDictionaries {
  vaults: Dictionary;
  wallets: Dictionary;
  tokens: Dictionary;
  /** EVENT_KINDS first (index = kind code), then any unknown kind met in the table */
  kinds: Dictionary;
  requests: Dictionary;
}

/**
 * Events in world order (ts, chain_id, block_number, log_index, sub_index), which is also the
 * wallet-wide activity order (DESIGN §4.6). Columns may be longer than `length` (room to
 * append); rows below `length` never change, so a published view with its own `length` keeps
 * reading exactly what it was published with while a refresh appends past it.
 */
export interface EventTable {
  length: number;
  chain_id: Float64Array;
  block_number: Float64Array;
  log_index: Int32Array;
  sub_index: Int32Array;
  /** Unix seconds */
  ts: Float64Array;
  vault: Int32Array;
  kind: Uint8Array;
  wallet: Int32Array;
  /** NONE for rows without one */
  counterparty: Int32Array;
  token: Int32Array;
  /** NONE for sync rows */
  request: Int32Array;
  /** magnitude, base units of the row's token */
  assets: I128Array;
  /** magnitude, 18-decimal share base units */
  shares: I128Array;
  /** HASH_WORDS per row */
  hashes: BigUint64Array;
  /** false when the hashes were not loaded (a batch recompute): the table must not be published */
  hasHashes: boolean;
  /** rows whose block or transaction hash is not 0x + 64 lowercase hex digits keep their strings here */
  oddHashes: Map<number, { block_hash: string; tx_hash: string }>;
  dict: EventDictionaries;
}

export function createDictionaries(): EventDictionaries {
  return { vaults: new Dictionary(), wallets: new Dictionary(), tokens: new Dictionary(), kinds: Dictionary.of(EVENT_KINDS), requests: new Dictionary() };
}

const round8 = (bytes: number) => Math.ceil(bytes / 8) * 8;

/** Bytes of a table with room for `capacity` rows (what createEventTable carves from an arena). */
export function eventTableBytes(capacity: number): number {
  const n = Math.max(capacity, 1);
  return 3 * 8 * n + 7 * round8(4 * n) + round8(n) + 2 * 16 * n + HASH_WORDS * 8 * n;
}

/** An empty table with room for `capacity` rows (in `arena` while it has the room: model/arena.ts). */
export function createEventTable(capacity: number, dict: EventDictionaries = createDictionaries(), arena?: SharedArena): EventTable {
  const n = Math.max(capacity, 1);
  const at = (bytes: number) => carve(arena, bytes);
  const f64 = () => {
    const { buffer, offset } = at(n * 8);
    return new Float64Array(buffer, offset, n);
  };
  const i32 = () => {
    const { buffer, offset } = at(n * 4);
    return new Int32Array(buffer, offset, n);
  };
  const u64 = (words: number) => {
    const { buffer, offset } = at(n * words * 8);
    return new BigUint64Array(buffer, offset, n * words);
  };
  const kind = at(n);
  return {
    length: 0,
    chain_id: f64(),
    block_number: f64(),
    log_index: i32(),
    sub_index: i32(),
    ts: f64(),
    vault: i32(),
    kind: new Uint8Array(kind.buffer, kind.offset, n),
    wallet: i32(),
    counterparty: i32(),
    token: i32(),
    request: i32(),
    assets: new I128Array(u64(2)),
    shares: new I128Array(u64(2)),
    hashes: u64(HASH_WORDS),
    hasHashes: true,
    oddHashes: new Map(),
    dict,
  };
}

export function capacityOf(t: EventTable): number {
  return t.ts.length;
}

/**
 * A table holding `t`'s rows with room for `capacity`: `t` itself when it has the room, else a
 * copy (the rows are copied, the dictionaries shared — they only grow).
 */
export function withCapacity(t: EventTable, capacity: number): EventTable {
  if (capacity <= capacityOf(t)) return t;
  const next = createEventTable(capacity, t.dict);
  const n = t.length;
  next.length = n;
  for (const k of ['chain_id', 'block_number', 'log_index', 'sub_index', 'ts', 'vault', 'kind', 'wallet', 'counterparty', 'token', 'request'] as const) {
    (next[k] as Float64Array).set((t[k] as Float64Array).subarray(0, n));
  }
  next.assets.words.set(t.assets.words.subarray(0, 2 * n));
  next.shares.words.set(t.shares.words.subarray(0, 2 * n));
  next.hashes.set(t.hashes.subarray(0, HASH_WORDS * n));
  next.oddHashes = new Map(t.oddHashes);
  next.hasHashes = t.hasHashes;
  return next;
}

/** A view of the table as it is now: later appends (past `length`) are not visible through it. */
export function frozenEvents(t: EventTable): EventTable {
  return { ...t, oddHashes: new Map(t.oddHashes) };
}

/** Write a 0x-prefixed 32-byte hash into `words` at `at` (4 words); false when it is not canonical. */
export function setHashWords(words: BigUint64Array, at: number, hash: string): boolean {
  if (!CANONICAL_HASH.test(hash)) return false;
  for (let k = 0; k < 4; k++) words[at + k] = BigInt(`0x${hash.slice(2 + 16 * k, 18 + 16 * k)}`);
  return true;
}

/** The hash at words [at, at + 4) as 0x + 64 lowercase hex digits. */
export function hashAt(words: BigUint64Array, at: number): string {
  let s = '0x';
  for (let k = 0; k < 4; k++) s += words[at + k]!.toString(16).padStart(16, '0');
  return s;
}

export function blockHash(t: EventTable, i: number): string {
  return t.oddHashes.get(i)?.block_hash ?? hashAt(t.hashes, i * HASH_WORDS);
}

export function txHash(t: EventTable, i: number): string {
  return t.oddHashes.get(i)?.tx_hash ?? hashAt(t.hashes, i * HASH_WORDS + 4);
}

export function kindOf(t: EventTable, i: number): EventKind {
  return t.dict.kinds.values[t.kind[i]!] as EventKind;
}

export function requestHash(t: EventTable, i: number): string | null {
  const r = t.request[i]!;
  return r === NONE ? null : t.dict.requests.values[r]!;
}

export function vaultIdOf(t: EventTable, i: number): string {
  return t.dict.vaults.values[t.vault[i]!]!;
}

/** Append one row given as strings and bigints (sources of a few rows, tests); grows the table when full. */
export function appendEventRow(t: EventTable, e: EventRow): EventTable {
  const table = t.length < capacityOf(t) ? t : withCapacity(t, Math.max(16, capacityOf(t) * 2));
  const i = table.length;
  const d = table.dict;
  table.chain_id[i] = e.chain_id;
  table.block_number[i] = e.block_number;
  table.log_index[i] = e.log_index;
  table.sub_index[i] = e.sub_index;
  table.ts[i] = e.ts;
  table.vault[i] = d.vaults.id(e.vault_id);
  table.kind[i] = d.kinds.id(e.kind);
  table.wallet[i] = d.wallets.id(e.wallet);
  table.counterparty[i] = e.counterparty === null ? NONE : d.wallets.id(e.counterparty);
  table.token[i] = d.tokens.id(e.token);
  table.request[i] = e.request_hash === null ? NONE : d.requests.id(e.request_hash);
  table.assets.set(i, e.assets);
  table.shares.set(i, e.shares);
  const at = i * HASH_WORDS;
  if (!(setHashWords(table.hashes, at, e.block_hash) && setHashWords(table.hashes, at + 4, e.tx_hash))) {
    table.hashes.fill(0n, at, at + HASH_WORDS);
    table.oddHashes.set(i, { block_hash: e.block_hash, tx_hash: e.tx_hash });
  }
  table.length = i + 1;
  return table;
}

/** A table of `rows`, which must already be in world order. */
export function eventTableOf(rows: readonly EventRow[], dict: EventDictionaries = createDictionaries()): EventTable {
  let t = createEventTable(rows.length, dict);
  for (const e of rows) t = appendEventRow(t, e);
  return t;
}

/** Row i as a plain object (formatting one row; tests). */
export function eventRow(t: EventTable, i: number): EventRow {
  const cp = t.counterparty[i]!;
  return {
    chain_id: t.chain_id[i]!,
    block_number: t.block_number[i]!,
    log_index: t.log_index[i]!,
    sub_index: t.sub_index[i]!,
    block_hash: blockHash(t, i),
    tx_hash: txHash(t, i),
    ts: t.ts[i]!,
    vault_id: vaultIdOf(t, i),
    kind: kindOf(t, i),
    wallet: t.dict.wallets.values[t.wallet[i]!]!,
    counterparty: cp === NONE ? null : t.dict.wallets.values[cp]!,
    token: t.dict.tokens.values[t.token[i]!]!,
    assets: t.assets.get(i),
    shares: t.shares.get(i),
    request_hash: requestHash(t, i),
  };
}

/** Every row as plain objects (tests, small worlds). */
export function eventRows(t: EventTable): EventRow[] {
  const out: EventRow[] = new Array(t.length);
  for (let i = 0; i < t.length; i++) out[i] = eventRow(t, i);
  return out;
}

/** The stable id of row i, as activity rows publish it. */
export function eventRowId(t: EventTable, i: number): string {
  return `${t.chain_id[i]}:${t.block_number[i]}:${t.log_index[i]}:${t.sub_index[i]}`;
}

/** Wallet-wide order (DESIGN §4.6) of rows i and j: negative when i comes first. */
export function compareEvents(t: EventTable, i: number, j: number): number {
  return (
    t.ts[i]! - t.ts[j]! ||
    t.chain_id[i]! - t.chain_id[j]! ||
    t.block_number[i]! - t.block_number[j]! ||
    t.log_index[i]! - t.log_index[j]! ||
    t.sub_index[i]! - t.sub_index[j]!
  );
}

/** Kind codes: the index of each kind in EVENT_KINDS (= its index in every table's kinds dictionary; events.test.ts holds them equal). */
export const KIND = {
  deposit: 0,
  deposit_pending: 1,
  deposit_refunded: 2,
  withdraw: 3,
  withdraw_pending: 4,
  withdraw_refunded: 5,
  transfer_in: 6,
  transfer_out: 7,
} as const satisfies { readonly [K in EventKind]: number };

/** Some rows of a table, in the order they apply: table rows idx[from..to). */
export interface RowSlice {
  table: EventTable;
  idx: Int32Array;
  from: number;
  to: number;
}

/** [0, 1, …, n − 1] */
export function identity(n: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/** `rows`, in the given order, as a slice of a table of their own (tests, one position). */
export function sliceOf(rows: readonly EventRow[]): RowSlice {
  const table = eventTableOf(rows);
  return { table, idx: identity(table.length), from: 0, to: table.length };
}
