// Recompute unit prices and APY windows of many vault series on a compute pool: vaults are
// split into about 2 × threads tasks of balanced point counts (longest first, each to the
// lightest task), so a thread that finishes early picks up another and none idles long.
import type { VaultSeries } from '../../model/world.js';
import type { ComputePool } from './computePool.js';
import { toJob, type SeriesJob } from './seriesTask.js';

export interface RecomputeStats {
  vaults: number;
  points: number;
  tasks: number;
  /** wall time, ms */
  ms: number;
  /** kernel time summed over tasks, ms */
  kernelMs: number;
}

/**
 * Recompute every series from `from(series)` (default 0: all points) to its length. Results
 * are written in place into the series' shared arrays. Resolves when every task is done.
 */
export async function recomputeSeries(pool: ComputePool, series: Iterable<VaultSeries>, from: (s: VaultSeries) => number = () => 0): Promise<RecomputeStats> {
  const t0 = performance.now();
  const jobs: SeriesJob[] = [];
  for (const s of series) {
    const f = Math.max(0, from(s));
    if (f < s.length) jobs.push(toJob(s, f));
  }
  const batches = partition(jobs, pool.threads === 1 ? 1 : 2 * pool.threads);
  const results = await Promise.all(batches.map((b) => pool.run({ jobs: b })));
  return {
    vaults: jobs.length,
    points: results.reduce((n, r) => n + r.points, 0),
    tasks: batches.length,
    ms: performance.now() - t0,
    kernelMs: results.reduce((n, r) => n + r.ms, 0),
  };
}

/** Longest-processing-time-first split of jobs into at most `parts` non-empty batches. */
export function partition(jobs: SeriesJob[], parts: number): SeriesJob[][] {
  const k = Math.max(1, Math.min(parts, jobs.length));
  const bins = Array.from({ length: k }, () => ({ load: 0, jobs: [] as SeriesJob[] }));
  const work = (j: SeriesJob): number => j.length - j.from;
  for (const job of [...jobs].sort((a, b) => work(b) - work(a))) {
    let best = bins[0]!;
    for (const b of bins) if (b.load < best.load) best = b;
    best.jobs.push(job);
    best.load += work(job);
  }
  return bins.filter((b) => b.jobs.length > 0).map((b) => b.jobs);
}

/**
 * The pool as a `{ run(work) }` series compute (the shape engine/engine.ts takes): each item
 * recomputes one series from its `from` index.
 */
export function poolSeriesCompute(pool: ComputePool): { run(work: { series: VaultSeries; from: number }[]): Promise<void> } {
  return {
    async run(work) {
      const from = new Map<VaultSeries, number>();
      for (const w of work) from.set(w.series, Math.min(w.from, from.get(w.series) ?? w.from));
      await recomputeSeries(pool, from.keys(), (s) => from.get(s)!);
    },
  };
}
