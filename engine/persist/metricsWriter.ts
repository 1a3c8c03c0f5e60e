// Writes the hourly vault metrics table (DESIGN §3) from the computed world: replaced whole
// on a full recompute, only the new hours on an incremental one. The table's columns are exact
// numbers (migration 6), so a row is the series' own words: chunks of vector bytes
// (engine/series/metricsChunk.ts) go to DuckDB through a table function (store/vectorScan.ts),
// and nothing is formatted or parsed.
import { upperBound } from '../../common/search.js';
import { priceKey, type PriceSeries, type World } from '../../model/world.js';
import type { Store } from '../../store/store.js';
import { insertVectorChunks, type VectorColumn } from '../../store/vectorScan.js';
import {
  fillMetricsChunk,
  METRICS_CHUNK_BYTES,
  METRICS_CHUNK_ROWS,
  METRICS_COLUMNS,
  metricsPrices,
  metricsSeries,
  type MetricsPrices,
  type MetricsSeries,
} from '../series/metricsChunk.js';

const TABLE_COLUMNS: readonly VectorColumn[] = [
  { name: 'vault_id', kind: 'varchar-constant' },
  ...METRICS_COLUMNS.map(
    (c): VectorColumn =>
      c.type === 'decimal'
        ? { name: c.name, kind: 'decimal', width: 38, scale: c.scale, offset: c.offset, validity: c.validity }
        : { name: c.name, kind: c.type, offset: c.offset, validity: c.validity },
  ),
];

/** One chunk to write: rows [at, at + n) of a vault's series, with its numeraire's prices. */
interface ChunkJob {
  vault_id: string;
  series: MetricsSeries;
  prices: MetricsPrices | null;
  at: number;
  n: number;
}

/**
 * Write vault_metrics_hourly rows with ts > afterTs (all rows when afterTs is −Infinity). DuckDB
 * pulls chunks on both of its threads and compresses and writes them there (~1.2 µs a row, most
 * of this stage); a chunk's bytes are made on this thread when a DuckDB thread asks for them
 * (~0.1 µs a row). Making them ahead on the compute pool was measured no faster on the
 * benchmark world: both cores are already DuckDB's (DESIGN §8: never run the pool beside a
 * query on both threads). Rows land in no particular order (readers order by vault_id, ts).
 */
export async function writeVaultMetrics(store: Store, world: World, afterTs = -Infinity): Promise<number> {
  await store.run(
    'derived.metrics.clear',
    Number.isFinite(afterTs) ? 'DELETE FROM vault_metrics_hourly WHERE ts > to_timestamp($1)::TIMESTAMP' : 'DELETE FROM vault_metrics_hourly',
    Number.isFinite(afterTs) ? [afterTs] : [],
  );
  const jobs = planChunks(world, afterTs);
  if (jobs.length === 0) return 0;
  const buffer = new ArrayBuffer(METRICS_CHUNK_BYTES);
  let next = 0;
  return insertVectorChunks(store, 'vault_metrics_hourly', TABLE_COLUMNS, () => {
    const job = jobs[next++];
    if (job === undefined) return null;
    const nulls = fillMetricsChunk(job.series, job.prices, job.at, job.n, buffer, 0);
    return { rows: job.n, constants: [job.vault_id], buffer, base: 0, nulls };
  });
}

/** The chunks to write, vault by vault; a chunk never spans two vaults. */
function planChunks(world: World, afterTs: number): ChunkJob[] {
  const tables = new Map<PriceSeries, MetricsPrices>();
  const jobs: ChunkJob[] = [];
  for (const v of world.registry.vaults) {
    const s = world.series.get(v.vault_id);
    if (!s) continue;
    const from = upperBound(s.ts, s.length, afterTs);
    if (from >= s.length) continue;
    const prices = world.prices.get(priceKey(v.chain_id, v.numeraire_address));
    const series = metricsSeries(s);
    const table = prices === undefined ? null : metricsPrices(prices, tables);
    for (let at = from; at < s.length; at += METRICS_CHUNK_ROWS) {
      jobs.push({ vault_id: v.vault_id, series, prices: table, at, n: Math.min(METRICS_CHUNK_ROWS, s.length - at) });
    }
  }
  return jobs;
}

// ---- decimal-string formatting in SQL: the activity writer's deltas are still staged as
// 128-bit words and formatted by DuckDB with this (engine/persist/activityWriter.ts)

/** A base-unit HUGEINT column of a query and its decimals (a number or an INTEGER SQL expression). */
export interface UnitsColumn {
  /** the HUGEINT expression */
  expr: string;
  decimals: number | string;
  as: string;
}

/**
 * A SELECT that formats base-unit HUGEINT columns as the decimal strings of DESIGN §4.7 (no
 * exponent, no trailing zeros, "0" for zero, a sign only on non-zero negatives) — exactly
 * formatUnits (model/format/numbers.ts), on DuckDB's threads; the test beside this file holds
 * them equal. Each step is its own projection so every intermediate string is made once
 * (the same rules as one macro measured 3× slower). `keep` columns pass through unchanged.
 */
export function unitsSelect(from: string, keep: string[], cols: UnitsColumn[]): string {
  const k = keep.join(', ');
  const step = (exprs: (c: UnitsColumn, i: number) => string[]) => cols.flatMap(exprs).join(', ');
  const s0 = `SELECT ${k}, ${step((c, i) => [`${c.expr} < 0 AS n${i}`, `abs(${c.expr})::VARCHAR AS s${i}`, `${c.decimals} AS d${i}`])} FROM ${from}`;
  const s1 = `SELECT ${k}, ${step((_, i) => [`n${i}`, `d${i}`, `CASE WHEN length(s${i}) <= d${i} THEN lpad(s${i}, d${i} + 1, '0') ELSE s${i} END AS p${i}`])} FROM (${s0})`;
  const s2 = `SELECT ${k}, ${step((_, i) => [`n${i}`, `left(p${i}, length(p${i}) - d${i}) AS i${i}`, `rtrim(right(p${i}, d${i}), '0') AS f${i}`])} FROM (${s1})`;
  return `SELECT ${k}, ${step((c, i) => [
    `CASE WHEN n${i} IS NULL THEN NULL ELSE (CASE WHEN n${i} THEN '-' ELSE '' END) || i${i} || CASE WHEN f${i} = '' THEN '' ELSE '.' || f${i} END END AS ${c.as}`,
  ])} FROM (${s2})`;
}

export const MASK64 = (1n << 64n) - 1n;
