// The series computation written as DuckDB SQL: the baseline the JS kernels are benchmarked
// and case-tested against (DESIGN §8: "≥ 3× faster than the same computation written as
// DuckDB SQL, with equal outputs asserted"). Same rules as the kernels: corrupt rows skipped,
// one row per (vault, ts) with the lowest rowid, unit price per DESIGN §4.1, APY 7/30/90 at
// every point via ASOF joins (§4.2), day/week/month rollups via ASOF joins on a grid (§4.3).
// Results land in temp tables of the store's connection: twin_prices (unit prices),
// twin_points (APY windows) and twin_rollups.
import { PUBLISHED_PRICE_TYPES } from '../../families/index.js';
import type { Store } from '../../store/store.js';

/**
 * Exact unit price in SQL: floor(assets · 10^(36−dec) / supply) overflows HUGEINT
 * (1.7e38) long before the product is formed, so it is long division, in as few HUGEINT
 * divisions as possible (DuckDB divides HUGEINTs bit by bit: ~0.3 µs each, the dominant cost):
 * first x = a·10^t0 with the most digits t0 that keep x < 10^36, q = x // s, r = x − q·s;
 * then while digits remain, t more digits at a time with r·10^t < 10^36 (t = 35 − ⌊log10 s⌋):
 * x = r·10^t, d = x // s, q = q·10^t + d, r = x − d·s. The demo's vaults need two divisions.
 * Eight steps cover every supply below 10^31 base units; beyond that (and for numeraires
 * above 36 decimals) the twin raises an error rather than a wrong value — the JS kernel has a
 * BigInt path there.
 */
const DIVISION_STEPS = 8;

/** 10^t as an exact HUGEINT for t in 0..36 (pow() goes through DOUBLE, exact only to 10^22). */
const POW10 = `[${Array.from({ length: 37 }, (_, t) => `${10n ** BigInt(t)}::HUGEINT`).join(', ')}]`;

function divisionSteps(): string {
  const steps: string[] = [];
  for (let n = 1; n <= DIVISION_STEPS; n++) {
    // d = x // s once, then r = x − d·s (a multiply instead of a second division)
    steps.push(`d${n} AS (
      SELECT vid, vault_id, t, aera, up, sup, tm, k - st AS k,
             CASE WHEN st > 0 THEN q * p + d ELSE q END AS q,
             CASE WHEN st > 0 THEN x - d * sup ELSE r END AS r
      FROM (SELECT *, CASE WHEN st > 0 THEN x // sup END AS d
            FROM (SELECT *, r * p AS x
                  FROM (SELECT *, least(k, tm) AS st, ${POW10}[least(k, tm) + 1] AS p FROM d${n - 1}))))`);
  }
  return steps.join(',\n');
}

const PRICES_SQL = `
CREATE OR REPLACE TEMP TABLE twin_prices AS
WITH v AS (
  SELECT vault_id, numeraire_decimals AS dec, vault_type IN (${PUBLISHED_PRICE_TYPES.map((t) => `'${t}'`).join(', ')}) AS aera,
         (row_number() OVER (ORDER BY vault_id))::INTEGER AS vid
  FROM vaults),
base AS (
  SELECT v.vid, s.vault_id, epoch(s.ts)::BIGINT AS t, s.total_assets AS a, s.total_supply AS sup,
         s.unit_price AS up, v.dec, v.aera, NOT v.aera AND s.total_supply > 0 AS divide
  FROM vault_snapshots s JOIN v USING (vault_id)
  WHERE s.total_assets >= 0 AND s.total_supply >= 0
  QUALIFY row_number() OVER (PARTITION BY v.vid, s.ts ORDER BY s.rowid) = 1),
scaled AS (
  SELECT *, CASE WHEN divide THEN a * ${POW10}[t0 + 1] END AS x
  FROM (SELECT *, least(k, CASE WHEN a > 0 THEN greatest(0, 35 - floor(log10(a::DOUBLE))::INTEGER) ELSE 36 END) AS t0
        FROM (SELECT *, CASE WHEN divide THEN greatest(0, 35 - floor(log10(sup::DOUBLE))::INTEGER) END AS tm,
                        CASE WHEN dec > 36 AND divide THEN error('sql twin: numeraire decimals above 36') ELSE 36 - dec END AS k
              FROM base))),
d0 AS (
  SELECT vid, vault_id, t, aera, up, sup, tm, k - t0 AS k, q, x - q * sup AS r
  FROM (SELECT *, CASE WHEN divide THEN x // sup END AS q FROM scaled)),
${divisionSteps()},
priced AS (
  SELECT vid, vault_id, t,
         coalesce(last_value(
           CASE WHEN aera THEN CASE WHEN up > 0 THEN up END
                WHEN q IS NULL THEN NULL
                WHEN k = 0 THEN q
                ELSE error('sql twin: total_supply beyond 10^31 base units') END IGNORE NULLS) OVER w,
           1000000000000000000::HUGEINT) AS unit_price,
         (row_number() OVER w - 1)::INTEGER AS i
  FROM d${DIVISION_STEPS}
  WINDOW w AS (PARTITION BY vid ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW))
SELECT vid, vault_id, i, t, unit_price,
       -- HUGEINT → DOUBLE rounds twice above 2^64; the decimal text parses correctly rounded
       CASE WHEN unit_price < 18446744073709551616 THEN unit_price::DOUBLE ELSE unit_price::VARCHAR::DOUBLE END / 1e18 AS p
FROM priced`;

