// The series computation written as DuckDB SQL: the baseline the JS kernels are benchmarked
// and case-tested against (DESIGN §8: "≥ 3× faster than the same computation written as
// DuckDB SQL, with equal outputs asserted"). Same rules as the kernels: corrupt rows skipped,
// one row per (vault, ts) with the lowest rowid, unit price per DESIGN §4.1, APY 7/30/90 at
// every point via ASOF joins (§4.2), day/week/month rollups via ASOF joins on a grid (§4.3).
// Results land in temp tables of the store's connection: twin_prices (unit prices),
// twin_points (APY windows) and twin_rollups; createSqlMetricsTable builds the hourly metrics
// table from them, diffMetricsTables compares it with the engine's.
import { PUBLISHED_PRICE_TYPES } from '../../families/index.js';
import { VaultdError } from '../../common/errors.js';
import type { Store } from '../../store/store.js';
import { PRICE_MAX_AGE_SECONDS } from '../../engine/series/asOf.js';

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

// ---- the hourly metrics table by SQL alone (DESIGN §3): from runSqlTwin's temp tables, the
// raw rows and the prices, with the engine table's types and NULLs (the scale bench's baseline)

const LIMB = 1_000_000_000;
/** 10^t as exact HUGEINTs, t = 0..38 */
const POW10_38 = `[${Array.from({ length: 39 }, (_, t) => `${10n ** BigInt(t)}::HUGEINT`).join(', ')}]`;
const E18 = '0.000000000000000001';
/** a HUGEINT integer of 18-decimal base units as DECIMAL(38,18), NULL beyond its range */
const asDecimal18 = (x: string) => `CASE WHEN ${x} > -${10n ** 38n} AND ${x} < ${10n ** 38n} THEN ${x}::DECIMAL(38, 0) * ${E18} END`;

const LIMB_DIGITS = 9;
/** nine-digit limbs of a non-negative HUGEINT or DECIMAL's digits, least significant first (5 cover 45 digits) */
const limbs = (digits: string, name: string) =>
  Array.from({ length: 5 }, (_, k) => `substr(${digits}, ${45 - LIMB_DIGITS * (k + 1) + 1}, ${LIMB_DIGITS})::BIGINT AS ${name}${k}`);

/**
 * USD value of amount a (base units, ≥ 0) at an 18-decimal price p (≥ 0), half-even at 6
 * decimals (DESIGN §4.1, §4.7): halfEven(a·p, k) with k = dec + 12. a·p has up to 77 digits,
 * past HUGEINT, so it is formed in nine-digit limbs as BIGINTs (each partial product < 10^18,
 * each column < 5·10^18) — limbs of a from its text, of p once per price row — and, per
 * numeraire decimals (a constant k in each CASE branch), the quotient is read off the limbs
 * with HUGEINT multiply-adds and the remainder's limbs against 10^k / 2 decide the rounding.
 * Steps for `nest`: each adds columns; the last is `uunits` (NULL past HUGEINT).
 */
function usdSteps(decimals: readonly number[]): string[] {
  const steps: string[] = [];
  steps.push(`*, ${limbs("lpad(total_assets::VARCHAR, 45, '0')", 'ua').join(', ')}`);
  steps.push(
    `*, ${Array.from({ length: 9 }, (_, t) => {
      const terms: string[] = [];
      for (let i = 0; i <= 4; i++) if (t - i >= 0 && t - i <= 4) terms.push(`ua${i} * up${t - i}`);
      return `${terms.join(' + ')} AS uc${t}`;
    }).join(', ')}`,
  );
  // carries, one column per step (each carry feeds the next column)
  for (let t = 0; t < 9; t++) {
    const x = t === 0 ? 'uc0' : `(uc${t} + uk${t - 1})`;
    steps.push(`*, ${x} // ${LIMB} AS uk${t}, ${x} % ${LIMB} AS ud${t}`);
  }
  const branch = (dec: number) => {
    const k = dec + 12;
    const sft = Math.floor(k / LIMB_DIGITS);
    const r = k % LIMB_DIGITS;
    // quotient: ud_s // 10^r + Σ_{t>s} ud_t · 10^(9(t−s) − r), as HUGEINT (try: NULL past it)
    const terms = [`(ud${sft} // ${10 ** r})::HUGEINT`];
    // a limb whose place is past 10^38 must be zero, else the value has no representation
    const beyond: string[] = [];
    for (let t = sft + 1; t < 9; t++) {
      const place = LIMB_DIGITS * (t - sft) - r;
      if (place <= 38) terms.push(`ud${t}::HUGEINT * ${10n ** BigInt(place)}::HUGEINT`);
      else beyond.push(`ud${t} <> 0`);
    }
    // remainder: its top part against half of its place, then any lower limb
    const [top, half, lower] =
      r > 0
        ? [`ud${sft} % ${10 ** r}`, 5 * 10 ** (r - 1), Array.from({ length: sft }, (_, t) => `ud${t}`)]
        : [`ud${sft - 1}`, 5 * 10 ** 8, Array.from({ length: sft - 1 }, (_, t) => `ud${t}`)];
    const lowerNonZero = lower.length === 0 ? 'false' : lower.map((x) => `${x} <> 0`).join(' OR ');
    const up = `CASE WHEN ${top} > ${half} OR (${top} = ${half} AND (${lowerNonZero} OR (ud${sft} // ${10 ** r}) % 2 = 1)) THEN 1 ELSE 0 END`;
    const value = `try(${terms.join(' + ')} + ${up})`;
    return `WHEN ${dec} THEN ${beyond.length === 0 ? value : `CASE WHEN ${beyond.join(' OR ')} THEN NULL ELSE ${value} END`}`;
  };
  steps.push(`*, CASE dec ${decimals.map(branch).join(' ')} END AS uunits`);
  return steps;
}

