// The demo world's simulation on its own thread (jobs/demo/buildDemoRaw.ts starts it): it
// encodes rows into column batches (store/rawColumns.ts) and posts them to the loading thread,
// waiting while `cap` batches are in flight so memory stays bounded whatever the world's size.
import { parentPort, workerData } from 'node:worker_threads';
import type { AllocationRow, RequestTermsRow, TvlSourceValueRow } from '../../model/rows.js';
import { createBatchSink } from '../../store/rawColumns.js';
import type { SimWorkerData, SimWorkerMessage } from './buildDemoRaw.js';
import { buildDemoRegistry } from './registry.js';
import { simulateDemo } from './simulate.js';

const data = workerData as SimWorkerData;
const port = parentPort!;
const inFlight = new Int32Array(data.inFlight);
const post = (m: SimWorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

const allocations: AllocationRow[] = [];
const tvlSourceValues: TvlSourceValueRow[] = [];
const requestTerms: RequestTermsRow[] = [];
const { sink, flush } = createBatchSink(
  (batch, transfer) => {
    for (;;) {
      const n = Atomics.load(inFlight, 0);
      if (n < data.cap) break;
      Atomics.wait(inFlight, 0, n, 1000);
    }
    Atomics.add(inFlight, 0, 1);
    post({ type: 'batch', batch }, transfer);
  },
  { allocation: (r) => void allocations.push(r), tvlSourceValue: (r) => void tvlSourceValues.push(r), requestTerms: (r) => void requestTerms.push(r) },
);
const summary = simulateDemo(data.params, buildDemoRegistry(data.params), sink, {
  onProgress: (done, total) => post({ type: 'progress', done, total }),
});
flush();
post({ type: 'done', summary, allocations, tvlSourceValues, requestTerms });
