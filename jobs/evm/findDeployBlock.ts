// A contract's deployment block, found by bisection on `eth_getCode` over block numbers: code is
// absent before the deployment and present from it on, so ⌈log2(hi − lo)⌉ + 1 calls find it.
// (A contract that self-destructed and came back breaks the monotonicity; none of ours does.)
import type { ChainRpc } from './chainRpc.js';

export interface DeployBlockResult {
  /** the first block in [lo, hi] with code; null when there is none at `hi` */
  block: number | null;
  /** true when code was already there at `lo` (deployed at or before it): `block` is `lo`, not the deployment */
  atLo: boolean;
  /** eth_getCode calls made */
  calls: number;
}

export async function findDeployBlock(rpc: Pick<ChainRpc, 'code'>, address: string, lo: number, hi: number): Promise<DeployBlockResult> {
  let calls = 0;
  const has = async (b: number) => {
    calls++;
    return (await rpc.code(address, b)) !== '0x';
  };
  if (!(await has(hi))) return { block: null, atLo: false, calls };
  if (lo >= hi || (await has(lo))) return { block: Math.min(lo, hi), atLo: true, calls };
  // invariant: no code at lo, code at hi
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (await has(mid)) hi = mid;
    else lo = mid;
  }
  return { block: hi, atLo: false, calls };
}
