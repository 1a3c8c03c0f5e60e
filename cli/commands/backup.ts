// `vaultd backup --db PATH --out FILE`: a consistent copy of the database file, also while a
// server serves it (store/backupDatabase.ts). Restoring is putting the copy in place of the
// file (with no server running on it) and starting `vaultd serve`: it serves the same
// snapshot, ETags included, since the publish identity is in the file.
import { assertBackupTarget, backupDatabase } from '../../store/backupDatabase.js';
import { BACKUP } from '../commandSpecs.js';
import { withStoreOut } from './storeOut.js';

/** A server's job may hold the file for a while (a recompute of a large world): wait that long. */
const WAIT_MS = 10 * 60_000;

export function backupCommand(argv: string[]): Promise<number> {
  const t0 = performance.now();
  return withStoreOut(
    BACKUP,
    argv,
    'FILE: the file to write the copy to',
    async ({ out, config, common, store }) => {
      const r = await backupDatabase(common, store, out);
      process.stdout.write(
        `backup of ${config.db} (schema v${r.schemaVersion}, ${r.snapshots} hourly snapshots, ${r.events} events) -> ${r.path}: ` +
          `${(r.bytes / 1048576).toFixed(1)} MiB in ${Math.round(performance.now() - t0)} ms\n`,
      );
    },
    { waitMs: WAIT_MS, checkOut: assertBackupTarget },
  );
}
