// eth_getLogs for one block range over a list of addresses, in a span the provider accepts: the
// sizer proposes, a range fault shrinks it to what the provider names (or half) and the call is
// repeated over the shorter range. Returns the range actually covered, logs in chain order.
import { VaultdError } from '../../common/errors.js';
import type { ChainRpc, RawLog } from './chainRpc.js';
import type { RangeSizer } from './rangeSizer.js';
import { classifyRpcError } from './rpcErrors.js';

export interface FetchedRange {
  from: number;
  to: number;
  logs: RawLog[];
  /** range faults absorbed on the way */
  shrinks: number;
}

const MAX_SHRINKS = 64;

export async function fetchRangeLogs(
  rpc: Pick<ChainRpc, 'getLogs'>,
  sizer: RangeSizer,
  from: number,
  maxTo: number,
  addresses: readonly string[],
): Promise<FetchedRange> {
  if (maxTo < from) throw new VaultdError('INTERNAL', `empty block range [${from}, ${maxTo}]`);
  for (let shrinks = 0; ; shrinks++) {
    const to = Math.min(maxTo, from + sizer.size - 1);
    try {
      const logs = await rpc.getLogs(from, to, addresses);
      sizer.success();
      return { from, to, logs: inChainOrder(logs), shrinks };
    } catch (err) {
      const fault = classifyRpcError(err);
      if (fault.kind !== 'range' || !fault.range || shrinks >= MAX_SHRINKS) throw err;
      sizer.failure(fault.range, to - from + 1, from);
    }
  }
}

/** Sorted by (block, log index), a log repeated by the provider kept once. */
export function inChainOrder(logs: RawLog[]): RawLog[] {
  const sorted = [...logs].sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
  return sorted.filter((l, i) => i === 0 || l.blockNumber !== sorted[i - 1]!.blockNumber || l.logIndex !== sorted[i - 1]!.logIndex);
}
