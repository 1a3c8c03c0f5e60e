// The one scheduler of the program: a job's rounds run on a cron schedule (croner) and on
// demand, one at a time — a round asked for while one runs waits for it (the common mutex),
// so a catch-up round at start and a scheduled tick never overlap. A failed scheduled round
// is logged and the schedule goes on (the previous data keeps serving, DESIGN §9); `stop`
// ends the schedule and waits for the round in flight.
import { Cron } from 'croner';
import { describeError } from './errors.js';
import type { Logger } from './logger.js';
import { createMutex } from './mutex.js';

export interface ScheduledJob<T> {
  /** One round now, after any round already running. Rejects with the round's error. */
  runOnce(): Promise<T>;
  /** Rounds on the schedule (the first at once with `immediately`); `after` runs after each successful scheduled round. */
  start(opts?: { immediately?: boolean; after?: (result: T) => Promise<void> | void }): void;
  /** The next scheduled round, or null when not started. */
  nextRun(): Date | null;
  /** Stops the schedule and waits for the round in flight. */
  stop(): Promise<void>;
}

export interface ScheduledJobOptions<T> {
  /** the job's name in logs and in croner */
  name: string;
  /** a cron expression (DESIGN §2 `schedules.*`) */
  schedule: string;
  logger: Logger;
  round: () => Promise<T>;
}

export function createScheduledJob<T>(opts: ScheduledJobOptions<T>): ScheduledJob<T> {
  const mutex = createMutex();
  let inflight: Promise<T> | null = null;
  let cron: Cron | null = null;

  function runOnce(): Promise<T> {
    const run = mutex.run(opts.round);
    inflight = run;
    const clear = () => void (inflight === run && (inflight = null));
    run.then(clear, clear);
    return run;
  }

  return {
    runOnce,
    start({ immediately = false, after } = {}) {
      if (cron) return;
      const tick = async (): Promise<void> => {
        try {
          const result = await runOnce();
          await after?.(result);
        } catch (err) {
          opts.logger.error({ job: opts.name, error: describeError(err) }, `${opts.name} round failed`);
        }
      };
      cron = new Cron(opts.schedule, { protect: true }, tick);
      if (immediately) void tick();
    },
    nextRun: () => cron?.nextRun() ?? null,
    async stop() {
      cron?.stop();
      cron = null;
      await inflight?.catch(() => undefined);
    },
  };
}
