// The demo world as a source (DESIGN §7): under `vaultd serve` without configured chains it
// behaves like a live chain — each round appends the hours that passed in real time since its
// stored end (extendDemoWorld). A store with no demo world gets nothing.
import type { Common } from '../../common/common.js';
import type { Schedule, Source } from '../source.js';
import { extendDemoWorld } from './extendDemoWorld.js';

export interface DemoSourceOptions {
  common: Common;
  /** when rounds run (serve: `schedules.ingest`) */
  schedule: Schedule;
  /** wall-clock time, ms (tests) */
  now?: () => number;
}

export function createDemoSource(opts: DemoSourceOptions): Source {
  const now = opts.now ?? Date.now;
  return {
    name: 'demo',
    schedule: opts.schedule,
    async round(store, signal) {
      signal.throwIfAborted();
      const ext = await extendDemoWorld(store, now());
      if (ext) opts.common.logger.info(ext, 'demo world extended');
      return { inputsChanged: ext !== null };
    },
  };
}
