// A consistent copy of the database file while other processes use it (`vaultd backup`): with
// the file open here — DuckDB lets one process at a time open it, so no server job writes
// meanwhile — a CHECKPOINT moves everything into the file (the write-ahead log is then empty),
// and the file is copied (a reflink where the filesystem has them) to a temporary name, synced,
// checked by opening it, and renamed into place. A server's jobs wait for the copy.
import { closeSync, constants, copyFileSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Common } from '../common/common.js';
import { ensureDir } from '../common/ensureDir.js';
import { VaultdError } from '../common/errors.js';
import { createStore, type Store } from './store.js';

export interface BackupResult {
  path: string;
  bytes: number;
  schemaVersion: number;
  /** hourly snapshot and event rows, the same in the copy as in the database */
  snapshots: number;
  events: number;
}

const counts = async (store: Store) =>
  (await store.one<{ snapshots: bigint; events: bigint }>(
    'backup.counts',
    'SELECT (SELECT count(*) FROM vault_snapshots) AS snapshots, (SELECT count(*) FROM vault_events) AS events',
  ))!;

/**
 * Refuse `out` as the target of a backup of database `db`: the database itself, or an existing
 * file (a backup never overwrites one). The command checks it before it opens the database, so
 * the refusal comes at once, not after a wait for a server's job that holds the file; the copy
 * checks it again.
 */
export function assertBackupTarget(out: string, db: string): void {
  if (resolve(out) === resolve(db)) throw new VaultdError('USAGE', `--out "${out}" is the database itself; name another file`);
  try {
    statSync(resolve(out));
  } catch {
    return;
  }
  throw new VaultdError('USAGE', `"${out}" already exists; name a new file (a backup never overwrites one)`);
}

/** Copy the database `store` has open to `out` (which must not exist). */
export async function backupDatabase(common: Common, store: Store, out: string): Promise<BackupResult> {
  const target = resolve(out);
  assertBackupTarget(out, store.path);
  ensureDir(dirname(target));
  await store.run('backup.checkpoint', 'FORCE CHECKPOINT');
  const before = await counts(store);
  const schemaVersion = await store.schemaVersion();
  const temp = `${target}.tmp-${process.pid}`;
  try {
    copyFileSync(store.path, temp, constants.COPYFILE_FICLONE);
    const fd = openSync(temp, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // the copy opens as a database and holds the same rows (read-only: it stays byte for byte the copy)
    const copy = await createStore(common, { path: temp, readOnly: true });
    try {
      const after = await counts(copy);
      if (after.snapshots !== before.snapshots || after.events !== before.events || (await copy.schemaVersion()) !== schemaVersion) {
        throw new VaultdError('STORE_QUERY_FAILED', `the copy of "${store.path}" does not hold the same rows; nothing was kept`);
      }
    } finally {
      await copy.close();
    }
    renameSync(temp, target);
  } catch (err) {
    rmSync(temp, { force: true });
    if (err instanceof VaultdError) throw err;
    throw new VaultdError('STORE_QUERY_FAILED', `copying "${store.path}" to "${out}" failed: ${(err as Error).message}`, { cause: err });
  }
  return { path: target, bytes: statSync(target).size, schemaVersion, snapshots: Number(before.snapshots), events: Number(before.events) };
}
