// What one chain keeps between rounds of a long-running ingest: its RPC client, header cache,
// the adapted eth_getLogs span, the Multicall3 probe, and its run of failures.
import type { Common } from '../../common/common.js';
import type { Config } from '../../common/config.js';
import { createAddressBook, type AddressBook } from './addressBook.js';
import { createBlockClock, type BlockClock } from './blockClock.js';
import { CANONICAL_MULTICALL3 } from './chainAbis.js';
import { createChainRpc, type ChainRpc } from '../evm/chainRpc.js';
import type { IngestOptions } from './ingestOptions.js';
import { createMulticallReader, type MulticallReader } from './multicallReader.js';
import { createRangeSizer, type RangeSizer } from '../evm/rangeSizer.js';

export type ChainConfig = Config['chains'][number];

export interface ChainRuntime {
  chain: ChainConfig;
  book: AddressBook;
  rpc: ChainRpc;
  clock: BlockClock;
  sizer: RangeSizer;
  reader: MulticallReader;
  /** eth_chainId already matched the configured id */
  verified: boolean;
  /** history_from, the archive probe and the start blocks are settled (prepareChain.ts) */
  prepared: boolean;
  /** the oldest block read (`history_from` as a block; 0 when not set) */
  historyFrom: number;
  /** the no-archive line was logged (once per chain) */
  archiveWarned: boolean;
  consecutiveFailures: number;
}

/** Multicall3 candidates: any address a registry vault's definition names, then the canonical one. */
function multicallCandidates(config: Pick<Config, 'registry'>, chainId: number): string[] {
  const named = config.registry.vaults
    .filter((v) => v.chain_id === chainId && typeof v.definition?.multicall3 === 'string')
    .map((v) => String(v.definition!.multicall3).toLowerCase())
    .filter((a) => /^0x[0-9a-f]{40}$/.test(a));
  return [...new Set([...named, CANONICAL_MULTICALL3])];
}

export function createChainRuntime(common: Common, config: Pick<Config, 'registry'>, chain: ChainConfig, options: IngestOptions): ChainRuntime {
  const rpc = createChainRpc(common, chain, options.rpc);
  return {
    chain,
    book: createAddressBook(config, chain.chain_id),
    rpc,
    clock: createBlockClock(rpc),
    // the URLs' max_block_range caps the span (a provider's own limit message still narrows it further)
    sizer: createRangeSizer({ initial: Math.min(options.initialRange, rpc.maxBlockRange), max: Math.min(options.maxRange, rpc.maxBlockRange) }),
    reader: createMulticallReader(rpc, multicallCandidates(config, chain.chain_id)),
    verified: false,
    prepared: false,
    historyFrom: 0,
    archiveWarned: false,
    consecutiveFailures: 0,
  };
}
