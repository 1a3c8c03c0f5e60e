// The compute pool (DESIGN §1): piscina worker threads running the pure series kernels over
// SharedArrayBuffers, and an in-thread implementation of the same interface for tests, small
// worlds and one-hour increments (where a round trip to a worker costs more than the work).
// Never run it while DuckDB runs a query: both want both cores (DESIGN §8).
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { Gauge } from 'prom-client';
import type { Common } from '../../common/common.js';
import { VaultdError } from '../../common/errors.js';
import { BINARY_BUILD } from '../../common/runtime.js';
import { runSeriesTask, type SeriesTask, type SeriesTaskResult } from './seriesTask.js';
import { computePositionAudit, type PositionAuditInput, type PositionAuditOutput } from '../audit/positionAuditTask.js';
import { computePositions, type PositionsInput, type PositionsOutput } from '../positions/positionItems.js';
import { computePastPositions, type PastPositionsInput, type PastPositionsOutput } from '../positions/pastPositionsTask.js';
import { computePositionWindow, type PositionWindowInput, type PositionWindowOutput } from '../positions/positionWindowTask.js';
import { computeSeriesBlocks, type SeriesBlocksInput, type SeriesBlocksOutput } from '../publish/seriesBlocksTask.js';
import type { PoolResult, PoolTask } from './worker.js';

export interface ComputePool {
  readonly kind: 'piscina' | 'in-thread';
  readonly threads: number;
  run(task: SeriesTask): Promise<SeriesTaskResult>;
  /** position items of a range of positions (engine/positions/positionItems.ts) */
  positions(task: PositionsInput): Promise<PositionsOutput>;
  /** a wallet's position items as of an instant, resumed from kept replay states (engine/positions/pastPositionsTask.ts) */
  pastPositions(task: PastPositionsInput): Promise<PastPositionsOutput>;
  /** a window of one position's history (engine/positions/positionWindowTask.ts) */
  positionWindow(task: PositionWindowInput): Promise<PositionWindowOutput>;
  /** blocks of a vault's serialized series (engine/publish/seriesBlocksTask.ts) */
  seriesBlocks(task: SeriesBlocksInput): Promise<SeriesBlocksOutput>;
  /** one position's FIFO item, lots or returns (engine/audit/positionAuditTask.ts) */
  positionAudit(task: PositionAuditInput): Promise<PositionAuditOutput>;
  close(): Promise<void>;
}

export interface ComputePoolOptions {
  /** worker threads; default the machine's parallelism */
  threads?: number;
}

/**
 * The compiled worker. Under vitest this module runs from the .ts sources, where no worker
 * can be loaded, so it points at the build: dist/engine/pool/worker.js (`npm test` runs tsc first).
 */
export function workerFilename(moduleUrl: string = import.meta.url): string {
  const here = fileURLToPath(moduleUrl);
  if (here.endsWith('.js')) return join(dirname(here), 'worker.js');
  return join(resolve(dirname(here), '..', '..'), 'dist', 'engine', 'pool', 'worker.js');
}

export function createComputePool(common: Common, options: ComputePoolOptions = {}): ComputePool {
  const threads = options.threads ?? availableParallelism();
  if (!Number.isInteger(threads) || threads < 1 || threads > 256) {
    throw new VaultdError('USAGE', `compute pool threads must be an integer from 1 to 256, got ${String(threads)}`);
  }
  // The single binary carries the worker as an asset, written to its cache folder on first use.
  const filename = BINARY_BUILD
    ? (globalThis as { __VAULTD_ASSET_FILE__?: (name: string) => string }).__VAULTD_ASSET_FILE__!('compute-worker.cjs')
    : workerFilename();
  if (!existsSync(filename)) {
    throw new VaultdError('INTERNAL', 'the compute worker is not built (dist/engine/pool/worker.js): run `npm run build`');
  }
  // made on first use: a restart that serves saved files needs no pool, and starting its threads
  // (each loads the engine) took CPU from the read of those files
  let piscina: Piscina<PoolTask, PoolResult> | null = null;
  const threadsOf = () => (piscina ??= new Piscina({ filename, minThreads: threads, maxThreads: threads, idleTimeout: 60_000 }));
  queueGauge(common).set({}, 0);
  let closed = false;
  const submit = async (task: PoolTask) => {
    if (closed) throw new VaultdError('INTERNAL', 'the compute pool is closed');
    const gauge = queueGauge(common);
    gauge.inc();
    try {
      return await threadsOf().run(task);
    } finally {
      gauge.dec();
    }
  };
  const pool: ComputePool = {
    kind: 'piscina',
    threads,
    run: (task) => submit(task) as Promise<SeriesTaskResult>,
    positions: (task) => submit(task) as Promise<PositionsOutput>,
    pastPositions: (task) => submit(task) as Promise<PastPositionsOutput>,
    positionWindow: (task) => submit(task) as Promise<PositionWindowOutput>,
    seriesBlocks: (task) => submit(task) as Promise<SeriesBlocksOutput>,
    positionAudit: (task) => submit(task) as Promise<PositionAuditOutput>,
    async close() {
      if (closed) return;
      closed = true;
      await piscina?.close();
    },
  };
  common.shutdown.add('compute-pool', () => pool.close());
  return pool;
}

/** The same interface, running each task synchronously on the calling thread. */
export function createInThreadPool(): ComputePool {
  return {
    kind: 'in-thread',
    threads: 1,
    run: async (task) => runSeriesTask(task),
    positions: async (task) => computePositions(task),
    pastPositions: async (task) => computePastPositions(task),
    positionWindow: async (task) => computePositionWindow(task),
    seriesBlocks: async (task) => computeSeriesBlocks(task),
    positionAudit: async (task) => computePositionAudit(task),
    close: async () => undefined,
  };
}

const gauges = new WeakMap<object, Gauge<string>>();

/** Tasks submitted and not finished (shown on /metrics). */
function queueGauge(common: Common): Gauge<string> {
  let g = gauges.get(common.metrics);
  if (!g) {
    g = new Gauge({ name: 'vaultd_pool_tasks_in_flight', help: 'Compute pool tasks submitted and not finished', registers: [common.metrics] });
    gauges.set(common.metrics, g);
  }
  return g;
}
