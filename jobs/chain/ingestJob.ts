// The scheduled chain ingest (DESIGN §1, §2): rounds on `schedules.ingest` through the one scheduler (common/scheduler.ts), a round
// never overlapping the previous one (`protect`), the database opened per round so other
// vaultd processes can use it in between. A chain that keeps failing is retried less often
// (every 2, 4 … 32 rounds) so its timeouts do not lengthen every round of the healthy ones.
import type { Common } from '../../common/common.js';
import type { Config } from '../../common/config.js';
import { createScheduledJob } from '../../common/scheduler.js';
import type { Store } from '../../store/store.js';
import type { ChainRuntime } from './chainRuntime.js';
import { createIngestRuntime, ingestOnce, type ChainRoundResult } from './ingestOnce.js';
import type { IngestOptions } from './ingestOptions.js';

export type StoreAccess = <T>(work: (store: Store) => Promise<T>) => Promise<T>;

export interface IngestJob {
  /** One round now (awaits a round already running first). */
  runOnce(): Promise<ChainRoundResult[]>;
  /** Rounds on the schedule, the first at once. */
  start(): void;
  /** Stops the schedule and waits for the round in flight. */
  stop(): Promise<void>;
}

export interface IngestJobOptions {
  common: Common;
  config: Config;
  access: StoreAccess;
  options?: Partial<IngestOptions>;
  onRound?: (results: ChainRoundResult[]) => void;
}

/** Rounds a chain sits out after `failures` consecutive failed rounds. */
export function roundsToSkip(failures: number): number {
  return failures < 3 ? 0 : Math.min(32, 2 ** (failures - 2)) - 1;
}

export function createIngestJob(opts: IngestJobOptions): IngestJob {
  const { common, config, access } = opts;
  const logger = common.logger.child({ component: 'ingest-job' });
  const runtime = createIngestRuntime(common, config, opts.options);
  const skipping = new Map<ChainRuntime, number>();

  async function round(): Promise<ChainRoundResult[]> {
    const due = runtime.chains.filter((rt) => {
      const left = skipping.get(rt) ?? 0;
      if (left > 0) skipping.set(rt, left - 1);
      return left === 0;
    });
    for (const rt of runtime.chains)
      if (!due.includes(rt)) logger.info({ chain_id: rt.chain.chain_id, rounds_left: skipping.get(rt) }, 'stalled chain sits this round out');
    const results = await access((store) => ingestOnce(common, store, config, { runtime: { options: runtime.options, chains: due } }));
    for (const rt of due) skipping.set(rt, roundsToSkip(rt.consecutiveFailures));
    opts.onRound?.(results);
    return results;
  }

  const job = createScheduledJob({ name: 'ingest', schedule: config.schedules.ingest, logger, round });
  return {
    runOnce: job.runOnce,
    start: () => job.start({ immediately: true }),
    stop: job.stop,
  };
}
