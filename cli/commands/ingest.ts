// `vaultd ingest [--config FILE] [--once] [--db PATH]`: chain ingest of the configured vaults
// (DESIGN §2, §6.1). `--once` runs one round and exits (1 if a chain stalled); otherwise rounds
// run on `schedules.ingest` until SIGTERM/SIGINT. One summary line per chain and round on
// stdout; progress as JSON log lines on stderr.
import { createCommon } from '../../common/common.js';
import { loadConfig } from '../../common/config.js';
import { VaultdError } from '../../common/errors.js';
import { withStore } from '../../engine/store/storeHandle.js';
import { createIngestJob } from '../../jobs/chain/ingestJob.js';
import { formatRoundSummary, type ChainRoundResult } from '../../jobs/chain/ingestOnce.js';
import { parseFlags } from '../args.js';

export async function ingestCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags('ingest', argv, { config: { type: 'string' }, db: { type: 'string' }, once: { type: 'boolean' } });
  const config = loadConfig({ config: values.config, db: values.db });
  if (config.registry.vaults.length === 0 || config.chains.length === 0) {
    throw new VaultdError('USAGE', 'the configuration lists no chain or no vault; pass --config FILE with "chains" and "registry.vaults"');
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
  const job = createIngestJob({
    common,
    config,
    access: (work) => withStore(common, { path: config.db }, work),
    onRound: print,
  });
  try {
    if (values.once) {
      const results = await job.runOnce();
      return results.some((r) => r.status === 'stalled') ? 1 : 0;
    }
    common.shutdown.add('ingest', () => job.stop());
    job.start();
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
