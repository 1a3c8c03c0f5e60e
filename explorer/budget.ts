// Background requests (sparklines, prices at the time of a flow) under the anonymous tier's
// budget (60 a minute per IP): a few at a time, and none once the server's own count
// (`RateLimit-Remaining` of the last answer) would fall to the reserve kept for the reader's
// next clicks. What is skipped says so; nothing here blocks a page's first render.
import type { Answer } from '../client/transport.js';

export interface BudgetOptions {
  /** requests in flight at once */
  concurrency: number;
  /** requests left to the reader: the queue stops before `remaining` falls to this */
  reserve: number;
  /** `RateLimit-Remaining` of an answer the page already has; null when unknown */
  remaining: number | null;
}

export interface Budget {
  /** run `task` when a slot is free; null when the budget is spent (the task never runs) */
  run<T>(task: () => Promise<Answer<T>>): Promise<T | null>;
  /** an answer read elsewhere on the page lowers what is left */
  observe(remaining: number | null | undefined): void;
  /** whether a task was refused for the budget */
  readonly exhausted: boolean;
}

export function createBudget(options: BudgetOptions): Budget {
  let remaining = options.remaining;
  let active = 0;
  let exhausted = false;
  const waiting: (() => void)[] = [];
  // a slot is taken when a waiting task is let go, not when it starts running
  const next = () => {
    while (active < options.concurrency && waiting.length > 0) {
      active++;
      waiting.shift()!();
    }
  };
  const budget: Budget = {
    get exhausted() {
      return exhausted;
    },
    observe(r) {
      if (typeof r === 'number') remaining = remaining === null ? r : Math.min(remaining, r);
    },
    async run(task) {
      await new Promise<void>((go) => {
        waiting.push(go);
        next();
      });
      // counted before it is sent, so tasks in flight are already spent
      if (remaining !== null && remaining - 1 <= options.reserve) {
        exhausted = true;
        active--;
        next();
        return null;
      }
      if (remaining !== null) remaining--;
      try {
        const answer = await task();
        budget.observe(answer.response.rateLimit?.remaining);
        return answer.body;
      } finally {
        active--;
        next();
      }
    },
  };
  return budget;
}