// The as-of price is looked up once per token and hour (ASOF join on ~10^5 rows), not per point
// (the wide 17 M-row side through the ASOF join measured 4 µs a row); rows are not sorted.
const METRICS_TABLE_SQL = (table: string, decimals: readonly number[]) => {
  const nest = (from: string, steps: string[]) => steps.reduce((q, sel) => `SELECT ${sel} FROM (${q})`, from);
  const upLimbs = [0, 1, 2, 3, 4].map((k) => `up${k}`);
  return `
CREATE OR REPLACE TEMP TABLE ${table} AS
WITH raw AS (
  SELECT vault_id, epoch(ts)::BIGINT AS t, total_assets, total_supply
  FROM vault_snapshots
  WHERE total_assets >= 0 AND total_supply >= 0
  QUALIFY row_number() OVER (PARTITION BY vault_id, ts ORDER BY rowid) = 1),
keyed AS (
  SELECT p.vid, p.vault_id, p.t, p.unit_price, p.i, v.numeraire_decimals AS dec, v.chain_id, lower(v.numeraire_address) AS token
  FROM twin_prices p JOIN vaults v ON v.vault_id = p.vault_id),
px AS (
  SELECT chain_id, lower(address) AS token, epoch(ts)::BIGINT AS t, usd,
         ${limbs("lpad(replace(abs(usd)::VARCHAR, '.', ''), 45, '0')", 'up').join(', ')}
  FROM prices),
hours AS (SELECT DISTINCT chain_id, token, t FROM keyed),
hour_prices AS (
  SELECT h.chain_id, h.token, h.t, CASE WHEN px.usd >= 0 AND h.t - px.t <= ${PRICE_MAX_AGE_SECONDS} THEN px.usd END AS usd, ${upLimbs.map((l) => `px.${l}`).join(', ')}
  FROM hours h ASOF LEFT JOIN px ON h.chain_id = px.chain_id AND h.token = px.token AND h.t >= px.t),
pts AS (
  SELECT k.vid, k.vault_id, k.t, k.unit_price, a.apy_7d, a.apy_30d, a.apy_90d, r.total_assets, r.total_supply, k.dec, q.usd, ${upLimbs.map((l) => `q.${l}`).join(', ')}
  FROM keyed k
  JOIN twin_points a USING (vid, i)
  JOIN raw r ON r.vault_id = k.vault_id AND r.t = k.t
  JOIN hour_prices q ON q.chain_id = k.chain_id AND q.token = k.token AND q.t = k.t),
valued AS (${nest('SELECT * FROM pts', usdSteps(decimals))})
SELECT vault_id, make_timestamp(t * 1000000) AS ts,
       ${asDecimal18('unit_price')} AS unit_price,
       ${asDecimal18(`CASE WHEN dec <= 18 THEN CASE WHEN total_assets < ${POW10_38}[21 + dec] THEN total_assets * ${POW10_38}[19 - dec] END
                           ELSE CASE WHEN total_assets % ${POW10_38}[dec - 17] = 0 THEN total_assets // ${POW10_38}[dec - 17] END END`)} AS tvl_native,
       CASE WHEN usd IS NOT NULL AND uunits < ${10n ** 38n} THEN uunits::DECIMAL(38, 0) * 0.000001 END AS tvl_usd,
       ${asDecimal18('total_supply')} AS total_supply,
       CASE WHEN isfinite(apy_7d) THEN apy_7d END AS apy_7d,
       CASE WHEN isfinite(apy_30d) THEN apy_30d END AS apy_30d,
       CASE WHEN isfinite(apy_90d) THEN apy_90d END AS apy_90d
FROM valued`;
};

/**
 * vault_metrics_hourly by DuckDB SQL alone into the temp table `table` (after runSqlTwin): unit
 * price and APYs from the twin, TVL and supply from the raw rows, USD TVL from the prices table
 * by the same as-of rule (the latest price at or before the hour, at most 48 h old). The same
 * typed columns and NULLs as the engine's table (engine/persist/metricsWriter.ts).
 */
export async function createSqlMetricsTable(store: Store, table = 'sql_metrics'): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new RangeError(`not a table name: "${table}"`);
  // the USD rounding is written per numeraire decimals (a constant shift in each branch)
  const rows = await store.rows<{ dec: number }>('twin.metrics_decimals', 'SELECT DISTINCT numeraire_decimals AS dec FROM vaults ORDER BY 1');
  const decimals = rows.map((r) => r.dec);
  const bad = decimals.find((d) => !Number.isInteger(d) || d < 0 || d > 36);
  if (bad !== undefined) throw new VaultdError('USAGE', `sql twin: numeraire decimals must be 0–36, a vault has ${bad}`);
  await store.run('twin.metrics', METRICS_TABLE_SQL(table, decimals.length > 0 ? decimals : [0]));
}

export interface MetricsTableDiff {
  rows_a: number;
  rows_b: number;
  /** rows of a not in b, and of b not in a (EXCEPT ALL) on every column but the APY values, their NULLs included */
  only_a: number;
  only_b: number;
  /** matching rows whose APYs differ beyond 1e-12 (absolute and relative) */
  apy_far: number;
  /** matching rows whose APYs are not bit-identical (two libms: the engine's expm1/ln, SQL's pow) */
  apy_inexact: number;
}

const APY_COLS = ['apy_7d', 'apy_30d', 'apy_90d'];

/**
 * Compare two metrics tables. The exact columns must be equal both ways (EXCEPT ALL, so
 * duplicates count); APYs are doubles from two different evaluations of DESIGN §4.2
 * (expm1((365/N)·(ln p_i − ln p_j)) in the engine, pow(p_i/p_j, 365/N) − 1 in SQL), equal to
 * ~1e-13 but not bit for bit, so their values are compared within 1e-12 (as the series case test).
 */
export async function diffMetricsTables(store: Store, a: string, b: string): Promise<MetricsTableDiff> {
  for (const t of [a, b]) if (!/^[a-z_][a-z0-9_.]*$/.test(t)) throw new RangeError(`not a table name: "${t}"`);
  const key = `vault_id, ts, unit_price, tvl_native, tvl_usd, total_supply, ${APY_COLS.map((c) => `${c} IS NULL`).join(', ')}`;
  const far = APY_COLS.map((c) => `abs(x.${c} - y.${c}) > 1e-12 + 1e-12 * greatest(abs(x.${c}), abs(y.${c}))`).join(' OR ');
  const inexact = APY_COLS.map((c) => `x.${c} IS DISTINCT FROM y.${c}`).join(' OR ');
  const row = await store.one<Record<keyof MetricsTableDiff, bigint>>(
    'twin.metrics_diff',
    `SELECT (SELECT count(*) FROM ${a}) AS rows_a, (SELECT count(*) FROM ${b}) AS rows_b,
            (SELECT count(*) FROM (SELECT ${key} FROM ${a} EXCEPT ALL SELECT ${key} FROM ${b})) AS only_a,
            (SELECT count(*) FROM (SELECT ${key} FROM ${b} EXCEPT ALL SELECT ${key} FROM ${a})) AS only_b,
            (SELECT count(*) FILTER (WHERE ${far}) FROM ${a} x JOIN ${b} y USING (vault_id, ts)) AS apy_far,
            (SELECT count(*) FILTER (WHERE ${inexact}) FROM ${a} x JOIN ${b} y USING (vault_id, ts)) AS apy_inexact`,
  );
  return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)])) as unknown as MetricsTableDiff;
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
