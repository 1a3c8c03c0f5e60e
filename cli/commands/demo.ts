// `vaultd demo`: build (or with --force replace) the deterministic demo world (DESIGN §7).
import { createCommon } from '../../common/common.js';
import { loadConfig } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { createProgress } from '../../common/progress.js';
import { createDemoWorld } from '../../jobs/demo/createDemoWorld.js';
import { DEMO_DEFAULTS, lastFullHour, type DemoParams } from '../../jobs/demo/index.js';
import { intFlag, parseFlags, timeFlag } from '../args.js';

export async function demoCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags('demo', argv, {
    db: { type: 'string' },
    config: { type: 'string' },
    seed: { type: 'string' },
    now: { type: 'string' },
    vaults: { type: 'string' },
    wallets: { type: 'string' },
    days: { type: 'string' },
    force: { type: 'boolean' },
  });
  const config = loadConfig(VAULT_TYPES, { config: values.config, db: values.db });
  const now = timeFlag('now', values.now);
  const params: DemoParams = demoParams({
    seed: intFlag('seed', values.seed, 0, 2 ** 32 - 1),
    now: now === undefined ? undefined : lastFullHour(now * 1000),
    vaults: intFlag('vaults', values.vaults, 1, 100_000),
    wallets: intFlag('wallets', values.wallets, 1, 10_000_000),
    days: intFlag('days', values.days, 1, 3650),
  });
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
  };
}
