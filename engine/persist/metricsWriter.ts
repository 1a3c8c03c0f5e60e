// Writes the hourly vault metrics table (DESIGN §3) from the computed world: replaced whole
// on a full recompute, only the new hours on an incremental one. The table's columns are exact
// numbers (migration 6), so a row is the series' own words: chunks of vector bytes
// (engine/series/metricsChunk.ts) go to DuckDB through a table function (store/vectorScan.ts),
// and nothing is formatted or parsed.
import { upperBound } from '../../common/search.js';
import { priceKey, type PriceSeries, type World } from '../../model/world.js';
import { clearVaultMetrics } from '../../store/derived.js';
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
 * A stop (`signal`) ends the write between chunks and throws: call it inside a transaction.
 */
export async function writeVaultMetrics(store: Store, world: World, afterTs = -Infinity, signal?: AbortSignal): Promise<number> {
  await clearVaultMetrics(store, afterTs);
  return appendVaultMetrics(store, world, afterTs, signal);
}

/** writeVaultMetrics without the clear: the rows of the series `world` holds now (a recompute in passes writes each pass's). */
export async function appendVaultMetrics(store: Store, world: World, afterTs = -Infinity, signal?: AbortSignal): Promise<number> {
  const jobs = planChunks(world, afterTs);
  if (jobs.length === 0) return 0;
  const buffer = new ArrayBuffer(METRICS_CHUNK_BYTES);
  let next = 0;
  // a stop ends the insert at the next chunk; the caller's transaction then rolls it back
  const rows = await insertVectorChunks(store, 'vault_metrics_hourly', TABLE_COLUMNS, () => {
    const job = signal?.aborted ? undefined : jobs[next++];
    if (job === undefined) return null;
    const nulls = fillMetricsChunk(job.series, job.prices, job.at, job.n, buffer, 0);
    return { rows: job.n, constants: [job.vault_id], buffer, base: 0, nulls };
  });
  signal?.throwIfAborted();
  return rows;
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
