// The scale bench's SQL-only baseline (issue #9): the hourly metrics table computed by DuckDB
// alone — the series SQL twin (engine/series/sqlTwin.ts: exact unit prices by long division,
// APY 7/30/90 by ASOF joins) and one CREATE TABLE … AS SELECT formatting the decimal strings
// in SQL — then compared with the vault_metrics_hourly table `vaultd recompute --full` wrote
// into the same database: unit price, TVL (native) and supply exactly, APYs to 1e-9 relative.
// TVL in USD (an ASOF join on the price table with half-even rounding) is not part of it, so the
// baseline does less work than vaultd. Run as a child (its own peak RSS):
//   node dist/bench/scale/sqlBaseline.js <db>   → one JSON line on stdout
import { createCommon } from '../../common/common.js';
import { loadConfig } from '../../common/config.js';
import { createLogger } from '../../common/logger.js';
import { runSqlTwin } from '../../engine/series/sqlTwin.js';
import { createStore } from '../../store/store.js';

/** 10^t as exact HUGEINTs, t = 0..38 */
const POW10 = `[${Array.from({ length: 39 }, (_, t) => `${10n ** BigInt(t)}::HUGEINT`).join(', ')}]`;

const METRICS_SQL = `
CREATE OR REPLACE TEMP MACRO units_text(x, d) AS
  CASE WHEN d = 0 THEN x::VARCHAR
       WHEN x % ${POW10}[d + 1] = 0 THEN (x // ${POW10}[d + 1])::VARCHAR
       ELSE (x // ${POW10}[d + 1])::VARCHAR || '.' || rtrim(lpad((x % ${POW10}[d + 1])::VARCHAR, d, '0'), '0') END;
CREATE OR REPLACE TEMP TABLE sql_metrics AS
WITH raw AS (
  SELECT s.vault_id, epoch(s.ts)::BIGINT AS t, s.total_assets, s.total_supply
  FROM vault_snapshots s
  WHERE s.total_assets >= 0 AND s.total_supply >= 0
  QUALIFY row_number() OVER (PARTITION BY s.vault_id, s.ts ORDER BY s.rowid) = 1)
SELECT p.vault_id, make_timestamp(p.t * 1000000) AS ts,
       units_text(p.unit_price, 18) AS unit_price,
       units_text(r.total_assets, v.numeraire_decimals) AS tvl_native,
       units_text(r.total_supply, 18) AS total_supply,
       a.apy_7d, a.apy_30d, a.apy_90d
FROM twin_prices p
JOIN twin_points a USING (vid, i)
JOIN raw r ON r.vault_id = p.vault_id AND r.t = p.t
JOIN vaults v ON v.vault_id = p.vault_id`;

const apyDiffers = (c: string) => `(m.${c} IS NULL) <> (q.${c} IS NULL) OR abs(m.${c} - q.${c}) > 1e-9 * greatest(1, abs(q.${c}))`;
const COMPARE_SQL = `
SELECT
  (SELECT count(*) FROM sql_metrics)::BIGINT AS sql_rows,
  (SELECT count(*) FROM vault_metrics_hourly)::BIGINT AS vaultd_rows,
  (SELECT count(*) FROM vault_metrics_hourly m FULL JOIN sql_metrics q USING (vault_id, ts)
    WHERE m.vault_id IS NULL OR q.vault_id IS NULL
       OR m.unit_price <> q.unit_price OR m.tvl_native <> q.tvl_native OR m.total_supply <> q.total_supply
       OR ${apyDiffers('apy_7d')} OR ${apyDiffers('apy_30d')} OR ${apyDiffers('apy_90d')})::BIGINT AS mismatches`;

export interface SqlBaselineResult {
  twin_ms: { prices: number; apy: number; rollups: number };
  metrics_table_ms: number;
  /** twin prices + APY + the metrics table (the rollups are timed apart: vaultd does them per request) */
  total_ms: number;
  sql_rows: number;
  vaultd_rows: number;
  mismatches: number;
}

async function main(db: string): Promise<void> {
  const common = createCommon(loadConfig({}, {}), { logger: createLogger('warn') });
  const store = await createStore(common, { path: db, mustExist: true });
  try {
    const twin = await runSqlTwin(store);
    const t0 = performance.now();
    await store.run('bench.sql_metrics', METRICS_SQL);
    const metricsMs = performance.now() - t0;
    const [cmp] = await store.rows<{ sql_rows: bigint; vaultd_rows: bigint; mismatches: bigint }>('bench.sql_compare', COMPARE_SQL);
    const out: SqlBaselineResult = {
      twin_ms: { prices: Math.round(twin.prices), apy: Math.round(twin.apy), rollups: Math.round(twin.rollups) },
      metrics_table_ms: Math.round(metricsMs),
      total_ms: Math.round(twin.prices + twin.apy + metricsMs),
      sql_rows: Number(cmp!.sql_rows),
      vaultd_rows: Number(cmp!.vaultd_rows),
      mismatches: Number(cmp!.mismatches),
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
