import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { createScheduledJob } from './scheduler.js';

const logger = createLogger('silent');
/** Wait for a state change; no deadline of its own (a loaded machine may miss a cron tick or two): the test's timeout bounds it. */
const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 20));
};

describe('createScheduledJob', () => {
  it('runs rounds one at a time, in the order asked, and hands each caller its own result', async () => {
    const events: string[] = [];
    let n = 0;
    const job = createScheduledJob({
      name: 't',
      schedule: '0 0 1 1 *',
      logger,
      round: async () => {
        const i = ++n;
        events.push(`start ${i}`);
        await new Promise((r) => setTimeout(r, 10));
        events.push(`end ${i}`);
        if (i === 2) throw new Error('round 2 failed');
        return i;
      },
    });
    const results = await Promise.allSettled([job.runOnce(), job.runOnce(), job.runOnce()]);
    expect(events).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([1, 'round 2 failed', 3]);
  });

  it('a failed scheduled round is logged and the schedule goes on; after() sees successful rounds; stop waits for the round in flight', async () => {
    const lines: string[] = [];
    const sink = createLogger('error');
    const logged = sink.child({});
    logged.error = ((obj: Record<string, unknown>, msg: string) => void lines.push(`${String(obj.job)}: ${msg}: ${String(obj.error)}`)) as typeof logged.error;
    let n = 0;
    let finished = 0;
    const seen: number[] = [];
    const job = createScheduledJob({
      name: 'every-second',
      schedule: '* * * * * *',
      logger: logged,
      round: async () => {
        const i = ++n;
        await new Promise((r) => setTimeout(r, 50));
        finished = i;
        if (i === 1) throw new Error('boom');
        return i;
      },
    });
    expect(job.nextRun()).toBeNull();
    job.start({ immediately: true, after: (i) => void seen.push(i) });
    expect(job.nextRun()).toBeInstanceOf(Date);
    await until(() => seen.length >= 1);
    await job.stop();
    expect(job.nextRun()).toBeNull();
    expect(lines[0]).toBe('every-second: every-second round failed: boom');
    expect(seen[0]).toBe(2);
    // nothing was left running after stop()
    expect(finished).toBe(n);
  });
});
