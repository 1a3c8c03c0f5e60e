// The runtime: the one owner of every loop that writes the store (STYLE.md habit 20). A source
// only says how to run one round against the store (jobs/source.ts); the runtime decides when —
// one scheduler (common/scheduler.ts): each source on its own schedule, one round at a time
// across sources, retries of retryable failures, the job metrics —, hands every round and
// every recompute the stop's AbortSignal (common/shutdown.ts), and is the one place where a
// round that changed inputs becomes an engine refresh. A database file replaced under it is
// reloaded whole before anything extends it; rows another process wrote are refreshed in too.
import type { Common } from '../common/common.js';
import { describeError, isStopped } from '../common/errors.js';
import { createScheduler, type RetryPolicy, type Timers } from '../common/scheduler.js';
import type { Engine, StoreAccess } from '../engine/engine.js';
import type { Source } from '../jobs/source.js';
import { createFileWatch } from './fileWatch.js';

export interface RuntimeOptions {
  common: Common;
  /** opens the store for a round (a long-running server opens the file per round) */
  store: StoreAccess;
  /** what a round that changed inputs refreshes; null: nothing to refresh (`vaultd ingest`) */
  engine: Pick<Engine, 'refresh' | 'recomputeFull'> | null;
  /** in the order their rounds run when all are due at once */
  sources: readonly Source[];
  /** the database file: replaced, its world is reloaded whole; written by another process, refreshed */
  file?: string;
  /** runs when the file was found replaced, before its world is reloaded (serve: the new store's cursor secret) */
  onReplaced?: () => Promise<void>;
  timers?: Timers;
  retry?: RetryPolicy;
}

export interface Runtime {
  /**
   * Before the first publish of an empty store: one round of each source, in order, with no
   * refresh (nothing is published yet). A failed round is logged and the others go on.
   */
  prime(): Promise<void>;
  /** One round of each source, in order, each followed by its refresh; rejects with the first failure (`vaultd ingest --once`). */
  runOnce(): Promise<void>;
  /** Rounds on each source's schedule; with `catchUp`, one round of each at once too. */
  start(opts?: { catchUp?: boolean }): void;
  /** The soonest scheduled round (the next publish it may bring), or null when not started. */
  nextRun(): Date | null;
  /** Stops the schedules and waits for the round in flight, which the stop's signal ends early. */
  stop(): Promise<void>;
}

export function createRuntime(opts: RuntimeOptions): Runtime {
  const { common, store, engine, sources } = opts;
  const signal = common.shutdown.signal;
  const watch = opts.file === undefined ? null : createFileWatch(opts.file);
  const scheduler = createScheduler({
    logger: common.logger,
    metrics: common.metrics,
    signal,
    ...(opts.timers ? { timers: opts.timers } : {}),
    ...(opts.retry ? { retry: opts.retry } : {}),
  });
  /** off while priming: there is no published world to refresh yet */
  let refreshing = false;

  /** The one place inputs become a publish: a replaced file is reloaded whole, else the engine refreshes. */
  async function refresh(whole = false): Promise<void> {
    if (!engine) return;
    if (watch?.replaced()) {
      common.logger.warn({ db: opts.file }, 'the database file was replaced; reloading its world from scratch');
      watch.reloaded();
      await opts.onReplaced?.();
      await engine.recomputeFull({ signal });
    } else if (whole) await engine.recomputeFull({ signal });
    else await engine.refresh(signal);
    // what the file holds now is in the world (the publish identity it wrote included)
    watch?.settle();
  }

  for (const source of sources) {
    scheduler.add({
      name: source.name,
      schedule: source.schedule,
      async run(stop) {
        // a replaced file is reloaded before anything extends it
        if (refreshing && watch?.replaced()) await refresh();
        const others = refreshing && (watch?.changed() ?? false);
        const { inputsChanged, registryChanged = false, rowsRemoved = false } = await store((s) => source.round(s, stop));
        // a refresh extends the world it has; new registry rows (a vault listed) or rows a reorg
        // deleted need it reloaded
        const whole = registryChanged || rowsRemoved;
        if (refreshing && (inputsChanged || others || whole)) await refresh(whole);
        watch?.settle();
      },
    });
  }
  common.shutdown.add('jobs', () => scheduler.stop());

  return {
    async prime() {
      for (const s of sources) {
        try {
          await scheduler.run(s.name);
        } catch (err) {
          if (isStopped(err) || signal.aborted) throw err;
          common.logger.error({ job: s.name, error: describeError(err) }, `first ${s.name} round failed`);
        }
      }
    },
    async runOnce() {
      refreshing = true;
      for (const s of sources) await scheduler.run(s.name);
    },
    start({ catchUp = false } = {}) {
      refreshing = true;
      // what the file is now is this process's own doing (the start's reads and publish)
      watch?.settle();
      scheduler.start({ immediately: catchUp });
    },
    nextRun: () => scheduler.nextRun(),
    stop: () => scheduler.stop(),
  };
}
