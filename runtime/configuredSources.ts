// Which sources a configuration runs, in the order their rounds run when all are due at once:
// the chain ingest (configured chains and vaults) or else the demo world, then USD prices and
// external TVL sources. Their modules load only when configured: the chain toolkit (viem) costs
// a cold start ~0.35 s.
import type { Common } from '../common/common.js';
import type { ChainRoundResult } from '../jobs/chain/ingestOnce.js';
import type { PriceRoundResult } from '../jobs/prices/priceJob.js';
import { hasPriceWork } from '../jobs/prices/priceProvider.js';
import type { Source } from '../jobs/source.js';

export interface ConfiguredSources {
  sources: Source[];
  /** sources that fill an empty store before its first publish (all but the demo world's) */
  filling: boolean;
}

export interface SourceChoice {
  /** without configured chains, grow a demo world as real hours pass (`vaultd serve`) */
  demo: boolean;
  onChainRound?: (results: ChainRoundResult[]) => void;
  onPriceRound?: (result: PriceRoundResult) => void;
}

/** Whether the config indexes chains: chains and registry vaults both listed. */
export function indexesChains(config: Common['config']): boolean {
  return config.chains.length > 0 && config.registry.vaults.length > 0;
}

export async function configuredSources(common: Common, choice: SourceChoice): Promise<ConfiguredSources> {
  const { config } = common;
  const sources: Source[] = [];
  let filling = false;
  if (indexesChains(config)) {
    const { createChainSource } = await import('../jobs/chain/chainSource.js');
    sources.push(createChainSource({ common, config, ...(choice.onChainRound ? { onRound: choice.onChainRound } : {}) }));
    filling = true;
  } else if (choice.demo) {
    const { createDemoSource } = await import('../jobs/demo/demoSource.js');
    sources.push(createDemoSource({ common, schedule: { cron: config.schedules.ingest }, hourSeconds: config.demo.hour_seconds }));
  }
  if (hasPriceWork(config)) {
    const { createPriceSource } = await import('../jobs/prices/priceSource.js');
    sources.push(createPriceSource({ common, config, ...(choice.onPriceRound ? { onRound: choice.onPriceRound } : {}) }));
    filling = true;
  }
  return { sources, filling };
}
