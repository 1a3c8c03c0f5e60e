// Chains are fetched concurrently but share one DuckDB connection, whose transactions are
// per connection: every store access of a round goes through this lock, so one chain's
// statements never land inside another chain's open transaction.

export interface StoreLock {
  run<T>(work: () => Promise<T>): Promise<T>;
}

export function createStoreLock(): StoreLock {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run(work) {
      const next = tail.then(work, work);
      tail = next.catch(() => undefined);
      return next;
    },
  };
}
