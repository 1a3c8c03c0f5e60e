// The one scheduler of the program: each job's rounds run on its own schedule (a cron
// expression, or a pause between rounds) and on demand, and every job shares ONE mutex, so no
// two rounds ever overlap (a catch-up round at start, a chain round and a price round each wait
// for the one in flight). A round that fails with a retryable error (VaultdError.retryable) is
// retried with exponential backoff, a bounded number of times; any other failure is logged and
// the schedule goes on (the previous data keeps serving, DESIGN §9). Every round is counted
// and timed by job and outcome. The stop's AbortSignal reaches every round, and a stopped
// scheduler starts none. Timers are injected, so a test fires rounds itself.
import { Cron } from 'croner';
import { Counter, Histogram } from 'prom-client';
import { describeError, isStopped, VaultdError } from './errors.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { createMutex } from './mutex.js';

/** When a job's rounds run: on a cron expression (DESIGN §2 `schedules.*`), or `everyMs` after the previous round ended. */
export type Schedule = { cron: string } | { everyMs: number };

export interface Job {
  /** the job's name in logs and in the job metrics' `job` label */
  name: string;
  schedule: Schedule;
  /** One round; `signal` is aborted when the program stops. */
  run(signal: AbortSignal): Promise<void>;
}

/** A schedule armed: its next firing, and a stop. */
export interface Trigger {
  nextRun(): Date | null;
  stop(): void;
}

export interface Timers {
  /** Call `fire` on job `name`'s `schedule` until stopped; a firing due while the previous one runs is skipped. */
  every(name: string, schedule: Schedule, fire: () => Promise<void>): Trigger;
  /** Resolve after `ms`; reject with the signal's reason once it aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** Retries of a round that failed with a retryable error: `attempts` rounds in all, waiting base, 2 × base … up to max between them. */
export interface RetryPolicy {
  attempts: number;
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseMs: 2_000, maxMs: 30_000 };

export interface Scheduler {
  add(job: Job): void;
  /** One round of `name` now, after any round in flight, retried while it fails retryably; rejects with its last error. */
  run(name: string): Promise<void>;
  /** Every job's rounds on its schedule; with `immediately`, one round of each at once too, in the order added. */
  start(opts?: { immediately?: boolean }): void;
  /** The soonest scheduled round of any job, or null when not started. */
  nextRun(): Date | null;
  /** Stops the schedules and waits for the rounds asked for so far (a stop's aborted signal ends them early). */
  stop(): Promise<void>;
}

export interface SchedulerOptions {
  logger: Logger;
  metrics: Metrics;
  /** the stop: every round gets it, and none starts once it is aborted */
  signal: AbortSignal;
  timers?: Timers;
  retry?: RetryPolicy;
}

/** Real timers: croner for cron expressions (a round still running skips the next firing), setTimeout for pauses. */
export const realTimers: Timers = {
  every(_name, schedule, fire) {
    if ('cron' in schedule) {
      const cron = new Cron(schedule.cron, { protect: true }, fire);
      return { nextRun: () => cron.nextRun(), stop: () => cron.stop() };
    }
    let next: Date | null = null;
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const arm = () => {
      next = new Date(Date.now() + schedule.everyMs);
      timer = setTimeout(() => {
        next = null;
        void fire().finally(() => void (stopped || arm()));
      }, schedule.everyMs);
    };
    arm();
    return {
      nextRun: () => next,
      stop() {
        stopped = true;
        next = null;
        clearTimeout(timer);
      },
    };
  },
  sleep(ms, signal) {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  },
};

/** The job metrics of a registry (one pair per registry, whichever scheduler asks first). */
function jobMetrics(metrics: Metrics): { runs: Counter<'job' | 'outcome'>; seconds: Histogram<'job'> } {
  const runs =
    (metrics.getSingleMetric('vaultd_job_runs_total') as Counter<'job' | 'outcome'> | undefined) ??
    new Counter({ name: 'vaultd_job_runs_total', help: 'Scheduled job runs by job and outcome', labelNames: ['job', 'outcome'], registers: [metrics] });
  const seconds =
    (metrics.getSingleMetric('vaultd_job_duration_seconds') as Histogram<'job'> | undefined) ??
    new Histogram({ name: 'vaultd_job_duration_seconds', help: 'Scheduled job duration', labelNames: ['job'], registers: [metrics] });
  return { runs, seconds };
}

const retryable = (err: unknown) => err instanceof VaultdError && err.retryable;

export function createScheduler(opts: SchedulerOptions): Scheduler {
  const { logger, signal } = opts;
  const timers = opts.timers ?? realTimers;
  const retry = opts.retry ?? DEFAULT_RETRY;
  const { runs, seconds } = jobMetrics(opts.metrics);
  const mutex = createMutex();
  const jobs = new Map<string, Job>();
  const triggers: Trigger[] = [];
  const asked = new Set<Promise<void>>();
  let stopped = false;

  /** One attempt: under the mutex, counted and timed. */
  const attempt = (job: Job): Promise<void> =>
    mutex.run(async () => {
      if (stopped) throw new VaultdError('STOPPED', `${job.name}: the scheduler is stopped`);
      signal.throwIfAborted();
      const end = seconds.startTimer({ job: job.name });
      try {
        await job.run(signal);
        runs.inc({ job: job.name, outcome: 'ok' });
      } catch (err) {
        if (!isStopped(err)) runs.inc({ job: job.name, outcome: 'error' });
        throw err;
      } finally {
        end();
      }
    });

  async function withRetries(job: Job): Promise<void> {
    for (let n = 1; ; n++) {
      try {
        return await attempt(job);
      } catch (err) {
        if (!retryable(err) || n >= retry.attempts || signal.aborted || stopped) throw err;
        const ms = Math.min(retry.maxMs, retry.baseMs * 2 ** (n - 1));
        logger.warn({ job: job.name, attempt: n, retry_in_ms: ms, error: describeError(err) }, `${job.name} round failed; retrying`);
        // the mutex is free meanwhile: another job's round may run
        await timers.sleep(ms, signal);
      }
    }
  }

  function run(name: string): Promise<void> {
    const job = jobs.get(name);
    if (!job) return Promise.reject(new VaultdError('INTERNAL', `no job "${name}"`));
    const p = withRetries(job);
    asked.add(p);
    const forget = () => void asked.delete(p);
    p.then(forget, forget);
    return p;
  }

  return {
    add(job) {
      if (jobs.has(job.name)) throw new VaultdError('INTERNAL', `two jobs named "${job.name}"`);
      jobs.set(job.name, job);
    },
    run,
    start({ immediately = false } = {}) {
      if (triggers.length > 0 || stopped) return;
      for (const job of jobs.values()) {
        const tick = () =>
          run(job.name).catch((err) => {
            if (!isStopped(err)) logger.error({ job: job.name, error: describeError(err) }, `${job.name} round failed`);
          });
        triggers.push(timers.every(job.name, job.schedule, tick));
        if (immediately) void tick();
      }
    },
    nextRun() {
      let soonest: Date | null = null;
      for (const t of triggers) {
        const next = t.nextRun();
        if (next && (!soonest || next < soonest)) soonest = next;
      }
      return soonest;
    },
    async stop() {
      stopped = true;
      for (const t of triggers.splice(0)) t.stop();
      await Promise.allSettled([...asked]);
    },
  };
}
