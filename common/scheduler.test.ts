// The one scheduler: one mutex across jobs, retries of retryable failures only (with backoff and
// a bound), the job metrics, a failed scheduled round logged while the schedule goes on, a stop
// that waits for the round in flight. Rounds are fired by the test (test/helpers/manualTimers.ts).
import { describe, expect, it } from 'vitest';
import { gate, manualTimers } from '../test/helpers/manualTimers.js';
import { VaultdError } from './errors.js';
import { createLogger, type Logger } from './logger.js';
import { createMetrics } from './metrics.js';
import { createScheduler, realTimers, type Job } from './scheduler.js';

/** A logger whose error and warn lines are kept as `msg: error`. */
function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger('silent').child({});
  logger.error = ((obj: Record<string, unknown>, msg: string) => void lines.push(`error ${msg}: ${String(obj.error)}`)) as Logger['error'];
  logger.warn = ((obj: Record<string, unknown>, msg: string) => void lines.push(`warn ${msg}: ${String(obj.error)}`)) as Logger['warn'];
  return { logger, lines };
}

function setup(retry = { attempts: 3, baseMs: 100, maxMs: 150 }) {
  const { logger, lines } = recordingLogger();
  const metrics = createMetrics();
  const stop = new AbortController();
  const manual = manualTimers();
  const scheduler = createScheduler({ logger, metrics, signal: stop.signal, timers: manual.timers, retry });
  const counts = async () => {
    const runs = (await metrics.getSingleMetric('vaultd_job_runs_total')!.get()).values;
    return Object.fromEntries(runs.map((v) => [`${v.labels.job}:${v.labels.outcome}`, v.value]));
  };
  return { scheduler, lines, manual, stop, counts, metrics };
}

const job = (name: string, run: Job['run']): Job => ({ name, schedule: { cron: '0 0 1 1 *' }, run });

describe('createScheduler', () => {
  it('one mutex across jobs: a round of another job waits for the one in flight, in the order asked', async () => {
    const { scheduler, manual } = setup();
    const events: string[] = [];
    const first = gate();
    scheduler.add(
      job('a', async () => {
        events.push('a start');
        await first.promise;
        events.push('a end');
      }),
    );
    scheduler.add(job('b', async () => void events.push('b')));
    scheduler.start();
    expect(manual.armed()).toEqual(['a', 'b']);
    const a = manual.fire('a');
    const b = manual.fire('b');
    const again = scheduler.run('b');
    await new Promise((r) => setImmediate(r));
    expect(events).toEqual(['a start']);
    first.open();
    await Promise.all([a, b, again]);
    expect(events).toEqual(['a start', 'a end', 'b', 'b']);
  });

  it('a retryable failure is retried with backoff up to the bound; a non-retryable one is not; each attempt is counted', async () => {
    const { scheduler, manual, lines, counts } = setup({ attempts: 4, baseMs: 100, maxMs: 250 });
    let flaky = 0;
    scheduler.add(
      job('flaky', async () => {
        if (++flaky < 4) throw new VaultdError('SOURCE_FAILED', `timeout ${flaky}`, { retryable: true });
      }),
    );
    let broken = 0;
    scheduler.add(
      job('broken', async () => {
        broken++;
        throw new VaultdError('SOURCE_FAILED', 'bad answer');
      }),
    );
    let down = 0;
    scheduler.add(
      job('down', async () => {
        down++;
        throw new VaultdError('SOURCE_FAILED', 'still down', { retryable: true });
      }),
    );
    await scheduler.run('flaky');
    expect(flaky).toBe(4);
    expect(manual.sleeps).toEqual([100, 200, 250]);
    await expect(scheduler.run('broken')).rejects.toThrow('bad answer');
    expect(broken).toBe(1);
    expect(manual.sleeps).toHaveLength(3);
    await expect(scheduler.run('down')).rejects.toThrow('still down');
    expect(down).toBe(4);
    expect(await counts()).toEqual({ 'flaky:error': 3, 'flaky:ok': 1, 'broken:error': 1, 'down:error': 4 });
    expect(lines.filter((l) => l.startsWith('warn'))).toHaveLength(6);
    expect(lines[0]).toBe('warn flaky round failed; retrying: timeout 1');
  });

  it('a failed scheduled round is logged and the schedule goes on', async () => {
    const { scheduler, manual, lines } = setup();
    let n = 0;
    scheduler.add(
      job('every', async () => {
        if (++n === 1) throw new Error('boom');
      }),
    );
    scheduler.start();
    await manual.fire('every');
    await manual.fire('every');
    expect(n).toBe(2);
    expect(lines).toEqual(['error every round failed: boom']);
  });

  it('start({ immediately }) runs each job once at once, in the order added; nextRun is the soonest trigger', async () => {
    const { scheduler, manual } = setup();
    const order: string[] = [];
    let done = 0;
    const finished = gate();
    for (const name of ['x', 'y'])
      scheduler.add(
        job(name, async () => {
          order.push(name);
          if (++done === 2) finished.open();
        }),
      );
    expect(scheduler.nextRun()).toBeNull();
    scheduler.start({ immediately: true });
    await finished.promise;
    expect(order).toEqual(['x', 'y']);
    manual.setNext('x', new Date(2_000));
    manual.setNext('y', new Date(1_000));
    expect(scheduler.nextRun()).toEqual(new Date(1_000));
  });

  it('stop: the round in flight sees the abort, stop waits for it, and no round starts after', async () => {
    const { scheduler, manual, stop, lines, counts } = setup();
    const started = gate();
    let seen: unknown = null;
    scheduler.add(
      job('long', async (signal) => {
        started.open();
        await new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
      }),
    );
    scheduler.add(job('next', async () => void lines.push('next ran')));
    scheduler.start();
    const round = manual.fire('long');
    const queued = scheduler.run('next').catch((err) => void (seen = err));
    await started.promise;
    stop.abort(new VaultdError('STOPPED', 'stopped (test)'));
    await scheduler.stop();
    await round;
    await queued;
    expect((seen as VaultdError).code).toBe('STOPPED');
    expect(manual.armed()).toEqual([]);
    // a stop is no failure: not logged, not counted as an error
    expect(lines).toEqual([]);
    expect(await counts()).toEqual({});
  });

  it('realTimers.sleep ends at once with the signal reason when the signal aborts', async () => {
    const stop = new AbortController();
    const sleeping = realTimers.sleep(60_000, stop.signal);
    stop.abort(new VaultdError('STOPPED', 'stopped (test)'));
    await expect(sleeping).rejects.toThrow('stopped (test)');
  });
});
