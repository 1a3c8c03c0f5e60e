// `vaultd backup --db PATH --out FILE`: a consistent copy of the database file, also while a
// server serves it (store/backupDatabase.ts). Restoring is putting the copy in place of the
// file (with no server running on it) and starting `vaultd serve`: it serves the same
// snapshot, ETags included, since the publish identity is in the file.
import { createCommon } from '../../common/common.js';
import { loadConfig } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { VaultdError } from '../../common/errors.js';
import { backupDatabase } from '../../store/backupDatabase.js';
import { openStoreWithRetry } from '../../store/storeHandle.js';
import { parseFlags } from '../args.js';
import { BACKUP } from '../commandSpecs.js';

/** A server's job may hold the file for a while (a recompute of a large world): wait that long. */
const WAIT_MS = 10 * 60_000;

export async function backupCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(BACKUP, argv);
  if (values.out === undefined || values.out === '') throw new VaultdError('USAGE', 'missing --out FILE: the file to write the copy to');
  const config = loadConfig(VAULT_TYPES, { config: values.config, db: values.db });
  const common = createCommon(config);
  const t0 = performance.now();
  const store = await openStoreWithRetry(common, { path: config.db, mustExist: true }, WAIT_MS);
  try {
    const r = await backupDatabase(common, store, values.out);
    process.stdout.write(
      `backup of ${config.db} (schema v${r.schemaVersion}, ${r.snapshots} hourly snapshots, ${r.events} events) -> ${r.path}: ` +
        `${(r.bytes / 1048576).toFixed(1)} MiB in ${Math.round(performance.now() - t0)} ms\n`,
    );
  } finally {
    await store.close();
    await common.shutdown.close('done');
  }
  return 0;
}
