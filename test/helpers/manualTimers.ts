// Timers a test drives (common/scheduler.ts's Timers): a job's scheduled round fires when the
// test calls `fire`, and a retry's backoff is recorded and ends at once — no wall clock.
import type { Schedule, Timers } from '../../common/scheduler.js';

export interface ManualTimers {
  timers: Timers;
  /** Fire job `name`'s schedule once; resolves when that round (and its failure log) is done. */
  fire(name: string): Promise<void>;
  /** The jobs whose schedules are armed. */
  armed(): string[];
  /** Every backoff asked for, in ms. */
  sleeps: number[];
  /** Set what job `name`'s trigger reports as its next run. */
  setNext(name: string, next: Date | null): void;
}

export function manualTimers(): ManualTimers {
  const armed = new Map<string, { schedule: Schedule; fire: () => Promise<void>; next: Date | null }>();
  const sleeps: number[] = [];
  return {
    timers: {
      every(name, schedule, fire) {
        const t = { schedule, fire, next: null as Date | null };
        armed.set(name, t);
        return { nextRun: () => t.next, stop: () => void armed.delete(name) };
      },
      async sleep(ms, signal) {
        signal.throwIfAborted();
        sleeps.push(ms);
      },
    },
    fire(name) {
      const t = armed.get(name);
      if (!t) throw new Error(`job "${name}" is not armed`);
      return t.fire();
    },
    armed: () => [...armed.keys()],
    sleeps,
    setNext(name, next) {
      const t = armed.get(name);
      if (!t) throw new Error(`job "${name}" is not armed`);
      t.next = next;
    },
  };
}

/** A promise and its resolve: a gate a test opens when it means to. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}
