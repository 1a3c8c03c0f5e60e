// USD prices and external TVL sources as a source (DESIGN §1, §2, §6.3): each round runs every
// configured provider, then every TVL source (runPriceRound), on `schedules.prices`.
import type { Common } from '../../common/common.js';
import type { Config } from '../../common/config.js';
import type { Source } from '../source.js';
import { createPriceRuntime, runPriceRound, type PriceRoundResult, type PriceRuntime } from './priceJob.js';

export interface PriceSourceOptions {
  common: Common;
  config: Config;
  runtime?: PriceRuntime;
  /** sees every round's result (`vaultd ingest` prints it) */
  onRound?: (result: PriceRoundResult) => void;
}

/** Whether a prices round stored anything a snapshot shows: price rows or TVL readings. */
export const pricesChanged = (r: PriceRoundResult) => r.rows > 0 || r.tvl_sources.length > 0;

export function createPriceSource(opts: PriceSourceOptions): Source {
  const { common, config } = opts;
  const runtime = opts.runtime ?? createPriceRuntime(common, config);
  return {
    name: 'prices',
    schedule: { cron: config.schedules.prices },
    async round(store, signal) {
      const result = await runPriceRound(common, store, runtime, Date.now() / 1000, signal);
      opts.onRound?.(result);
      return { inputsChanged: pricesChanged(result) };
    },
  };
}
