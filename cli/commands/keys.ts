// `vaultd keys create NAME | list | revoke ID`: API credentials, stored only as SHA-256.
import { createCommon } from '../../common/common.js';
import { VAULT_TYPES } from '../../families/index.js';
import { closest, loadConfig } from '../../common/config.js';
import { VaultdError } from '../../common/errors.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../../store/apiKeys.js';
import { openStoreWithRetry } from '../../store/storeHandle.js';
import { parseFlags } from '../args.js';
import { KEYS } from '../commandSpecs.js';

export async function keysCommand(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  const arity = action === 'create' || action === 'revoke' ? 1 : 0;
  if (action !== 'create' && action !== 'list' && action !== 'revoke') {
    const near = action === undefined ? undefined : closest(action, ['create', 'list', 'revoke']);
    throw new VaultdError(
      'USAGE',
      `keys: expected "create NAME", "list" or "revoke ID", got ${action ? `"${action}"` : 'nothing'}${near ? `; did you mean "${near}"?` : ''}`,
    );
  }
  const { values, positionals } = parseFlags(KEYS, rest, { positionals: arity, as: `keys ${action}` });
  if (positionals.length < arity) {
    throw new VaultdError('USAGE', `keys ${action}: missing ${action === 'create' ? 'NAME' : 'ID'}`);
  }
  const config = loadConfig(VAULT_TYPES, { config: values.config, db: values.db });
  const common = createCommon(config);
  const store = await openStoreWithRetry(common, { path: config.db, mustExist: true });
  try {
    if (action === 'create') {
      const { id, secret } = await createApiKey(store, positionals[0]!);
      process.stdout.write(`created API key ${id} (${positionals[0]}); the secret is shown once, on the next line:\n${secret}\n`);
    } else if (action === 'list') {
      for (const k of await listApiKeys(store)) {
        process.stdout.write(`${k.id}\t${k.name}\t${k.tier}\t${k.created_at}\t${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}\n`);
      }
    } else {
      await revokeApiKey(store, positionals[0]!).catch((err: unknown) => {
        // an unknown id is the caller's mistake: exit 2 like every other bad argument
        throw err instanceof VaultdError && err.code === 'NOT_FOUND' ? new VaultdError('USAGE', err.message) : err;
      });
      process.stdout.write(`revoked ${positionals[0]}\n`);
    }
  } finally {
    await store.close();
  }
  return 0;
}
