// vault_metrics_hourly end to end (issue #9): `vaultd recompute --full` on the demo world writes
// the same typed table as DuckDB SQL alone (bench/series/sqlTwin.ts) — every column equal both
// ways, APYs within 1e-12 — and a database from before the typed columns (before migration 6, decimal
// strings) is upgraded: `vaultd serve` starts on it, and `vaultd recompute` without --full
// then writes every hour, equal to the SQL-only table again.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlMetricsTable, diffMetricsTables, runSqlTwin } from '../bench/series/sqlTwin.js';
import { MIGRATIONS } from '../store/migrations.js';
import { createStore, type Store } from '../store/store.js';
import { stopChildren, vaultd, vaultdSpawn, waitForListening } from './helpers/cli.js';
import { tempDir, testCommon } from './helpers/common.js';

const common = testCommon();
let dir: string;
let db: string;

beforeAll(() => {
  dir = tempDir('vaultd-metrics-table-');
  db = join(dir, 'demo.duckdb');
  const r = vaultd(['demo', '--db', db, '--seed', '7', '--now', '2026-06-01T00:00:00Z']);
  expect(r.status, r.stderr).toBe(0);
});
afterAll(async () => {
  await common.shutdown.close('tests done');
  rmSync(dir, { recursive: true, force: true });
});

async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const store = await createStore(common, { path: db, mustExist: true });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** vaultd's table against the SQL-only one, in the same database. */
const compareWithSql = () =>
  withStore(async (store) => {
    await runSqlTwin(store);
    await createSqlMetricsTable(store, 'sql_metrics');
    const diff = await diffMetricsTables(store, 'vault_metrics_hourly', 'sql_metrics');
    const snapshots = await store.one<{ n: bigint }>('test.snapshots', 'SELECT count(*) AS n FROM (SELECT DISTINCT vault_id, ts FROM vault_snapshots)');
    const nulls = await store.one<{ usd: bigint; apy: bigint }>(
      'test.nulls',
      'SELECT count(*) FILTER (WHERE tvl_usd IS NULL) AS usd, count(*) FILTER (WHERE apy_90d IS NULL) AS apy FROM vault_metrics_hourly',
    );
    return { diff, snapshots: Number(snapshots!.n), nulls: { usd: Number(nulls!.usd), apy: Number(nulls!.apy) } };
  });

describe('vault_metrics_hourly on the demo world', () => {
  it('recompute --full writes the table DuckDB SQL alone computes: equal both ways, NULLs included', async () => {
    const r = vaultd(['recompute', '--db', db, '--full']);
    expect(r.status, r.stderr).toBe(0);
    const { diff, snapshots, nulls } = await compareWithSql();
    expect(diff).toMatchObject({ rows_a: snapshots, rows_b: snapshots, only_a: 0, only_b: 0, apy_far: 0 });
    // the demo world has unpriced early hours and warming-up APYs: both kinds of NULL occur
    expect(nulls.usd).toBeGreaterThan(0);
    expect(nulls.apy).toBeGreaterThan(0);
    expect(nulls.usd).toBeLessThan(snapshots);
  });

  it('an upgraded database: serve starts on it, and recompute without --full writes every hour', async () => {
    // back to before migration 6: the decimal-string table with a stale row, and no migration from 6 on
    await withStore(async (store) => {
      await store.run('test.old', 'DROP TABLE vault_metrics_hourly');
      await store.run(
        'test.old',
        `CREATE TABLE vault_metrics_hourly (vault_id VARCHAR NOT NULL, ts TIMESTAMP NOT NULL, unit_price VARCHAR NOT NULL, tvl_native VARCHAR NOT NULL,
           tvl_usd VARCHAR, total_supply VARCHAR NOT NULL, apy_7d DOUBLE, apy_30d DOUBLE, apy_90d DOUBLE)`,
      );
      await store.run('test.old', `INSERT INTO vault_metrics_hourly VALUES ('1:0xold', TIMESTAMP '2030-01-01', '1.5', '2', NULL, '3', NULL, NULL, NULL)`);
      // ... nor the tables later migrations create (9: request_terms)
      await store.run('test.old', 'DROP TABLE request_terms');
      await store.run('test.old', 'DELETE FROM schema_migrations WHERE version >= 6');
    });
    const child = vaultdSpawn(['serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--no-jobs']);
    try {
      const port = await waitForListening(child);
      expect((await fetch(`http://127.0.0.1:${port}/v1/vaults?limit=1`)).status).toBe(200);
    } finally {
      await stopChildren([child]);
    }
    const after = await withStore(async (store) => ({
      version: await store.schemaVersion(),
      rows: Number((await store.one<{ n: bigint }>('test.count', 'SELECT count(*) AS n FROM vault_metrics_hourly'))!.n),
      type: (await store.one<{ t: string }>(
        'test.type',
        "SELECT data_type AS t FROM information_schema.columns WHERE table_name = 'vault_metrics_hourly' AND column_name = 'tvl_usd'",
      ))!.t,
    }));
    expect(after).toEqual({ version: MIGRATIONS.at(-1)!.version, rows: 0, type: 'DECIMAL(38,6)' });

    const r = vaultd(['recompute', '--db', db]);
    expect(r.status, r.stderr).toBe(0);
    const { diff, snapshots } = await compareWithSql();
    expect(diff).toMatchObject({ rows_a: snapshots, only_a: 0, only_b: 0, apy_far: 0 });
    expect(r.stdout).toContain(`${snapshots} hourly metric rows written`);
  });
});
