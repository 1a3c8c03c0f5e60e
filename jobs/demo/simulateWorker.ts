// The demo world's simulation on its own thread (jobs/demo/buildDemoRaw.ts starts it): it
// encodes rows into column batches (store/rawColumns.ts) and posts them to the loading thread,
// waiting while `cap` batches are in flight so memory stays bounded whatever the world's size.
import { parentPort, workerData } from 'node:worker_threads';
import { createBatchSink } from '../../store/rawColumns.js';
import type { SimWorkerData, SimWorkerMessage } from './buildDemoRaw.js';
import { createRowRuns } from './rowRuns.js';
import { buildDemoRegistry } from './registry.js';
import { simulateDemo } from './simulate.js';

const data = workerData as SimWorkerData;
const port = parentPort!;
const inFlight = new Int32Array(data.inFlight);
const post = (m: SimWorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

/** Waits while `cap` batches (or runs of small rows) are in flight, then takes a slot. */
function takeSlot(): void {
  for (;;) {
    const n = Atomics.load(inFlight, 0);
    if (n < data.cap) break;
    Atomics.wait(inFlight, 0, n, 1000);
  }
  Atomics.add(inFlight, 0, 1);
}

// the small tables' rows cross in runs as they are made (none is held to the end)
const runs = createRowRuns((rows) => {
  takeSlot();
  post({ type: 'rows', rows });
});
const { sink, flush } = createBatchSink((batch, transfer) => {
  takeSlot();
  post({ type: 'batch', batch }, transfer);
}, runs.sink);
const summary = simulateDemo(data.params, buildDemoRegistry(data.params), sink, {
  onProgress: (done, total) => post({ type: 'progress', done, total }),
});
flush();
runs.flush();
post({ type: 'done', summary });
