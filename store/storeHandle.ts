// Short-lived access to the database file. DuckDB lets one process write a file at a time, so
// a long-running server opens it per job and closes it after, and every opener retries while
// another process (a `vaultd keys create`, a job of the server) holds the lock.
import { resolve } from 'node:path';
import type { Common } from '../common/common.js';
import { createMutex, type Mutex } from '../common/mutex.js';
import { VaultdError } from '../common/errors.js';
import { createStore, lockHolder, type Store, type StoreOptions } from './store.js';

function holderOf(err: unknown): string | undefined {
  return err instanceof VaultdError ? lockHolder(String((err.cause as Error | undefined)?.message ?? err.message)) : undefined;
}

export function isLockError(err: unknown): boolean {
  return holderOf(err) !== undefined;
}

/** Open the store, retrying with backoff while another process holds the file lock. */
export async function openStoreWithRetry(common: Common, options: StoreOptions, waitMs = 15_000): Promise<Store> {
  const deadline = Date.now() + waitMs;
  for (let delay = 25; ; delay = Math.min(delay * 2, 500)) {
    try {
      return await createStore(common, options);
    } catch (err) {
      if (!isLockError(err) || Date.now() + delay > deadline) {
        if (isLockError(err)) {
          throw new VaultdError(
            'DB_UNAVAILABLE',
            `database "${options.path}" is held by ${holderOf(err)} for over ${Math.round(waitMs / 1000)} s; stop that process or retry later`,
            { cause: err },
          );
        }
        throw err;
      }
      if (delay === 25) common.logger.warn({ path: options.path, holder: holderOf(err) }, 'database is locked by another process; waiting');
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

// DuckDB's file lock is per process: a second instance of the same file in this process would
// open it too, and two instances writing one file corrupt it. Openers in one process queue.
interface Queue {
  mutex: Mutex;
  users: number;
  /** the store a holdStore keeps open, which withStore calls use meanwhile */
  held: Store | null;
}
const queues = new Map<string, Queue>();

function enter(path: string): { key: string; q: Queue } {
  const key = resolve(path);
  let q = queues.get(key);
  if (!q) queues.set(key, (q = { mutex: createMutex(), users: 0, held: null }));
  q.users++;
  return { key, q };
}

function leave(key: string, q: Queue): void {
  if (--q.users === 0) queues.delete(key);
}

/**
 * Run `work` with the store open, then close it (even on error). Calls for the same file in
 * one process run one after another (never nest them: the inner call would wait forever).
 * While the file is held (holdStore), `work` runs on the held store and nothing is reopened.
 */
export async function withStore<T>(common: Common, options: StoreOptions, work: (store: Store) => Promise<T>): Promise<T> {
  const run = async () => {
    const store = await openStoreWithRetry(common, options);
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  };
  if (options.path === ':memory:') return run();
  const { key, q } = enter(options.path);
  try {
    return await q.mutex.run(() => (q.held ? work(q.held) : run()));
  } finally {
    leave(key, q);
  }
}

/**
 * Keep the file open across withStore calls until the returned release (idempotent): a
 * server's start makes several short reads (the cursor secret, the inputs' stamp, the keys),
 * and each open and close of the file costs ~40 ms. One holder at a time; withStore calls
 * meanwhile use the held store (opened with these options) under the same queue.
 */
export async function holdStore(common: Common, options: StoreOptions): Promise<() => Promise<void>> {
  if (options.path === ':memory:') return async () => {};
  const { key, q } = enter(options.path);
  try {
    await q.mutex.run(async () => {
      q.held ??= await openStoreWithRetry(common, options);
    });
  } catch (err) {
    leave(key, q);
    throw err;
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    try {
      await q.mutex.run(async () => {
        const store = q.held;
        q.held = null;
        await store?.close();
      });
    } finally {
      leave(key, q);
    }
  };
}
