// Before a migration changes a database file written by an earlier release, a copy of the file
// as it was is kept beside it (`<db>.schema-v<N>.bak`, N its schema version), so an upgrade
// can be undone by putting the copy back and running the earlier release.
import { constants, copyFileSync, renameSync, rmSync } from 'node:fs';
import { VaultdError } from '../common/errors.js';

/** Where the copy of a file at schema version `version` is kept. */
export const migrationBackupPath = (db: string, version: number): string => `${db}.schema-v${version}.bak`;

/**
 * Copy the closed (checkpointed) file to its backup path, written to a temporary name and
 * renamed, so a copy on disk is always whole. Returns the path.
 */
export function backupBeforeMigration(db: string, version: number): string {
  const target = migrationBackupPath(db, version);
  const temp = `${target}.tmp-${process.pid}`;
  try {
    // a reflink where the filesystem has them (instant), else a byte copy
    copyFileSync(db, temp, constants.COPYFILE_FICLONE);
    renameSync(temp, target);
  } catch (cause) {
    rmSync(temp, { force: true });
    throw new VaultdError(
      'DB_UNAVAILABLE',
      `database "${db}" needs a migration, but the copy kept before it could not be written to "${target}": ${(cause as Error).message}`,
      { cause },
    );
  }
  return target;
}
