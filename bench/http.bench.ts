// Registers the HTTP bench (bench/http/, DESIGN §8) with bench/run.ts, which runs dist/bench/*.bench.js.
export { run } from './http/httpBench.js';
