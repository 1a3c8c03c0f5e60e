// The start of a contract whose start block is not configured (a vault, a Chainlink feed): its
// deployment block from the store's cache, else found by bisection (findDeployBlock.ts) and cached.
import type { Logger } from '../../common/logger.js';
import { readDeployBlock, writeDeployBlock } from '../../store/deployBlocks.js';
import type { Store } from '../../store/store.js';
import type { ChainRpc } from './chainRpc.js';
import { findDeployBlock } from './findDeployBlock.js';

/**
 * The start of a contract whose start block is not configured: its cached deployment block, else
 * the one found (and cached), never before `from`. A contract with no code at the head keeps `from`.
 */
export async function resolveDeployBlock(
  ctx: { withStore: <T>(fn: (store: Store) => Promise<T>) => Promise<T>; rpc: Pick<ChainRpc, 'code'>; chainId: number; logger: Logger },
  address: string,
  from: number,
  head: number,
): Promise<number> {
  const cached = await ctx.withStore((s) => readDeployBlock(s, ctx.chainId, address));
  if (cached !== null) return Math.max(cached, from);
  const found = await findDeployBlock(ctx.rpc, address, from, head);
  if (found.block === null) {
    ctx.logger.warn({ address, head }, 'no contract code at the head: is the address right? reading from the oldest block');
    return from;
  }
  // code already at `from` (> 0): deployed earlier, before the history read; nothing to cache
  if (found.atLo && from > 0) return from;
  await ctx.withStore((s) => writeDeployBlock(s, ctx.chainId, address, found.block!));
  ctx.logger.info({ address, block: found.block, calls: found.calls }, 'deployment block found');
  return found.block;
}
