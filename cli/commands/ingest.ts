// `vaultd ingest [--config FILE] [--once] [--db PATH]`: chain ingest of the configured vaults
// (DESIGN §2, §6.1), then USD prices and external TVL sources (§6.3). `--once` runs one round
// of each and exits (1 if a chain stalled or a price provider failed); otherwise chain rounds
// run on `schedules.ingest` and price rounds on `schedules.prices` until SIGTERM/SIGINT. One
// summary line per chain, provider and source on stdout; progress as JSON log lines on stderr.
import { createCommon } from '../../common/common.js';
import { loadConfig } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { VaultdError } from '../../common/errors.js';
import { withStore } from '../../store/storeHandle.js';
import { createIngestJob } from '../../jobs/chain/ingestJob.js';
import { formatRoundSummary, type ChainRoundResult } from '../../jobs/chain/ingestOnce.js';
import type { Store } from '../../store/store.js';
import { createPriceJob, formatPriceSummary, hasPriceWork, type PriceRoundResult } from '../../jobs/prices/priceJob.js';
import { parseFlags } from '../args.js';

export async function ingestCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags('ingest', argv, { config: { type: 'string' }, db: { type: 'string' }, once: { type: 'boolean' } });
  const config = loadConfig(VAULT_TYPES, { config: values.config, db: values.db });
  const chains = config.registry.vaults.length > 0 && config.chains.length > 0;
  if (!chains && !hasPriceWork(config)) {
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
  const print = (results: ChainRoundResult[]) => {
    for (const r of results) process.stdout.write(`${formatRoundSummary(r, slugs.get(r.chain_id))}\n`);
  };
  const access = <T>(work: (store: Store) => Promise<T>) => withStore(common, { path: config.db }, work);
  const job = chains ? createIngestJob({ common, config, access, onRound: print }) : null;
  const prices = hasPriceWork(config) ? createPriceJob({ common, config, access }) : null;
  const printPrices = (r: PriceRoundResult) => {
    for (const line of formatPriceSummary(r)) process.stdout.write(`${line}\n`);
  };
  try {
    if (values.once) {
      const results = job ? await job.runOnce() : [];
      const priced = prices ? await prices.runOnce() : null;
      if (priced) printPrices(priced);
      const failed = results.some((r) => r.status === 'stalled') || (priced?.providers.some((p) => p.status === 'failed') ?? false);
      return failed ? 1 : 0;
    }
    common.shutdown.add('ingest', async () => {
      await job?.stop();
      await prices?.stop();
    });
    job?.start();
    if (prices) {
      printPrices(await prices.runOnce());
      prices.start(async (r) => printPrices(r));
    }
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => void common.shutdown.close(signal).then(resolve);
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
    return 0;
  } finally {
    await common.shutdown.close('done');
  }
}
