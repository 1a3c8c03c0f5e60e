// `vaultd demo`: build (or with --force replace) the deterministic demo world (DESIGN §7).
import { createCommon } from '../../common/common.js';
import { loadConfig } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { VaultdError } from '../../common/errors.js';
import { createProgress } from '../../common/progress.js';
import { createDemoWorld } from '../../jobs/demo/createDemoWorld.js';
import { DEMO_DEFAULTS, lastFullHour, type DemoParams } from '../../jobs/demo/index.js';
import { servingProcesses } from '../../store/servedBy.js';
import { parseFlags, timeFlag } from '../args.js';
import { DEMO } from '../commandSpecs.js';

export async function demoCommand(argv: string[]): Promise<number> {
  const { values, int } = parseFlags(DEMO, argv);
  const config = loadConfig(VAULT_TYPES, { config: values.config, db: values.db });
  const now = timeFlag('now', values.now);
  const start = timeFlag('start', values.start);
  if (start !== undefined && start % 3600 !== 0)
    throw new VaultdError('USAGE', `invalid --start "${values.start}": the first simulated hour must be on the hour`);
  const params: DemoParams = demoParams({
    seed: int('seed'),
    now,
    vaults: int('vaults'),
    wallets: int('wallets'),
    days: int('days'),
    ...(start !== undefined ? { start } : {}),
  });
  if (start !== undefined && start > params.now) {
    throw new VaultdError('USAGE', `invalid --start "${values.start}": it is after --now (${new Date(params.now * 1000).toISOString()})`);
  }
  if (values['even-if-served'] && !values.force) throw new VaultdError('USAGE', '--even-if-served goes with --force (it says to replace a served file)');
  // a server holds the file only during its jobs: its marker says it depends on it between them
  const servers = values.force && !values['even-if-served'] ? servingProcesses(config.db) : [];
  if (servers.length > 0) {
    const who = servers.map((p) => `PID ${p.pid} (vaultd serve on ${p.listen}, since ${p.started_at})`).join(', ');
    throw new VaultdError(
      'DB_UNAVAILABLE',
      `database "${config.db}" is served by ${who}: replacing it would lose its API keys and leave that server on the old world; stop the server first, or add --even-if-served`,
    );
  }
  const common = createCommon(config);
  const summary = await createDemoWorld(common, {
    path: config.db,
    params,
    force: values.force ?? false,
    progress: createProgress(common.logger, 'demo'),
  });
  process.stdout.write(
    `demo world: ${summary.vaults} vaults, ${summary.wallets} wallets, ${summary.snapshots} snapshots, ` +
      `${summary.events} events, ${summary.prices} prices in ${summary.seconds} s ` +
      `(${summary.rows_per_second} rows/s) -> ${summary.path}\n`,
  );
  return 0;
}

/** Fill unset demo flags with the defaults; `now` defaults to the last full hour. */
export function demoParams(p: Partial<DemoParams>): DemoParams {
  return {
    seed: p.seed ?? DEMO_DEFAULTS.seed,
    now: p.now ?? lastFullHour(Date.now()),
    vaults: p.vaults ?? DEMO_DEFAULTS.vaults,
    wallets: p.wallets ?? DEMO_DEFAULTS.wallets,
    days: p.days ?? DEMO_DEFAULTS.days,
    ...(p.start !== undefined ? { start: p.start } : {}),
  };
}
