// The ingest bench's baseline: the same eth_getLogs calls the indexer made (same block ranges,
// same addresses, one after the other) through a plain viem client and nothing else — no
// headers, no hourly reads, no decoding, no commit. vaultd's time over this one is what the
// rest of the pipeline costs on top of moving the logs.
import { createPublicClient, http, type Address } from 'viem';

export interface FetchOnlyResult {
  ms: number;
  logs: number;
  calls: number;
}

export async function fetchOnly(rpcUrl: string, addresses: readonly string[], ranges: readonly { from: number; to: number }[]): Promise<FetchOnlyResult> {
  // viem's defaults but for caching and retries, as the indexer's own client (jobs/chain/chainRpc.ts)
  const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0, timeout: 60_000 }), cacheTime: 0 });
  const address = addresses as Address[];
  let logs = 0;
  const t0 = performance.now();
  for (const r of ranges) {
    logs += (await client.getLogs({ address, fromBlock: BigInt(r.from), toBlock: BigInt(r.to) })).length;
  }
  return { ms: performance.now() - t0, logs, calls: ranges.length };
}
