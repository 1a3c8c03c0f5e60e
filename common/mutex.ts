// The one promise mutex of the program: `run` calls wait for every earlier call to settle,
// so their work never interleaves (one DuckDB connection's transactions, one recompute at a
// time, one opener of a database file per process).

export interface Mutex {
  run<T>(work: () => Promise<T>): Promise<T>;
}

export function createMutex(): Mutex {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run(work) {
      const next = tail.then(work, work);
      tail = next.catch(() => undefined);
      return next;
    },
  };
}
