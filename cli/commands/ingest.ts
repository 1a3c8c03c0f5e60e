// `vaultd ingest [--config FILE] [--once] [--db PATH]`: chain ingest of the configured vaults
// (DESIGN §2, §6.1), then USD prices and external TVL sources (§6.3). `--once` runs one round
// of each and exits (1 if a chain stalled or a price provider failed); otherwise chain rounds
// run on `schedules.ingest` and price rounds on `schedules.prices` until SIGTERM/SIGINT. One
// summary line per chain, provider and source on stdout; progress as JSON log lines on stderr.
import { createCommon } from '../../common/common.js';
import { loadConfig } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { VaultdError } from '../../common/errors.js';
import type { StoreAccess } from '../../engine/engine.js';
import { formatRoundSummary, type ChainRoundResult } from '../../jobs/chain/ingestOnce.js';
import { formatPriceSummary, type PriceRoundResult } from '../../jobs/prices/priceJob.js';
import { hasPriceWork } from '../../jobs/prices/priceProvider.js';
import { pricesChanged } from '../../jobs/prices/priceSource.js';
import { configuredSources, indexesChains } from '../../runtime/configuredSources.js';
import { createRuntime } from '../../runtime/createRuntime.js';
import { withStore } from '../../store/storeHandle.js';
import { parseFlags } from '../args.js';
import { INGEST } from '../commandSpecs.js';

export async function ingestCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(INGEST, argv);
  const config = loadConfig(VAULT_TYPES, { config: values.config, db: values.db });
  if (!indexesChains(config) && !hasPriceWork(config)) {
    throw new VaultdError(
      'USAGE',
      'the configuration lists nothing to ingest; pass --config FILE with "chains" and "registry.vaults" (and/or "prices.providers", "tvl_sources")',
    );
  }
  const missing = config.registry.vaults.find((v) => !config.chains.some((c) => c.chain_id === v.chain_id));
  if (missing) {
    throw new VaultdError('CONFIG_INVALID', `registry vault ${missing.address} is on chain ${missing.chain_id}, which "chains" does not list`);
  }
  const common = createCommon(config);
  const slugs = new Map(config.chains.map((c) => [c.chain_id, c.slug]));
  const chainRounds: ChainRoundResult[][] = [];
  const priceRounds: PriceRoundResult[] = [];
  const printChains = (results: ChainRoundResult[]) => {
    chainRounds.push(results);
    for (const r of results) process.stdout.write(`${formatRoundSummary(r, slugs.get(r.chain_id))}\n`);
  };
  // the first prices round is always summed up; later ones only when they stored something
  const printPrices = (r: PriceRoundResult) => {
    priceRounds.push(r);
    if (priceRounds.length > 1 && !pricesChanged(r)) return;
    for (const line of formatPriceSummary(r)) process.stdout.write(`${line}\n`);
  };
  const store: StoreAccess = (work) => withStore(common, { path: config.db }, work);
  try {
    const { sources } = await configuredSources(common, { demo: false, onChainRound: printChains, onPriceRound: printPrices });
    const runtime = createRuntime({ common, store, engine: null, sources });
    if (values.once) {
      await runtime.runOnce();
      const failed = chainRounds.flat().some((r) => r.status === 'stalled') || priceRounds.some((p) => p.providers.some((x) => x.status === 'failed'));
      return failed ? 1 : 0;
    }
    runtime.start({ catchUp: true });
    await common.shutdown.closed;
    return 0;
  } finally {
    await common.shutdown.close('done');
  }
}
