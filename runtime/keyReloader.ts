// Active API keys, re-read whenever the database file changes, so keys made or revoked while
// the server runs (`vaultd keys create` in another process) take effect without a restart. The
// server's table is built from the digests by the caller (server/auth.ts's createAuthTable).
import { statSync } from 'node:fs';
import type { Common } from '../common/common.js';
import type { StoreAccess } from '../engine/engine.js';
import { activeKeyDigests } from '../store/apiKeys.js';

export type KeyDigests = Awaited<ReturnType<typeof activeKeyDigests>>;

export interface KeyReloader<T> {
  readonly table: T;
  /** Re-read the keys when the file changed since the last read. */
  reload(): Promise<void>;
  /**
   * Two stat calls, at most once per turn of the event loop; a reload only when the database
   * file changed since the last one. A `keys create` or `revoke` that returned before a turn
   * began is seen by that turn's first check, so an idle server sees it on the next request;
   * under load, a request that arrives on a socket the turn has not read yet may be answered
   * with the check made earlier in the turn (a window of one turn, ~1 ms at saturation). Under
   * load a turn serves tens of keyed requests, and the stat calls were most of their cost.
   */
  reloadIfStale(): Promise<void> | null;
  /** Reload every `everyMs` until the program stops. */
  poll(everyMs: number): void;
}

export function createKeyReloader<T>(opts: {
  common: Common;
  store: StoreAccess;
  path: string;
  build: (digests: KeyDigests) => T;
  /** after each reload (the snapshot files carry the keys' digests for readers) */
  onChange?: () => void;
}): KeyReloader<T> {
  const { common, path } = opts;
  let table = opts.build([]);
  let stamp = '';
  // asked on every request with a credential: a missing file (the WAL, most of the time) is
  // `undefined`, not an exception (building an Error with its stack cost a keyed request ~20 µs)
  const statOf = (p: string) => {
    try {
      const s = statSync(p, { throwIfNoEntry: false });
      return s === undefined ? '-' : `${s.size}:${s.mtimeMs}`;
    } catch {
      return '-';
    }
  };
  const wal = `${path}.wal`;
  const fileStamp = () => `${statOf(path)}|${statOf(wal)}`;
  let inflight: Promise<void> | null = null;
  let checkedThisTurn = false;
  const endTurn = () => {
    checkedThisTurn = false;
  };
  const reload = (): Promise<void> => {
    if (inflight) return inflight;
    if (fileStamp() === stamp) return Promise.resolve();
    inflight = opts
      .store(activeKeyDigests)
      .then((rows) => {
        table = opts.build(rows);
        // after the read: opening the file may itself touch it
        stamp = fileStamp();
        opts.onChange?.();
        common.logger.debug({ keys: rows.length }, 'API keys loaded');
      })
      .finally(() => (inflight = null));
    return inflight;
  };
  return {
    get table() {
      return table;
    },
    reload,
    reloadIfStale() {
      if (inflight) return inflight;
      if (checkedThisTurn) return null;
      checkedThisTurn = true;
      setImmediate(endTurn).unref();
      return fileStamp() === stamp ? null : reload();
    },
    poll(everyMs) {
      const timer = setInterval(() => void reload().catch((err) => common.logger.warn({ err }, 'key reload failed')), everyMs);
      common.shutdown.add('keys', () => clearInterval(timer));
    },
  };
}
