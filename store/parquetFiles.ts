// Parquet files in and out of DuckDB (DESIGN §10, issue #39 "shards past one box"): the raw
// tables exported for object storage (`vaultd export`) and read back into a scratch database
// (`recompute --shard … --from DIR`), and a shard's computed results (`recompute --shard`,
// read by `recompute --merge`). Parquet has no 128-bit integer (DuckDB writes a HUGEINT as a
// DOUBLE, losing digits), so HUGEINT columns travel as their exact decimal text and are cast
// back on import.
import { PRICE_PROVIDER_ERRORS } from './settings.js';
import { PUBLISH_INPUT_TABLES, RAW_AND_REGISTRY_TABLES } from './publishInputs.js';
import type { DuckDBAppender } from '@duckdb/node-api';
import type { Store } from './store.js';

/** What an export holds: every table a snapshot is built from, and the one setting the world reads. */
export const EXPORTED_TABLES = [...PUBLISH_INPUT_TABLES, 'settings'] as const;

/** Rows of `settings` an export carries: none of its secrets (cursor secret, publish identity). */
const EXPORTED_SETTINGS = [PRICE_PROVIDER_ERRORS];

const quoted = (path: string) => `'${path.replaceAll("'", "''")}'`;
const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** `table`'s columns as an export selects them (HUGEINT as exact text). */
async function exportColumns(store: Store, table: string): Promise<string> {
  const cols = await store.rows<{ name: string; type: string }>(
    'parquet.columns',
    'SELECT column_name AS name, data_type AS type FROM duckdb_columns() WHERE table_name = $1 AND schema_name = current_schema() ORDER BY column_index',
    [table],
  );
  return cols.map((c) => (c.type === 'HUGEINT' ? `${ident(c.name)}::VARCHAR AS ${ident(c.name)}` : ident(c.name))).join(', ');
}

/** Write `table` to `path` as Parquet, in a stable order (the same rows give the same file); returns its row count. */
export async function exportTable(store: Store, table: (typeof EXPORTED_TABLES)[number], path: string): Promise<number> {
  const where = table === 'settings' ? ` WHERE key IN (${EXPORTED_SETTINGS.map((k) => quoted(k)).join(', ')})` : '';
  const columns = await exportColumns(store, table);
  await store.run(`export.${table}`, `COPY (SELECT ${columns} FROM ${ident(table)}${where} ORDER BY ALL) TO ${quoted(path)} (FORMAT parquet)`);
  return rowsIn(store, path);
}

/** Rows of a Parquet file (from its metadata). */
export async function rowsIn(store: Store, path: string): Promise<number> {
  const r = await store.one<{ n: bigint | number }>('parquet.rows', `SELECT count(*) AS n FROM read_parquet(${quoted(path)})`);
  return Number(r?.n ?? 0);
}

/** Replace `table`'s rows with the file's (a scratch database built from an export). */
export async function importTable(store: Store, table: (typeof EXPORTED_TABLES)[number], path: string): Promise<void> {
  await store.run(`import.${table}.clear`, `DELETE FROM ${ident(table)}`);
  await store.run(`import.${table}`, `INSERT INTO ${ident(table)} BY NAME SELECT * FROM read_parquet(${quoted(path)})`);
}

/** Row counts of the raw and registry tables, and the newest hourly snapshot and event (the raw data's identity beside its stamp). */
export async function rawSummary(store: Store): Promise<{ rows: Record<string, number>; max_snapshot_ts: string | null; max_event_ts: string | null }> {
  const counts = RAW_AND_REGISTRY_TABLES.map((t) => `(SELECT count(*) FROM ${ident(t)}) AS ${ident(t)}`).join(', ');
  const r = (await store.one<Record<string, bigint | number>>('raw.counts', `SELECT ${counts}`))!;
  const rows: Record<string, number> = {};
  for (const t of RAW_AND_REGISTRY_TABLES) rows[t] = Number(r[t]);
  const ts = (await store.one<{ s: string | null; e: string | null }>(
    'raw.max_ts',
    "SELECT strftime(max(ts), '%Y-%m-%dT%H:%M:%SZ') AS s, (SELECT strftime(max(ts), '%Y-%m-%dT%H:%M:%SZ') FROM vault_events) AS e FROM vault_snapshots",
  ))!;
  return { rows, max_snapshot_ts: ts.s, max_event_ts: ts.e };
}

