// Reads raw events out of DuckDB into the resident event table (model/events.ts) without a
// string or an object per row: the repeating strings (vault, wallet, counterparty, token, kind,
// request hash) are read once each as distinct values, numbered into the table's dictionaries,
// and joined back in SQL as integers; block and transaction hashes arrive as 64-bit words
// parsed by DuckDB; numbers and amounts are copied from the chunks' vector memory.
import type { EventTable } from '../../model/events.js';
import { createEventTable, HASH_WORDS, NONE, withCapacity, type Dictionary } from '../../model/events.js';
import type { Store } from '../../store/store.js';
import { float64Items, hugeintBytes, int32Items, uint64Items, uint8Items } from './vectorMemory.js';

const CANONICAL = `'0x[0-9a-f]{64}'`;

/** Dictionary columns: the temp table of each, and the SQL of its distinct values among the selected rows. */
function dictionaryQueries(rows: string): { name: string; pick: (t: EventTable) => Dictionary; sql: string }[] {
  return [
    { name: 'vaults', pick: (t) => t.dict.vaults, sql: `SELECT DISTINCT vault_id FROM ${rows}` },
    { name: 'wallets', pick: (t) => t.dict.wallets, sql: `SELECT wallet FROM ${rows} UNION SELECT counterparty FROM ${rows} WHERE counterparty IS NOT NULL` },
    { name: 'tokens', pick: (t) => t.dict.tokens, sql: `SELECT DISTINCT token FROM ${rows}` },
    { name: 'kinds', pick: (t) => t.dict.kinds, sql: `SELECT DISTINCT kind FROM ${rows}` },
    { name: 'requests', pick: (t) => t.dict.requests, sql: `SELECT DISTINCT request_hash FROM ${rows} WHERE request_hash IS NOT NULL` },
  ];
}

export interface LoadEventsOptions {
  /** rows of room left for later appends */
  spare?: number;
  /**
   * read block and transaction hashes (default true). Only pages show them: a batch recompute
   * leaves them out (the activity table takes them from vault_events), which halves the read.
   */
  hashes?: boolean;
}

/**
 * Append the events matching `where` (SQL over vault_events' columns; rows must all come after
 * `into`'s rows in world order) to `into` (a new table when null). Returns the table holding
 * them: `into` itself when it had the room, else a grown copy sharing its dictionaries.
 */
export async function loadEventTable(store: Store, into: EventTable | null, where = '', opts: LoadEventsOptions = {}): Promise<EventTable> {
  const spare = opts.spare ?? 0;
  const rows = `(SELECT * FROM vault_events ${where})`;
  const countRow = await store.one<{ n: number }>('load.events.count', `SELECT count(*)::DOUBLE AS n FROM ${rows}`);
  const n = countRow?.n ?? 0;
  const base = into ?? createEventTable(n + spare);
  const table = withCapacity(base, base.length + n + (n > 0 ? spare : 0));
  if (n === 0) return table;

  const hashes = opts.hashes ?? true;
  if (!hashes) table.hasHashes = false;
  const dicts = dictionaryQueries(rows);
  try {
    for (const d of dicts) await mapDictionary(store, d.name, d.sql, d.pick(table));
    await readRows(store, rows, table, hashes);
  } finally {
    for (const d of dicts) await store.run('load.events.undict', `DROP TABLE IF EXISTS vaultd_dict_${d.name}`);
  }
  return table;
}

/**
 * Number the distinct values `sql` selects in `dict` (new ones are added) and leave them in the
 * temp table vaultd_dict_<name>(value, k, id) for the join. The values cross once, as one
 * newline-joined string (decoding 300 k strings one by one costs ~1.5 s here; one string, ms).
 * The ids go back only when they are not simply the next ones in order (a first load).
 */
