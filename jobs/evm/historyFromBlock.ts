// `chains[].history_from` as a block: a number is one already; an ISO instant becomes the first
// block at or after it (a bisection on header timestamps, ~log2(head) reads).
import type { ChainRpc } from './chainRpc.js';

export async function historyFromBlock(rpc: Pick<ChainRpc, 'header'>, historyFrom: number | string | undefined, head: number): Promise<number> {
  if (historyFrom === undefined) return 0;
  if (typeof historyFrom === 'number') return Math.min(historyFrom, head);
  const t = Math.floor(Date.parse(historyFrom) / 1000);
  if ((await rpc.header(0)).timestamp >= t) return 0;
  if ((await rpc.header(head)).timestamp < t) return head;
  // invariant: ts(lo) < t ≤ ts(hi)
  let lo = 0;
  let hi = head;
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if ((await rpc.header(mid)).timestamp < t) lo = mid;
    else hi = mid;
  }
  return hi;
}
