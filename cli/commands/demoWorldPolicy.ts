// When `vaultd serve` may build the demo world into an empty database (issue #38: a typo must
// never serve fake data): only at the default path — what `npm start` serves — or when asked
// with --demo, and never for a configuration that lists chains or vaults. Anything else is one
// line and exit 2, before a file is created.
import { resolve } from 'node:path';
import { parseConfig, type Config } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { VaultdError } from '../../common/errors.js';

/** The database `npm start` serves: the configuration's default `db`. */
export const DEFAULT_DB = parseConfig(VAULT_TYPES, {}, 'defaults').db;

type Policy = Pick<Config, 'db' | 'chains' | 'registry'>;

/** Whether a configuration lists chains or vaults (a deployment of its own, never a demo world). */
export const isConfiguredDeployment = (config: Policy): boolean => config.chains.length > 0 || config.registry.vaults.length > 0;

/** `--demo` with a configuration that lists chains or vaults: refused at once. */
export function checkDemoFlag(config: Policy, demo: boolean): void {
  if (demo && isConfiguredDeployment(config)) {
    throw new VaultdError(
      'USAGE',
      '--demo builds the fake demo world, which a configuration listing chains or vaults never gets; drop --demo, or the "chains" and "registry.vaults" of the configuration',
    );
  }
}

/**
 * The reason not to build the demo world into `config.db`, which holds no world (missing or
 * empty), or null when it may be built there.
 */
export function demoWorldRefusal(config: Policy, opts: { demo: boolean; exists: boolean }): VaultdError | null {
  const { chains, registry } = config;
  if (chains.length > 0 && registry.vaults.length === 0) {
    return new VaultdError(
      'CONFIG_INVALID',
      `the configuration lists chains but no "registry.vaults", and database "${config.db}" holds no world: there is nothing to serve (a configured deployment never gets the demo world); add the vaults to index, or leave out "chains" to serve the demo world`,
    );
  }
  if (chains.length === 0 && registry.vaults.length > 0) {
    return new VaultdError('CONFIG_INVALID', `"registry.vaults" lists vaults but "chains" lists no chain to read them from; add their chains with rpc_urls`);
  }
  if (opts.demo || resolve(config.db) === resolve(DEFAULT_DB)) return null;
  return new VaultdError(
    'DB_UNAVAILABLE',
    `${opts.exists ? `database "${config.db}" holds no world` : `no database at "${config.db}"`}; the demo world is built only at the default path (${DEFAULT_DB}) or with --demo: check --db (a typo?), or pass --demo to build it there`,
  );
}