async function mapDictionary(store: Store, name: string, sql: string, dict: Dictionary): Promise<void> {
  const table = `vaultd_dict_${name}`;
  const base = dict.size;
  await store.run(
    'load.events.dict',
    `CREATE OR REPLACE TEMP TABLE ${table} AS SELECT v AS value, (row_number() OVER (ORDER BY v))::INTEGER AS k, (k - 1 + ${base})::INTEGER AS id FROM (${sql}) d(v)`,
  );
  const row = await store.one<{ n: number; joined: string | null; newline: boolean | null }>(
    'load.events.dict.values',
    `SELECT count(*)::DOUBLE AS n, string_agg(value, chr(10) ORDER BY k) AS joined, bool_or(contains(value, chr(10))) AS newline FROM ${table}`,
  );
  const count = row?.n ?? 0;
  if (count === 0) return;
  const list = row!.newline
    ? // a value with a newline in it: read them one by one (never the case for addresses or hashes)
      (await store.rows<{ value: string }>('load.events.dict.slow', `SELECT value FROM ${table} ORDER BY k`)).map((r) => r.value)
    : row!.joined!.split('\n');
  if (list.length !== count) throw new Error(`dictionary ${name}: read ${list.length} of ${count} values`);
  const ids = list.map((v) => dict.id(v));
  if (ids.every((id, j) => id === base + j)) return;
  await store.run(
    'load.events.dict.ids',
    `CREATE OR REPLACE TEMP TABLE ${table} AS SELECT value, k, ids[k]::INTEGER AS id FROM ${table}, (SELECT string_split($1, ',')::INTEGER[] AS ids)`,
    [ids.join(',')],
  );
}

const word = (col: string, k: number) => `('0x' || substr(${col}, ${3 + 16 * k}, 16))::UBIGINT`;

async function readRows(store: Store, rows: string, t: EventTable, hashes: boolean): Promise<void> {
  const hashWords = hashes
    ? [0, 1, 2, 3]
        .map((k) => `CASE WHEN ok THEN ${word('block_hash', k)} ELSE 0 END`)
        .concat([0, 1, 2, 3].map((k) => `CASE WHEN ok THEN ${word('tx_hash', k)} ELSE 0 END`))
    : new Array<string>(HASH_WORDS).fill('0::UBIGINT');
  const canonical = hashes ? `regexp_full_match(e.block_hash, ${CANONICAL}) AND regexp_full_match(e.tx_hash, ${CANONICAL})` : 'true';
  // without hashes the two VARCHAR columns are not read at all (the odd-hash columns are NULLs)
  const hashColumns = hashes ? 'CASE WHEN NOT ok THEN block_hash END, CASE WHEN NOT ok THEN tx_hash END' : 'NULL::VARCHAR, NULL::VARCHAR';
  const innerHashes = hashes ? 'e.block_hash, e.tx_hash,' : '';
  const result = await store.stream(
    'load.events',
    `SELECT chain_id, block_number, log_index, sub_index, ts, vault, kind, wallet, counterparty, token, request, assets, shares,
            ok::UTINYINT, ${hashWords.join(', ')}, ${hashColumns}
       FROM (SELECT e.chain_id::DOUBLE AS chain_id, e.block_number::DOUBLE AS block_number, e.log_index, e.sub_index,
                    epoch(e.ts)::DOUBLE AS ts, dv.id AS vault, dk.id::UTINYINT AS kind, dw.id AS wallet,
                    coalesce(dc.id, ${NONE}) AS counterparty, dt.id AS token, coalesce(dr.id, ${NONE}) AS request,
                    e.assets, e.shares, ${innerHashes}
                    ${canonical} AS ok
               FROM ${rows} e
               JOIN vaultd_dict_vaults dv ON dv.value = e.vault_id
               JOIN vaultd_dict_kinds dk ON dk.value = e.kind
               JOIN vaultd_dict_wallets dw ON dw.value = e.wallet
               JOIN vaultd_dict_tokens dt ON dt.value = e.token
               LEFT JOIN vaultd_dict_wallets dc ON dc.value = e.counterparty
               LEFT JOIN vaultd_dict_requests dr ON dr.value = e.request_hash)
      ORDER BY ts, chain_id, block_number, log_index, sub_index`,
  );
  let at = t.length;
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
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
      continue;
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
  }
}

const bytesOf = (a: BigUint64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
