// The frame `publish`, `export` and `backup` share: each writes what a database holds to
// `--out`, so each needs the flag, the configuration, the database opened (it must exist;
// waiting for a server's job that holds it) and both closed however the work ends.
import { createCommon, type Common } from '../../common/common.js';
import { type Config, loadConfig } from '../../common/config.js';
import { VaultdError } from '../../common/errors.js';
import { VAULT_TYPES } from '../../families/index.js';
import { openStoreWithRetry } from '../../store/storeHandle.js';
import type { Store } from '../../store/store.js';
import { parseFlags } from '../args.js';
import type { CommandSpec, FlagSpec, FlagSpecs } from '../commandSpec.js';

type OutFlags = FlagSpecs & { out: FlagSpec; config: FlagSpec; db: FlagSpec };

/**
 * Runs `work` with the parsed `--out` (as given) and an open store; `what` says what --out is
 * for (the USAGE message when it is missing), `waitMs` how long a held database is waited for,
 * `checkOut` refuses a bad --out before the database is opened (at once, not after a wait).
 * Returns the exit code (0; failures throw).
 */
export async function withStoreOut<F extends OutFlags>(
  spec: Pick<CommandSpec<F>, 'name' | 'flags'>,
  argv: string[],
  what: string,
  work: (x: { out: string; config: Config; common: Common; store: Store }) => Promise<void>,
  opts: { waitMs?: number; checkOut?: (out: string, db: string) => void } = {},
): Promise<number> {
  const { values } = parseFlags(spec, argv);
  const out = values.out as string | undefined;
  if (out === undefined || out === '') throw new VaultdError('USAGE', `missing --out ${what}`);
  const config = loadConfig(VAULT_TYPES, { config: values.config as string | undefined, db: values.db as string | undefined });
  opts.checkOut?.(out, config.db);
  const common = createCommon(config);
  const store = await openStoreWithRetry(common, { path: config.db, mustExist: true }, opts.waitMs);
  try {
    await work({ out, config, common, store });
  } finally {
    await store.close();
    await common.shutdown.close('done');
  }
  return 0;
}
