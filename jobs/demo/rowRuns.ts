// The demo simulation's small tables (allocations, TVL readings, request terms) cross from its
// worker to the loading thread in runs, as they are made (jobs/demo/simulateWorker.ts). Held to
// the end and posted at once, they were the build's peak: ~3 M request terms at 10,000 vaults
// as objects on the worker's heap, then their structured clone on the loading thread's
// (4.3 GiB peak RSS; bench/README.md "The 10,000-vault world").
import type { AllocationRow, RequestTermsRow, TvlSourceValueRow } from '../../model/rows.js';
import type { RawSink } from '../../store/rawSink.js';

/** Rows of one run, all tables together. */
export const SMALL_ROWS = 8192;

/** A run of the small tables' rows, each table's in the order the simulation made them. */
export interface SmallRows {
  allocations: AllocationRow[];
  tvlSourceValues: TvlSourceValueRow[];
  requestTerms: RequestTermsRow[];
}

type SmallSink = Pick<RawSink, 'allocation' | 'tvlSourceValue' | 'requestTerms'>;

/** A sink that calls `send` with each run of `size` rows as it fills; `flush` sends the last, shorter run. */
export function createRowRuns(send: (rows: SmallRows) => void, size = SMALL_ROWS): { sink: SmallSink; flush(): void } {
  const none = (): SmallRows => ({ allocations: [], tvlSourceValues: [], requestTerms: [] });
  let run = none();
  let held = 0;
  const flush = () => {
    if (held === 0) return;
    const full = run;
    run = none();
    held = 0;
    send(full);
  };
  const kept = () => {
    if (++held === size) flush();
  };
  return {
    sink: {
      allocation: (r) => {
        run.allocations.push(r);
        kept();
      },
      tvlSourceValue: (r) => {
        run.tvlSourceValues.push(r);
        kept();
      },
      requestTerms: (r) => {
        run.requestTerms.push(r);
        kept();
      },
    },
    flush,
  };
}

/** Feeds a run to `sink`, table by table (each table's rows stay in order; tables are independent). */
export function writeRun(sink: SmallSink, rows: SmallRows): void {
  for (const r of rows.allocations) sink.allocation(r);
  for (const r of rows.tvlSourceValues) sink.tvlSourceValue(r);
  for (const r of rows.requestTerms) sink.requestTerms(r);
}
