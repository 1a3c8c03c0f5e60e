// Batched contract reads at a past block: through Multicall3 where the chain has it (the
// canonical address or one the registry names, checked with eth_getCode, including whether it
// existed yet at that block), else viem's deployless multicall, which needs no contract.
import type { Abi, Address } from 'viem';
import { VaultdError } from '../../common/errors.js';
import type { ChainRpc } from '../evm/chainRpc.js';

export interface ReadCall {
  address: string;
  abi: Abi;
  functionName: string;
  args?: readonly unknown[];
}

export type ReadResult = { ok: true; value: unknown } | { ok: false; error: string };

export interface MulticallReader {
  read(block: number, calls: readonly ReadCall[]): Promise<ReadResult[]>;
  /** what the last read used: the Multicall3 address, or 'deployless' */
  readonly mode: string;
}

const CALLS_PER_MULTICALL = 300;

/** An error that came from the RPC call itself (HTTP, JSON-RPC, timeout, garbage), not from a contract. */
export function isTransportFailure(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof VaultdError) return true;
    const name = (e as { name?: unknown }).name;
    if (name === 'HttpRequestError' || name === 'RpcRequestError' || name === 'TimeoutError' || name === 'SocketClosedError') return true;
  }
  return false;
}

export function createMulticallReader(rpc: ChainRpc, candidates: readonly string[]): MulticallReader {
  let address: string | null | undefined; // undefined: not probed; null: none deployed
  let presentFrom = Number.POSITIVE_INFINITY;
  let absentAt = -1;
  let mode = 'unprobed';

  async function probe(): Promise<void> {
    if (address !== undefined) return;
    const head = await rpc.blockNumber();
    address = null;
    for (const c of [...new Set(candidates.map((a) => a.toLowerCase()))]) {
      if ((await rpc.code(c, head)) !== '0x') {
        address = c;
        presentFrom = head;
        return;
      }
    }
  }

  /** Multicall3's address if it was deployed at `block`, else null. */
  async function at(block: number): Promise<string | null> {
    await probe();
    if (address === null || address === undefined) return null;
    if (block >= presentFrom) return address;
    if (block <= absentAt) return null;
    if ((await rpc.code(address, block)) !== '0x') {
      presentFrom = block;
      return address;
    }
    absentAt = block;
    return null;
  }

  async function chunk(block: number, calls: readonly ReadCall[]): Promise<ReadResult[]> {
    const via = await at(block);
    mode = via ?? 'deployless';
    const results = await rpc.retrying('multicall', async () => {
      const r = (await rpc.client.multicall({
        contracts: calls.map((c) => ({ address: c.address as Address, abi: c.abi, functionName: c.functionName, args: c.args ?? [] })) as never,
        blockNumber: BigInt(block),
        allowFailure: true,
        batchSize: 0,
        ...(via === null ? { deployless: true } : { multicallAddress: via as Address }),
      })) as { status: 'success' | 'failure'; result?: unknown; error?: Error }[];
      // viem turns a failed eth_call into a failure of every call of the chunk: that is the
      // transport failing, not the contracts — thrown so the retry policy sees it
      const transport = r.find((x) => x.status === 'failure' && isTransportFailure(x.error));
      if (transport) throw transport.error;
      return r;
    });
    return results.map((r) =>
      r.status === 'success' ? { ok: true as const, value: r.result } : { ok: false as const, error: (r.error?.message ?? 'failed').split('\n')[0]! },
    );
  }

  return {
    get mode() {
      return mode;
    },
    async read(block, calls) {
      const parts: Promise<ReadResult[]>[] = [];
      for (let i = 0; i < calls.length; i += CALLS_PER_MULTICALL) parts.push(chunk(block, calls.slice(i, i + CALLS_PER_MULTICALL)));
      return (await Promise.all(parts)).flat();
    },
  };
}
