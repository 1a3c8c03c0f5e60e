// Registers the ingest bench (bench/ingest/, DESIGN §6.1, §8) with bench/run.ts, which runs dist/bench/*.bench.js.
export { run } from './ingest/ingestBench.js';
