// What a chain's first round settles before any range (DESIGN §6.1): the chain id, the oldest
// block read (`chains[].history_from`), whether the RPC serves state there (an archive node;
// a pruned one gets one clear line and the round stalls), and each vault's start block: the
// configured one, else its deployment block, found by bisection on eth_getCode and cached in the
// store, never before `history_from`.
import type { Logger } from '../../common/logger.js';
import type { Mutex } from '../../common/mutex.js';
import { VaultdError } from '../../common/errors.js';
import type { Store } from '../../store/store.js';
import { noArchiveLine, probeArchive } from '../evm/archiveProbe.js';
import { resolveDeployBlock } from '../evm/resolveDeployBlock.js';
import { historyFromBlock } from '../evm/historyFromBlock.js';
import { shownUrl } from '../evm/probeRpc.js';
import type { ChainRuntime } from './chainRuntime.js';

export interface PrepareChainContext {
  store: Store;
  lock: Mutex;
  rt: ChainRuntime;
  head: number;
  logger: Logger;
}

/** The block the archive probe asks at: `history_from`, else the oldest configured start, else block 1. */
function probeBlock(rt: ChainRuntime, from: number, head: number): number {
  const configured = rt.book.vaults.filter((v) => v.start_configured).map((v) => v.start_block);
  const oldest = from > 0 ? from : rt.book.vaults.every((v) => v.start_configured) && configured.length > 0 ? Math.min(...configured) : 1;
  return Math.min(Math.max(1, oldest), head);
}

export async function prepareChain(ctx: PrepareChainContext): Promise<void> {
  const { rt, head, logger } = ctx;
  if (rt.prepared) return;
  const chainId = rt.chain.chain_id;
  const from = await historyFromBlock(rt.rpc, rt.chain.history_from, head);
  const block = probeBlock(rt, from, head);
  if (!(await probeArchive(rt.rpc, block))) {
    const line = noArchiveLine(rt.chain.rpc_urls.map(shownUrl).join(', '), block);
    if (!rt.archiveWarned) logger.error({ chain_id: chainId, block }, line);
    rt.archiveWarned = true;
    throw new VaultdError('SOURCE_FAILED', line, { retryable: false, details: { kind: 'fatal' } });
  }
  rt.historyFrom = from;
  for (const v of rt.book.vaults) {
    if (v.start_configured) {
      v.start_block = Math.max(v.start_block, from);
      continue;
    }
    v.start_block = await resolveDeployBlock({ withStore: (fn) => ctx.lock.run(() => fn(ctx.store)), rpc: rt.rpc, chainId, logger }, v.address, from, head);
  }
  rt.prepared = true;
}
