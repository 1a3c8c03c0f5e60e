// Raw vault events (table vault_events, DESIGN §3): the engine's streamed read into its resident
// event table (engine/load/loadEvents.ts) — the repeating strings numbered once each in temp
// dictionary tables and joined back as integers, hashes parsed into 64-bit words — and the
// indexer's rollback past a fork point.
import { HASH_WORDS, NONE } from '../model/events.js';
import { forEachChunk, type OnChunk } from './chunkStream.js';
import type { Store } from './store.js';

/**
 * Which events: those with ts in (after, until] (unix s); a missing bound is open. `pass`: only
 * those stagePassEvents staged (a recompute pass's vaults').
 */
export interface EventSpan {
  after?: number;
  until?: number;
  pass?: boolean;
}

const PASS_EVENTS = 'vaultd_pass_events';
const POSITION_IDS = 'vaultd_position_ids';

function selected(span: EventSpan): string {
  const where: string[] = [];
  if (span.after !== undefined) where.push(`epoch(ts) > ${Number(span.after)}`);
  if (span.until !== undefined) where.push(`epoch(ts) <= ${Number(span.until)}`);
  return `(SELECT * FROM ${span.pass ? PASS_EVENTS : 'vault_events'}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''})`;
}

/** `vaults` as the list of an IN (…): quoted literals, or NULL (matches nothing) for none. */
const inList = (vaults: readonly string[]) => (vaults.length === 0 ? 'NULL' : vaults.map((s) => `'${s.replaceAll("'", "''")}'`).join(', '));

/**
 * Stage the events of `vaults` (a recompute pass's) in a temp table, read once from vault_events:
 * the load's dictionaries, count and rows then read only them (`{ pass: true }`).
 */
export async function stagePassEvents(store: Store, vaults: readonly string[]): Promise<void> {
  await store.run('recompute.pass.events', `CREATE OR REPLACE TEMP TABLE ${PASS_EVENTS} AS SELECT * FROM vault_events WHERE vault_id IN (${inList(vaults)})`);
}

/**
 * Stage every position's id as a load of all events numbers it (engine/publish/walletIndex.ts):
 * positions — (wallet, vault) pairs — in the world order (ts, chain, block, log, sub-index) of
 * their first event, from 0 (a struct orders by its fields in turn; an aggregate and a sort,
 * both of which DuckDB spills to disk past its memory limit). A recompute in passes loads each
 * pass's events alone and names their positions by these ids.
 */
export async function stagePositionIds(store: Store): Promise<void> {
  await store.run(
    'recompute.position_ids',
    `CREATE OR REPLACE TEMP TABLE ${POSITION_IDS} AS
       SELECT wallet, vault_id, (row_number() OVER (ORDER BY first) - 1)::INTEGER AS p
         FROM (SELECT wallet, vault_id, min({'ts': ts, 'chain_id': chain_id, 'block_number': block_number, 'log_index': log_index, 'sub_index': sub_index}) AS first
                 FROM vault_events GROUP BY wallet, vault_id)`,
  );
}

/** The staged ids (stagePositionIds) of the positions in `vaults`. */
export function positionIdsOf(store: Store, vaults: readonly string[]): Promise<{ wallet: string; vault_id: string; p: number }[]> {
  return store.rows('recompute.pass.position_ids', `SELECT wallet, vault_id, p FROM ${POSITION_IDS} WHERE vault_id IN (${inList(vaults)})`);
}

/** Events per vault id. */
export async function eventCountsByVault(store: Store): Promise<Map<string, number>> {
  const rows = await store.rows<{ vault_id: string; n: number }>(
    'recompute.event_counts',
    'SELECT vault_id, count(*)::DOUBLE AS n FROM vault_events GROUP BY vault_id',
  );
  return new Map(rows.map((r) => [r.vault_id, r.n]));
}

/** Drop what stagePassEvents and stagePositionIds staged. */
export async function dropPassTables(store: Store): Promise<void> {
  await store.run('recompute.pass.drop', `DROP TABLE IF EXISTS ${PASS_EVENTS}`);
  await store.run('recompute.pass.drop', `DROP TABLE IF EXISTS ${POSITION_IDS}`);
}

