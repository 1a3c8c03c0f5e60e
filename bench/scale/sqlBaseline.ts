// The scale bench's SQL-only baseline (issue #9): the hourly metrics table computed by DuckDB
// alone — the series SQL twin (bench/series/sqlTwin.ts: exact unit prices by long division,
// APY 7/30/90 by ASOF joins) and one CREATE TABLE … AS SELECT of the same typed table
// (DECIMAL amounts, USD TVL from the prices table by the same as-of/48 h rule, half-even) —
// then compared with the vault_metrics_hourly table `vaultd recompute --full` wrote into the
// same database: every column but the APY values equal both ways (EXCEPT ALL), APYs within
// 1e-12 (two libms; see diffMetricsTables). Run as a child (its own peak RSS):
//   node dist/bench/scale/sqlBaseline.js <db>   → one JSON line on stdout
import { createCommon } from '../../common/common.js';
import { loadConfig } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { createLogger } from '../../common/logger.js';
import { createSqlMetricsTable, diffMetricsTables, runSqlTwin } from '../series/sqlTwin.js';
import { createStore } from '../../store/store.js';

export interface SqlBaselineResult {
  twin_ms: { prices: number; apy: number; rollups: number };
  metrics_table_ms: number;
  /** twin prices + APY + the metrics table (the rollups are timed apart: vaultd does them per request) */
  total_ms: number;
  sql_rows: number;
  vaultd_rows: number;
  /** rows only in vaultd's table / only in the SQL one (EXCEPT ALL), and APYs further apart than 1e-12 */
  only_vaultd: number;
  only_sql: number;
  apy_far: number;
  /** APYs not bit-identical (within 1e-12; reported, not a mismatch) */
  apy_inexact: number;
  /** only_vaultd + only_sql + apy_far */
  mismatches: number;
}

async function main(db: string): Promise<void> {
  const common = createCommon(loadConfig(VAULT_TYPES, {}, {}), { logger: createLogger('warn') });
  const store = await createStore(common, { path: db, mustExist: true });
  try {
    const twin = await runSqlTwin(store);
    const t0 = performance.now();
    await createSqlMetricsTable(store, 'sql_metrics');
    const metricsMs = performance.now() - t0;
    const d = await diffMetricsTables(store, 'vault_metrics_hourly', 'sql_metrics');
    const out: SqlBaselineResult = {
      twin_ms: { prices: Math.round(twin.prices), apy: Math.round(twin.apy), rollups: Math.round(twin.rollups) },
      metrics_table_ms: Math.round(metricsMs),
      total_ms: Math.round(twin.prices + twin.apy + metricsMs),
      sql_rows: d.rows_b,
      vaultd_rows: d.rows_a,
      only_vaultd: d.only_a,
      only_sql: d.only_b,
      apy_far: d.apy_far,
      apy_inexact: d.apy_inexact,
      mismatches: d.only_a + d.only_b + d.apy_far,
    };
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    await store.close();
  }
}

if (process.argv[1]?.endsWith('sqlBaseline.js')) {
  const db = process.argv[2];
  if (!db) {
    console.error('usage: node dist/bench/scale/sqlBaseline.js <db>');
    process.exit(2);
  }
  main(db).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
