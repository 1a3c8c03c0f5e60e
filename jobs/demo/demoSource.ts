// The demo world as a source (DESIGN §7, §11.6): under `vaultd serve` without configured chains
// it behaves like a live chain. Its clock is the wall clock by default (each round appends the
// hours that passed since its stored end); with `demo.hour_seconds` below 3600 it runs ahead,
// one simulated hour every that many real seconds (times on the wire are the simulated ones).
// A store with no demo world gets nothing.
import type { Common } from '../../common/common.js';
import type { Schedule, Source } from '../source.js';
import { extendDemoWorld } from './extendDemoWorld.js';
import { lastFullHour } from './params.js';

const HOUR = 3600;

export interface DemoSourceOptions {
  common: Common;
  /** when rounds run at the wall clock's pace (serve: `schedules.ingest`) */
  schedule: Schedule;
  /** real seconds per simulated hour (config `demo.hour_seconds`; 3600: the wall clock) */
  hourSeconds?: number;
  /** wall-clock time, ms (tests) */
  now?: () => number;
}

export function createDemoSource(opts: DemoSourceOptions): Source {
  const now = opts.now ?? Date.now;
  const hourSeconds = opts.hourSeconds ?? HOUR;
  const realTime = hourSeconds === HOUR;
  return {
    name: 'demo',
    // a faster clock ticks on its own pace: one simulated hour a round
    schedule: realTime ? opts.schedule : { everyMs: hourSeconds * 1000 },
    async round(store, signal) {
      signal.throwIfAborted();
      const ext = await extendDemoWorld(store, realTime ? lastFullHour(now()) : (end) => Math.floor(end / HOUR) * HOUR + HOUR);
      if (ext) opts.common.logger.info(ext, 'demo world extended');
      return { inputsChanged: ext !== null, registryChanged: (ext?.listed ?? 0) > 0 };
    },
  };
}