export async function countEvents(store: Store, span: EventSpan): Promise<number> {
  const row = await store.one<{ n: number }>('load.events.count', `SELECT count(*)::DOUBLE AS n FROM ${selected(span)}`);
  return row?.n ?? 0;
}

/** The event columns read through a dictionary, each a temp table vaultd_dict_<name>(value, k, id). */
export type EventDictionary = 'vaults' | 'wallets' | 'tokens' | 'kinds' | 'requests';
export const EVENT_DICTIONARIES: readonly EventDictionary[] = ['vaults', 'wallets', 'tokens', 'kinds', 'requests'];

function distinctValues(name: EventDictionary, rows: string): string {
  switch (name) {
    case 'vaults':
      return `SELECT DISTINCT vault_id FROM ${rows}`;
    case 'wallets':
      return `SELECT wallet FROM ${rows} UNION SELECT counterparty FROM ${rows} WHERE counterparty IS NOT NULL`;
    case 'tokens':
      return `SELECT DISTINCT token FROM ${rows}`;
    case 'kinds':
      return `SELECT DISTINCT kind FROM ${rows}`;
    case 'requests':
      return `SELECT DISTINCT request_hash FROM ${rows} WHERE request_hash IS NOT NULL`;
  }
}

/**
 * Stage dictionary `name`: the distinct values of its column among the span's events, in value
 * order, numbered from `base` (ids base, base + 1, …), in its temp table. Returns the values in
 * that order. They cross once, as one newline-joined string (decoding 300 k strings one by one
 * costs ~1.5 s; one string, ms).
 */
export async function stageEventDictionary(store: Store, name: EventDictionary, span: EventSpan, base: number): Promise<string[]> {
  const table = `vaultd_dict_${name}`;
  await store.run(
    'load.events.dict',
    `CREATE OR REPLACE TEMP TABLE ${table} AS SELECT v AS value, (row_number() OVER (ORDER BY v))::INTEGER AS k, (k - 1 + ${Number(base)})::INTEGER AS id FROM (${distinctValues(name, selected(span))}) d(v)`,
  );
  const row = await store.one<{ n: number; joined: string | null; newline: boolean | null }>(
    'load.events.dict.values',
    `SELECT count(*)::DOUBLE AS n, string_agg(value, chr(10) ORDER BY k) AS joined, bool_or(contains(value, chr(10))) AS newline FROM ${table}`,
  );
  const count = row?.n ?? 0;
  if (count === 0) return [];
  const list = row!.newline
    ? // a value with a newline in it: read them one by one (never the case for addresses or hashes)
      (await store.rows<{ value: string }>('load.events.dict.slow', `SELECT value FROM ${table} ORDER BY k`)).map((r) => r.value)
    : row!.joined!.split('\n');
  if (list.length !== count) throw new Error(`dictionary ${name}: read ${list.length} of ${count} values`);
  return list;
}

/** Give the staged values of dictionary `name` other ids: `ids[k - 1]` for the k-th value. */
export async function renumberEventDictionary(store: Store, name: EventDictionary, ids: readonly number[]): Promise<void> {
  const table = `vaultd_dict_${name}`;
  await store.run(
    'load.events.dict.ids',
    `CREATE OR REPLACE TEMP TABLE ${table} AS SELECT value, k, ids[k]::INTEGER AS id FROM ${table}, (SELECT string_split($1, ',')::INTEGER[] AS ids)`,
    [ids.join(',')],
  );
}

export async function dropEventDictionaries(store: Store): Promise<void> {
  for (const name of EVENT_DICTIONARIES) await store.run('load.events.undict', `DROP TABLE IF EXISTS vaultd_dict_${name}`);
}

const CANONICAL = `'0x[0-9a-f]{64}'`;
const word = (col: string, k: number) => `('0x' || substr(${col}, ${3 + 16 * k}, 16))::UBIGINT`;

