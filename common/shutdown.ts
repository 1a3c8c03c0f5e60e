// Every resource (server, pool, jobs, DB) registers a closer; a signal or the end of a
// command closes them in reverse order of registration, each at most once.
import type { Logger } from './logger.js';

export interface Shutdown {
  /** Register a closer; closers run last-registered first. */
  add(name: string, close: () => Promise<void> | void): void;
  /** Run every closer (idempotent); resolves when all are done. */
  close(reason: string): Promise<void>;
  readonly closing: boolean;
}

export function createShutdown(logger: Logger): Shutdown {
  const closers: { name: string; close: () => Promise<void> | void }[] = [];
  let running: Promise<void> | null = null;
  return {
    add(name, close) {
      closers.push({ name, close });
    },
    get closing() {
      return running !== null;
    },
    close(reason) {
      running ??= (async () => {
        logger.info({ reason }, 'shutting down');
        for (const c of closers.reverse()) {
          try {
            await c.close();
            logger.debug({ resource: c.name }, 'closed');
          } catch (err) {
            logger.error({ resource: c.name, err }, 'close failed');
          }
        }
      })();
      return running;
    },
  };
}
