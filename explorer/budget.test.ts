import { describe, expect, it } from 'vitest';
import type { Answer } from '../client/transport.js';
import { createBudget } from './budget.js';

function answer<T>(body: T, remaining: number | null): Answer<T> {
  return { body, response: { rateLimit: remaining === null ? null : { limit: 60, remaining, reset: 60 } } as Answer<T>['response'] };
}

describe('createBudget', () => {
  it('runs at most `concurrency` tasks at once', async () => {
    const budget = createBudget({ concurrency: 2, reserve: 0, remaining: null });
    let running = 0;
    let most = 0;
    const task = async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return answer('ok', null);
    };
    const out = await Promise.all(Array.from({ length: 7 }, () => budget.run(task)));
    expect(out).toEqual(Array(7).fill('ok'));
    expect(most).toBe(2);
    expect(budget.exhausted).toBe(false);
  });

  it('stops before the server-reported remainder falls to the reserve, and says so', async () => {
    const budget = createBudget({ concurrency: 1, reserve: 20, remaining: 25 });
    let sent = 0;
    let left = 25;
    const task = async () => {
      sent++;
      return answer(sent, --left);
    };
    const out = await Promise.all(Array.from({ length: 10 }, () => budget.run(task)));
    // 25 → 21 leaves the reserve of 20 untouched
    expect(sent).toBe(4);
    expect(out).toEqual([1, 2, 3, 4, null, null, null, null, null, null]);
    expect(budget.exhausted).toBe(true);
  });

  it('an answer seen elsewhere (another tab spent some) lowers the remainder', async () => {
    const budget = createBudget({ concurrency: 1, reserve: 10, remaining: 50 });
    budget.observe(11);
    expect(await budget.run(async () => answer('x', 49))).toBeNull();
  });
});