/**
 * The span's events in world order (ts, chain, block, log, sub-index), every dictionary staged,
 * as chunks of the columns (0) `chain_id` DOUBLE, (1) `block_number` DOUBLE, (2) `log_index`,
 * (3) `sub_index` INTEGER, (4) `ts` DOUBLE, (5) `vault` INTEGER, (6) `kind` UTINYINT, (7)
 * `wallet`, (8) `counterparty`, (9) `token`, (10) `request` INTEGER (dictionary ids; NONE for no
 * counterparty or request), (11) `assets`, (12) `shares` HUGEINT, (13) `ok` UTINYINT (1: both
 * hashes canonical), then HASH_WORDS UBIGINT words — the block hash's four, then the
 * transaction hash's (0 when not ok or without hashes) — and the two hashes as VARCHAR where
 * not ok (NULL otherwise). Without `hashes` neither hash column is read.
 */
export function streamEvents(store: Store, span: EventSpan, hashes: boolean, onChunk: OnChunk, signal?: AbortSignal): Promise<void> {
  const hashWords = hashes
    ? [0, 1, 2, 3]
        .map((k) => `CASE WHEN ok THEN ${word('block_hash', k)} ELSE 0 END`)
        .concat([0, 1, 2, 3].map((k) => `CASE WHEN ok THEN ${word('tx_hash', k)} ELSE 0 END`))
    : new Array<string>(HASH_WORDS).fill('0::UBIGINT');
  const canonical = hashes ? `regexp_full_match(e.block_hash, ${CANONICAL}) AND regexp_full_match(e.tx_hash, ${CANONICAL})` : 'true';
  // without hashes the two VARCHAR columns are not read at all (the odd-hash columns are NULLs)
  const hashColumns = hashes ? 'CASE WHEN NOT ok THEN block_hash END, CASE WHEN NOT ok THEN tx_hash END' : 'NULL::VARCHAR, NULL::VARCHAR';
  const innerHashes = hashes ? 'e.block_hash, e.tx_hash,' : '';
  return forEachChunk(
    store,
    'load.events',
    `SELECT chain_id, block_number, log_index, sub_index, ts, vault, kind, wallet, counterparty, token, request, assets, shares,
            ok::UTINYINT, ${hashWords.join(', ')}, ${hashColumns}
       FROM (SELECT e.chain_id::DOUBLE AS chain_id, e.block_number::DOUBLE AS block_number, e.log_index, e.sub_index,
                    epoch(e.ts)::DOUBLE AS ts, dv.id AS vault, dk.id::UTINYINT AS kind, dw.id AS wallet,
                    coalesce(dc.id, ${NONE}) AS counterparty, dt.id AS token, coalesce(dr.id, ${NONE}) AS request,
                    e.assets, e.shares, ${innerHashes}
                    ${canonical} AS ok
               FROM ${selected(span)} e
               JOIN vaultd_dict_vaults dv ON dv.value = e.vault_id
               JOIN vaultd_dict_kinds dk ON dk.value = e.kind
               JOIN vaultd_dict_wallets dw ON dw.value = e.wallet
               JOIN vaultd_dict_tokens dt ON dt.value = e.token
               LEFT JOIN vaultd_dict_wallets dc ON dc.value = e.counterparty
               LEFT JOIN vaultd_dict_requests dr ON dr.value = e.request_hash)
      ORDER BY ts, chain_id, block_number, log_index, sub_index`,
    onChunk,
    undefined,
    signal,
  );
}

/** Events of a chain in blocks after `block` (a reorg's common ancestor). */
export async function countEventsAfter(store: Store, chainId: number, block: number): Promise<number> {
  const row = await store.one<{ n: bigint }>(
    'ingest.rollback.count_events',
    'SELECT count(*) AS n FROM vault_events WHERE chain_id = $1 AND block_number > $2',
    [chainId, block],
  );
  return Number(row?.n ?? 0n);
}

export async function deleteEventsAfter(store: Store, chainId: number, block: number): Promise<void> {
  await store.run('ingest.rollback.events', 'DELETE FROM vault_events WHERE chain_id = $1 AND block_number > $2', [chainId, block]);
}
