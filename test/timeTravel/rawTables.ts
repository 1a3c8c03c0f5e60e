// Test helper: two database files compared table by table (DESIGN §11.6, the prefix-stable demo
// world): every registry and raw table, restricted to the rows with time ≤ t, with EXCEPT ALL
// both ways in one DuckDB connection that attaches both files read-only.
import type { Store } from '../../store/store.js';
import { createStore } from '../../store/store.js';
import { testCommon } from '../helpers/common.js';

/** Each compared table and the condition that keeps its rows up to `t` (a TIMESTAMP expression); `db` names the attached file. */
const COMPARED: Record<string, (db: string, t: string) => string> = {
  chains: () => 'true',
  strategies: () => 'true',
  tokens: () => 'true',
  tvl_sources: () => 'true',
  vaults: (_, t) => `listed_at <= ${t}`,
  // a group is written with its first listed vault
  vault_groups: (db, t) => `id IN (SELECT group_id FROM ${db}.vaults WHERE listed_at <= ${t})`,
  vault_snapshots: (_, t) => `ts <= ${t}`,
  vault_events: (_, t) => `ts <= ${t}`,
  prices: (_, t) => `ts <= ${t}`,
  allocations: (_, t) => `as_of <= ${t}`,
  tvl_source_values: (_, t) => `ts <= ${t}`,
  chain_requests: () => 'true',
  // a request's terms come with its request event (same vault, hash and block)
  request_terms: (db, t) =>
    `(vault_id, request_hash, block_number) IN (SELECT (vault_id, request_hash, block_number) FROM ${db}.vault_events WHERE ts <= ${t} AND request_hash IS NOT NULL)`,
  block_hashes: (_, t) => `ts <= ${t}`,
};
/** Tables that are not the world's data: derived by a recompute, a job's state, the file's own bookkeeping. */
const NOT_COMPARED = new Set([
  'settings',
  'schema_migrations',
  'api_keys',
  'ingest_checkpoints',
  'ingest_status',
  'price_feeds',
  'vault_metrics_hourly',
  'positions',
  'activity_deltas',
  'activity',
]);
/** Tables whose restricted rows must not be empty, so a comparison of nothing cannot pass. */
const NON_EMPTY = ['vaults', 'vault_groups', 'vault_snapshots', 'vault_events', 'prices', 'allocations', 'tvl_source_values', 'request_terms'];

export interface TableDiff {
  table: string;
  /** rows up to t in a, in b */
  rows: [number, number];
  onlyA: number;
  onlyB: number;
  /** a few rows of the difference, for the failure message */
  sample: unknown[];
}

export interface PrefixComparison {
  /** tables of either file neither compared nor known as not the world's data */
  unknown: string[];
  /** tables whose restricted rows are empty in a */
  empty: string[];
  diffs: TableDiff[];
  /** compared tables with their row counts (up to t) */
  counts: Record<string, number>;
}

/** Compare the files `a` and `b` up to `t` (Unix seconds; null: every row). */
export async function compareUpTo(a: string, b: string, t: number | null): Promise<PrefixComparison> {
  const store = await createStore(testCommon(), { path: ':memory:' });
  try {
    await store.run('test.attach', `ATTACH '${a}' AS wa (READ_ONLY)`);
    await store.run('test.attach', `ATTACH '${b}' AS wb (READ_ONLY)`);
    const names = await store.rows<{ db: string; name: string }>(
      'test.tables',
      "SELECT database_name AS db, table_name AS name FROM duckdb_tables() WHERE database_name IN ('wa', 'wb') AND schema_name = 'main'",
    );
    const unknown = [...new Set(names.map((n) => n.name))].filter((n) => !(n in COMPARED) && !NOT_COMPARED.has(n)).sort();
    const ts = t === null ? "TIMESTAMP '9999-12-31'" : `make_timestamp(${t}::BIGINT * 1000000)`;
    const diffs: TableDiff[] = [];
    const counts: Record<string, number> = {};
    const empty: string[] = [];
    for (const [table, cond] of Object.entries(COMPARED)) {
      const side = (db: string) => `SELECT * FROM ${db}.${table} WHERE ${cond(db, ts)}`;
      const count = async (db: string) => Number((await store.one<{ n: bigint }>('test.count', `SELECT count(*) AS n FROM (${side(db)})`))!.n);
      const rows: [number, number] = [await count('wa'), await count('wb')];
      counts[table] = rows[0];
      if (NON_EMPTY.includes(table) && rows[0] === 0) empty.push(table);
      const onlyA = await except(store, `${side('wa')} EXCEPT ALL ${side('wb')}`);
      const onlyB = await except(store, `${side('wb')} EXCEPT ALL ${side('wa')}`);
      if (onlyA.n > 0 || onlyB.n > 0) diffs.push({ table, rows, onlyA: onlyA.n, onlyB: onlyB.n, sample: [...onlyA.sample, ...onlyB.sample] });
    }
    return { unknown, empty, diffs, counts };
  } finally {
    await store.close();
  }
}

async function except(store: Store, sql: string): Promise<{ n: number; sample: unknown[] }> {
  const n = Number((await store.one<{ n: bigint }>('test.except', `SELECT count(*) AS n FROM (${sql})`))!.n);
  const sample = n === 0 ? [] : await store.rows('test.except.sample', `SELECT * FROM (${sql}) LIMIT 3`);
  return { n, sample };
}