// Only the join keys and the price go through the three ASOF joins (carrying the wide
// columns along measured 1.5× slower); readTwinSeries joins the rest back.
const POINTS_SQL = `
CREATE OR REPLACE TEMP TABLE twin_points AS
WITH l AS (SELECT vid, i, t, p FROM twin_prices)
SELECT a.vid, a.i,
       CASE WHEN b7.p > 0 THEN pow(a.p / b7.p, 365.0 / 7) - 1 END AS apy_7d,
       CASE WHEN b30.p > 0 THEN pow(a.p / b30.p, 365.0 / 30) - 1 END AS apy_30d,
       CASE WHEN b90.p > 0 THEN pow(a.p / b90.p, 365.0 / 90) - 1 END AS apy_90d
FROM l a
ASOF LEFT JOIN l b7 ON a.vid = b7.vid AND a.t - ${7 * 86400} >= b7.t
ASOF LEFT JOIN l b30 ON a.vid = b30.vid AND a.t - ${30 * 86400} >= b30.t
ASOF LEFT JOIN l b90 ON a.vid = b90.vid AND a.t - ${90 * 86400} >= b90.t`;

// Grid instants between each vault's first and latest snapshot: days, Mondays (1970-01-05
// is the epoch's first), and the 1st of each month.
const ROLLUPS_SQL = `
CREATE OR REPLACE TEMP TABLE twin_rollups AS
WITH bounds AS (
  SELECT vid, vault_id, min(t) AS lo, max(t) AS hi FROM twin_prices GROUP BY vid, vault_id),
months AS (
  SELECT vid, vault_id, hi, date_trunc('month', make_timestamp(lo * 1000000)) AS m0, make_timestamp(lo * 1000000) AS lo_ts FROM bounds),
grid AS (
  SELECT vid, vault_id, 'day' AS granularity,
         unnest(range(ceil(lo / 86400)::BIGINT * 86400, hi + 1, 86400)) AS instant FROM bounds
  UNION ALL
  SELECT vid, vault_id, 'week',
         unnest(range(345600 + ceil((lo - 345600) / 604800)::BIGINT * 604800, hi + 1, 604800)) FROM bounds
  UNION ALL
  SELECT vid, vault_id, 'month',
         epoch(unnest(generate_series(CASE WHEN m0 < lo_ts THEN m0 + INTERVAL 1 MONTH ELSE m0 END,
                                      make_timestamp(hi * 1000000), INTERVAL 1 MONTH)))::BIGINT FROM months)
SELECT grid.vault_id, grid.granularity, grid.instant, p.i
FROM grid ASOF JOIN twin_prices p ON grid.vid = p.vid AND grid.instant >= p.t`;

export interface SqlTwinTimings {
  prices: number;
  apy: number;
  rollups: number;
  total: number;
}

/** Run the whole computation in DuckDB; results in temp tables twin_prices, twin_points and twin_rollups. */
export async function runSqlTwin(store: Store): Promise<SqlTwinTimings> {
  const t0 = performance.now();
  await store.run('twin.prices', PRICES_SQL);
  const t1 = performance.now();
  await store.run('twin.apy', POINTS_SQL);
  const t2 = performance.now();
  await store.run('twin.rollups', ROLLUPS_SQL);
  const t3 = performance.now();
  return { prices: t1 - t0, apy: t2 - t1, rollups: t3 - t2, total: t3 - t0 };
}

export async function dropSqlTwin(store: Store): Promise<void> {
  await store.run('twin.drop', 'DROP TABLE IF EXISTS twin_prices; DROP TABLE IF EXISTS twin_points; DROP TABLE IF EXISTS twin_rollups');
}

export interface TwinSeries {
  ts: number[];
  unit_price: bigint[];
  unit_price_f: number[];
  /** null = unknown (warming up) */
  apy_7d: (number | null)[];
  apy_30d: (number | null)[];
  apy_90d: (number | null)[];
}

/** One vault's twin points in index order (for comparisons; small results only). */
export async function readTwinSeries(store: Store, vaultId: string): Promise<TwinSeries> {
  const rows = await store.rows<{ t: bigint; unit_price: bigint; unit_price_f: number; apy_7d: number | null; apy_30d: number | null; apy_90d: number | null }>(
    'twin.read',
    `SELECT p.t, p.unit_price, p.p AS unit_price_f, a.apy_7d, a.apy_30d, a.apy_90d
     FROM twin_prices p JOIN twin_points a USING (vid, i) WHERE p.vault_id = $1 ORDER BY p.i`,
    [vaultId],
  );
  return {
    ts: rows.map((r) => Number(r.t)),
    unit_price: rows.map((r) => r.unit_price),
    unit_price_f: rows.map((r) => r.unit_price_f),
    apy_7d: rows.map((r) => r.apy_7d),
    apy_30d: rows.map((r) => r.apy_30d),
    apy_90d: rows.map((r) => r.apy_90d),
  };
}

/** One vault's twin rollup at a granularity: grid instants and as-of indices, ascending. */
export async function readTwinRollup(store: Store, vaultId: string, granularity: 'day' | 'week' | 'month'): Promise<{ instants: number[]; indices: number[] }> {
  const rows = await store.rows<{ instant: bigint; i: number }>(
    'twin.read_rollup',
    'SELECT instant, i FROM twin_rollups WHERE vault_id = $1 AND granularity = $2 ORDER BY instant',
    [vaultId, granularity],
  );
  return { instants: rows.map((r) => Number(r.instant)), indices: rows.map((r) => r.i) };
}
