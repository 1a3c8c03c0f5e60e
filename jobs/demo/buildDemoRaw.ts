// Fills the raw tables of a fresh database with the demo world as a pipeline: the simulation
// runs on a worker thread and posts column batches; this thread appends the snapshots straight
// into vault_snapshots and copies events and prices into staging tables, and every PIECE_ROWS
// staged rows DuckDB moves them into the raw tables on its own threads while the simulation
// goes on (store/stagedRawLoader.ts). Each table's rows arrive in the order the
// simulation emits them (the row-at-a-time path's order), so a vault's snapshots stay
// contiguous in the table (engine/load/loadSeries.ts reads them by position).
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { VaultdError } from '../../common/errors.js';
import { BINARY_BUILD } from '../../common/runtime.js';
import type { Registry } from '../../model/rows.js';
import { createBatchSink, STAGE_NAMES, type RawBatch, type StageName } from '../../store/rawColumns.js';
import { createRawWriter } from '../../store/rawWriter.js';
import { createStagedRawLoader } from '../../store/stagedRawLoader.js';
import type { Store } from '../../store/store.js';
import type { DemoParams } from './params.js';
import { type SmallRows, writeRun } from './rowRuns.js';
import { simulateDemo, type SimulationSummary } from './simulate.js';

/** Event and price rows staged between two moves into the raw tables (snapshots are not staged). */
export const PIECE_ROWS = 1_000_000;
/** Batches (8,192 rows, ~0.6 MB each) posted but not yet staged: enough for the simulation to run on through a move (~3 M rows), and it waits beyond. */
const IN_FLIGHT_BATCHES = 384;

export interface SimWorkerData {
  params: DemoParams;
  /** Int32 counter of batches in flight (shared) */
  inFlight: SharedArrayBuffer;
  cap: number;
}

export type SimWorkerMessage =
  | { type: 'batch'; batch: RawBatch }
  | { type: 'rows'; rows: SmallRows }
  | { type: 'progress'; done: number; total: number }
  | { type: 'done'; summary: SimulationSummary };

export interface DemoRawCounts {
  snapshots: number;
  events: number;
  prices: number;
  allocations: number;
  tvlSourceValues: number;
  requestTerms: number;
}

export interface BuildDemoRawOptions {
  onProgress?: (done: number, total: number) => void;
  /**
   * `worker` (default where the worker script exists): simulate on a worker thread, move
   * pieces while it runs. `inline`: simulate on this thread and move everything at the end
   * (the single binary, which carries no worker script for it, and tests).
   */
  mode?: 'worker' | 'inline';
  /** rows per piece (tests use small pieces to cross piece boundaries) */
  pieceRows?: number;
}

/**
 * The worker script: beside this module in dist/, or the build of it when running from the
 * .ts sources (vitest), as engine/pool/computePool.ts does.
 */
export function simWorkerFilename(moduleUrl: string = import.meta.url): string {
  const here = fileURLToPath(moduleUrl);
  if (here.endsWith('.js')) return join(dirname(here), 'simulateWorker.js');
  return join(resolve(dirname(here), '..', '..'), 'dist', 'jobs', 'demo', 'simulateWorker.js');
}

/** Simulates `params` into the empty raw tables of `store`; `registry` is buildDemoRegistry(params). */
export async function buildDemoRaw(
  store: Store,
  params: DemoParams,
  registry: Registry,
  opts: BuildDemoRawOptions = {},
): Promise<{ sim: SimulationSummary; added: DemoRawCounts }> {
  const mode = opts.mode ?? (BINARY_BUILD || !existsSync(simWorkerFilename()) ? 'inline' : 'worker');
  const pieceRows = opts.pieceRows ?? PIECE_ROWS;
  const loader = await createStagedRawLoader(store);
  // allocations, TVL readings and request terms: a few rows per vault and per day, through the row path as they come
  const writer = await createRawWriter(store, 'append');
  const moved: Record<StageName, number> = { snapshots: 0, events: 0, prices: 0 };
  const move = async () => {
    const added = await loader.flush();
    for (const name of STAGE_NAMES) moved[name] += added[name];
  };
  try {
    let sim: SimulationSummary;
    if (mode === 'inline') {
      const { sink, flush } = createBatchSink((batch) => loader.append(batch), writer.sink);
      sim = simulateDemo(params, registry, sink, { onProgress: opts.onProgress });
      flush();
    } else {
      sim = await runWorker(
        params,
        opts.onProgress,
        async (batch) => {
          loader.append(batch);
          if (loader.staged >= pieceRows) await move();
        },
        (rows) => writeRun(writer.sink, rows),
      );
    }
    await move();
    const small = await writer.finish();
    return {
      sim,
      added: { ...moved, allocations: small.allocations, tvlSourceValues: small.tvlSourceValues, requestTerms: small.requestTerms },
    };
  } finally {
    await loader.close();
  }
}

/**
 * Runs the simulation worker; `onBatch` is awaited batch by batch in posting order, and
 * `onRows` takes each run of small rows between them, in order. A batch's (or a run's) slot is
 * released once it is staged, so at most IN_FLIGHT_BATCHES wait in memory.
 */
async function runWorker(
  params: DemoParams,
  onProgress: ((done: number, total: number) => void) | undefined,
  onBatch: (batch: RawBatch) => Promise<void>,
  onRows: (rows: SmallRows) => void,
): Promise<SimulationSummary> {
  const inFlight = new SharedArrayBuffer(4);
  const counter = new Int32Array(inFlight);
  const data: SimWorkerData = { params, inFlight, cap: IN_FLIGHT_BATCHES };
  const worker = new Worker(simWorkerFilename(), { workerData: data });
  const queue: SimWorkerMessage[] = [];
  let wake: (() => void) | null = null;
  let failure: Error | null = null;
  let exited = false;
  const poke = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  worker.on('message', (m: SimWorkerMessage) => {
    queue.push(m);
    poke();
  });
  worker.on('error', (err) => {
    failure = err;
    poke();
  });
  worker.on('exit', (code) => {
    exited = true;
    if (code !== 0 && !failure) failure = new VaultdError('INTERNAL', `the demo simulation worker exited with code ${code}`);
    poke();
  });
  try {
    for (;;) {
      const m = queue.shift();
      if (!m) {
        if (failure) throw failure;
        if (exited) throw new VaultdError('INTERNAL', 'the demo simulation worker stopped before its last batch');
        await new Promise<void>((r) => (wake = r));
        continue;
      }
      if (m.type === 'batch' || m.type === 'rows') {
        if (m.type === 'batch') await onBatch(m.batch);
        else onRows(m.rows);
        Atomics.sub(counter, 0, 1);
        Atomics.notify(counter, 0);
      } else if (m.type === 'progress') {
        onProgress?.(m.done, m.total);
      } else {
        return m.summary;
      }
    }
  } finally {
    if (!exited) await worker.terminate();
  }
}
