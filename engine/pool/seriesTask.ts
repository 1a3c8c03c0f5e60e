// The unit of work the compute pool runs: a batch of vault series to recompute from some
// index on. A task carries only views of the series' SharedArrayBuffers, so a worker writes
// its results straight into the resident arrays; the same function runs in-thread.
import { I128Array } from '../../model/int128.js';
import type { VaultSeries } from '../../model/world.js';
import { computeApy } from '../series/apyWindows.js';
import { computeUnitPrices } from '../series/unitPrices.js';

/** One series as it crosses a thread boundary: typed arrays on shared memory, plus scalars. */
export interface SeriesJob {
  vault_id: string;
  numeraire_decimals: number;
  publishes_unit_price: boolean;
  length: number;
  /** recompute points i ≥ from */
  from: number;
  ts: Float64Array;
  block: Float64Array;
  total_assets: BigUint64Array;
  total_supply: BigUint64Array;
  published_price: BigUint64Array;
  unit_price: BigUint64Array;
  unit_price_f: Float64Array;
  apy_7d: Float64Array;
  apy_30d: Float64Array;
  apy_90d: Float64Array;
}

export interface SeriesTask {
  jobs: SeriesJob[];
}

export interface SeriesTaskResult {
  /** points recomputed */
  points: number;
  /** time spent in the kernels, ms */
  ms: number;
}

export function toJob(series: VaultSeries, from = 0): SeriesJob {
  return {
    vault_id: series.vault_id,
    numeraire_decimals: series.numeraire_decimals,
    publishes_unit_price: series.publishes_unit_price,
    length: series.length,
    from,
    ts: series.ts,
    block: series.block,
    total_assets: series.total_assets.words,
    total_supply: series.total_supply.words,
    published_price: series.published_price.words,
    unit_price: series.unit_price.words,
    unit_price_f: series.unit_price_f,
    apy_7d: series.apy_7d,
    apy_30d: series.apy_30d,
    apy_90d: series.apy_90d,
  };
}

/** The series a job carries, on its side of the thread boundary (views of the same memory, no copy). */
export function fromJob(job: SeriesJob): VaultSeries {
  return {
    vault_id: job.vault_id,
    numeraire_decimals: job.numeraire_decimals,
    publishes_unit_price: job.publishes_unit_price,
    length: job.length,
    ts: job.ts,
    block: job.block,
    total_assets: I128Array.from(job.total_assets),
    total_supply: I128Array.from(job.total_supply),
    published_price: I128Array.from(job.published_price),
    unit_price: I128Array.from(job.unit_price),
    unit_price_f: job.unit_price_f,
    apy_7d: job.apy_7d,
    apy_30d: job.apy_30d,
    apy_90d: job.apy_90d,
    skipped: 0,
  };
}

/** Unit prices, then APY windows, for every job (pure; in a worker or in-thread). */
export function runSeriesTask(task: SeriesTask): SeriesTaskResult {
  const t0 = performance.now();
  let points = 0;
  for (const job of task.jobs) {
    const view = fromJob(job);
    computeUnitPrices(view, job.from);
    computeApy(view, job.from);
    points += Math.max(0, job.length - job.from);
  }
  return { points, ms: performance.now() - t0 };
}
