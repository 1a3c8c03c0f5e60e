// `vaultd wallets`: wallet addresses known to the store, most active first.
import { createCommon } from '../../common/common.js';
import { loadConfig } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { walletsByActivity } from '../../store/queries.js';
import { openStoreWithRetry } from '../../store/storeHandle.js';
import { parseFlags } from '../args.js';
import { WALLETS } from '../commandSpecs.js';

export async function walletsCommand(argv: string[]): Promise<number> {
  const { values, int } = parseFlags(WALLETS, argv);
  const limit = int('limit');
  const config = loadConfig(VAULT_TYPES, { config: values.config, db: values.db });
  const store = await openStoreWithRetry(createCommon(config), { path: config.db, mustExist: true });
  try {
    const wallets = await walletsByActivity(store, limit);
    process.stdout.write(wallets.map((w) => `${w}\n`).join(''));
  } finally {
    await store.close();
  }
  return 0;
}