// ---- a shard's results: one row per vault (its computed unit-price columns as little-endian
// arrays) and one row per position (its item and returns JSON, flags, skipped rows)

export interface ShardSeriesRow {
  vault_id: string;
  length: number;
  /** `length` doubles */
  unit_price_f: Uint8Array;
  /** `length` 128-bit words (two 64-bit little-endian words each) */
  unit_price: Uint8Array;
}

export interface ShardPositionRow {
  position: number;
  wallet: string;
  vault_id: string;
  flags: number;
  item: Uint8Array;
  returns: Uint8Array | null;
  skipped_rows: number | null;
  skipped_message: string | null;
}

/** Write the shard's series rows to `path` (Parquet) through a scratch table of `store`. */
export function writeShardSeries(store: Store, path: string, rows: readonly ShardSeriesRow[]): Promise<void> {
  return writeThroughScratch(store, path, rows, {
    label: 'shard.series',
    table: 'shard_series',
    columns: 'vault_id VARCHAR, length INTEGER, unit_price_f BLOB, unit_price BLOB',
    order: 'vault_id',
    append: (a, r) => {
      a.appendVarchar(r.vault_id);
      a.appendInteger(r.length);
      a.appendBlob(r.unit_price_f);
      a.appendBlob(r.unit_price);
    },
  });
}

/** Write the shard's position rows to `path` (Parquet) through a scratch table of `store`. */
export function writeShardPositions(store: Store, path: string, rows: readonly ShardPositionRow[]): Promise<void> {
  return writeThroughScratch(store, path, rows, {
    label: 'shard.positions',
    table: 'shard_positions',
    columns: 'position INTEGER, wallet VARCHAR, vault_id VARCHAR, flags UTINYINT, item BLOB, "returns" BLOB, skipped_rows INTEGER, skipped_message VARCHAR',
    order: 'position',
    append: (a, r) => {
      a.appendInteger(r.position);
      a.appendVarchar(r.wallet);
      a.appendVarchar(r.vault_id);
      a.appendUTinyInt(r.flags);
      a.appendBlob(r.item);
      if (r.returns) a.appendBlob(r.returns);
      else a.appendNull();
      if (r.skipped_rows === null) a.appendNull();
      else a.appendInteger(r.skipped_rows);
      if (r.skipped_message === null) a.appendNull();
      else a.appendVarchar(r.skipped_message);
    },
  });
}

/** Rows appended to a scratch table of `store` (created anew), copied to `path` as Parquet in `order`, then dropped. */
async function writeThroughScratch<R>(
  store: Store,
  path: string,
  rows: readonly R[],
  spec: { label: string; table: string; columns: string; order: string; append: (a: DuckDBAppender, row: R) => void },
): Promise<void> {
  await store.run(`${spec.label}.create`, `CREATE OR REPLACE TABLE ${spec.table} (${spec.columns})`);
  const a = await store.appender(spec.table);
  try {
    for (const r of rows) {
      spec.append(a, r);
      a.endRow();
    }
    a.flushSync();
  } finally {
    a.closeSync();
  }
  await store.run(`${spec.label}.write`, `COPY (SELECT * FROM ${spec.table} ORDER BY ${spec.order}) TO ${quoted(path)} (FORMAT parquet)`);
  await store.run(`${spec.label}.drop`, `DROP TABLE ${spec.table}`);
}

export async function readShardSeries(store: Store, path: string): Promise<ShardSeriesRow[]> {
  return store.rows<ShardSeriesRow>('shard.series.read', `SELECT vault_id, length, unit_price_f, unit_price FROM read_parquet(${quoted(path)})`);
}

export async function readShardPositions(store: Store, path: string): Promise<ShardPositionRow[]> {
  return store.rows<ShardPositionRow>(
    'shard.positions.read',
    `SELECT position, wallet, vault_id, flags, item, "returns", skipped_rows, skipped_message FROM read_parquet(${quoted(path)}) ORDER BY position`,
  );
}
