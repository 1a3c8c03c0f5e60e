// Every resource (server, pool, jobs, DB) registers a closer; a signal or the end of a
// command closes them in reverse order of registration, each at most once. The stop's
// AbortSignal is aborted first, so every round and recompute in flight (handed the signal)
// ends at its next check instead of running on while the resources close under it.
import { VaultdError } from './errors.js';
import type { Logger } from './logger.js';

export interface Shutdown {
  /** Register a closer; closers run last-registered first. */
  add(name: string, close: () => Promise<void> | void): void;
  /** Abort `signal`, then run every closer (idempotent); resolves when all are done. */
  close(reason: string): Promise<void>;
  readonly closing: boolean;
  /** Aborted once a close begins; its reason is a VaultdError with code STOPPED. */
  readonly signal: AbortSignal;
  /** Resolves once a close (by a stop signal or by the command) has run every closer. */
  readonly closed: Promise<void>;
}

export function createShutdown(logger: Logger): Shutdown {
  const closers: { name: string; close: () => Promise<void> | void }[] = [];
  const controller = new AbortController();
  let running: Promise<void> | null = null;
  let done: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (done = resolve));
  return {
    add(name, close) {
      closers.push({ name, close });
    },
    get closing() {
      return running !== null;
    },
    signal: controller.signal,
    closed,
    close(reason) {
      running ??= (async () => {
        logger.info({ reason }, 'shutting down');
        controller.abort(new VaultdError('STOPPED', `stopped (${reason})`));
        for (const c of closers.reverse()) {
          try {
            await c.close();
            logger.debug({ resource: c.name }, 'closed');
          } catch (err) {
            logger.error({ resource: c.name, err }, 'close failed');
          }
        }
        done();
      })();
      return running;
    },
  };
}
