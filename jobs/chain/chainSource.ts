// The chain ingest as a source (DESIGN §1, §2, §6.1): each round indexes every configured chain
// (ingestOnce) on `schedules.ingest`. A chain that keeps failing is retried less often (every
// 2, 4 … 32 rounds) so its timeouts do not lengthen every round of the healthy ones.
import type { Common } from '../../common/common.js';
import type { Config } from '../../common/config.js';
import type { Source } from '../source.js';
import type { ChainRuntime } from './chainRuntime.js';
import { createIngestRuntime, ingestOnce, type ChainRoundResult } from './ingestOnce.js';
import type { IngestOptions } from './ingestOptions.js';

export interface ChainSourceOptions {
  common: Common;
  config: Config;
  options?: Partial<IngestOptions>;
  /** sees every round's per-chain results (`vaultd ingest` prints them) */
  onRound?: (results: ChainRoundResult[]) => void;
}

/** Rounds a chain sits out after `failures` consecutive failed rounds. */
export function roundsToSkip(failures: number): number {
  return failures < 3 ? 0 : Math.min(32, 2 ** (failures - 2)) - 1;
}

export function createChainSource(opts: ChainSourceOptions): Source {
  const { common, config } = opts;
  const logger = common.logger.child({ component: 'ingest-job' });
  const runtime = createIngestRuntime(common, config, opts.options);
  const skipping = new Map<ChainRuntime, number>();
  return {
    name: 'ingest',
    schedule: { cron: config.schedules.ingest },
    async round(store, signal) {
      const due = runtime.chains.filter((rt) => {
        const left = skipping.get(rt) ?? 0;
        if (left > 0) skipping.set(rt, left - 1);
        return left === 0;
      });
      for (const rt of runtime.chains)
        if (!due.includes(rt)) logger.info({ chain_id: rt.chain.chain_id, rounds_left: skipping.get(rt) }, 'stalled chain sits this round out');
      const results = await ingestOnce(common, store, config, { runtime: { options: runtime.options, chains: due }, signal });
      for (const rt of due) skipping.set(rt, roundsToSkip(rt.consecutiveFailures));
      opts.onRound?.(results);
      // what a refresh can take in: rows committed or rolled back (the registry a full recompute reads)
      const rowsRemoved = results.some((r) => r.reorg !== null);
      return { inputsChanged: rowsRemoved || results.some((r) => r.events > 0 || r.snapshots > 0), rowsRemoved };
    },
  };
}
