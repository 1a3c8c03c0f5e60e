// RPC budgets (issue 38 item 3) against the devnet behind a stand-in that measures what arrives:
// requests a second (counted by arrival at the stand-in, with a margin), calls in flight, batch
// sizes and eth_getLogs spans stay within the configured budget on every path (logs, headers,
// Multicall reads, the Chainlink feeds); a 429's Retry-After is waited out in full, beyond the
// retry's own cap; the budgets and their use are in /metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { createStore, type Store } from '../../store/store.js';
import { testCommon } from '../../test/helpers/common.js';
import { startRpcStandIn, type RpcStandIn } from '../../test/helpers/chain/rpcStandIn.js';
import { scenarioConfigInput, startScenario, type Scenario } from '../../test/helpers/chain/scenario.js';
import { ingestOnce } from '../chain/ingestOnce.js';
import { createPriceRuntime, runPriceRound } from '../prices/priceJob.js';
import { createChainRpc } from './chainRpc.js';
import { FREE_TIER_BUDGET, LOCAL_BUDGET, rpcEndpoint } from './rpcBudget.js';

let sc: Scenario;
let standIn: RpcStandIn;
const stores: Store[] = [];

beforeAll(async () => {
  sc = await startScenario({ chainId: 4848, days: 2, seed: 3, wallets: 6 });
  standIn = await startRpcStandIn(sc.devnet.rpcUrl);
});

afterAll(async () => {
  for (const s of stores) await s.close();
  await standIn?.close();
  await sc?.devnet.stop();
});

describe('rpc_urls entries', () => {
  it('a string or an object; defaults: a free tier for a remote URL, none for this machine', () => {
    const config = parseConfig(
      VAULT_TYPES,
      {
        chains: [
          {
            chain_id: 1,
            slug: 'ethereum',
            name: 'Ethereum',
            rpc_urls: [
              'https://eth.example.org/v2/KEY',
              { url: 'https://rpc.example.com', max_requests_per_second: 25, batch_size: 1 },
              'http://127.0.0.1:8545',
            ],
          },
        ],
      },
      'test',
    );
    // every reader of rpc_urls still sees URLs
    expect(config.chains[0]!.rpc_urls).toEqual(['https://eth.example.org/v2/KEY', 'https://rpc.example.com', 'http://127.0.0.1:8545']);
    expect(config.chains[0]!.rpc!.map(rpcEndpoint)).toEqual([
      { url: 'https://eth.example.org/v2/KEY', ...FREE_TIER_BUDGET },
      { url: 'https://rpc.example.com', ...FREE_TIER_BUDGET, max_requests_per_second: 25, batch_size: 1 },
      { url: 'http://127.0.0.1:8545', ...LOCAL_BUDGET },
    ]);
    const bad = (entry: unknown) => () => parseConfig(VAULT_TYPES, { chains: [{ chain_id: 1, slug: 'e', name: 'E', rpc_urls: [entry as string] }] }, 'test');
    expect(bad({ url: 'https://x.org', max_concurency: 2 })).toThrow(
      '"chains.0.rpc_urls.0": Expected a URL, or an object of "url" and any of "max_requests_per_second", "max_concurrency", "max_block_range", "batch_size"',
    );
    expect(bad({ url: 'https://x.org', max_concurrency: 0 })).toThrow('"chains.0.rpc_urls.0.max_concurrency": Invalid value: Expected >=1 but received 0');
  });
});

describe('budgets honoured', () => {
  it('requests a second and in flight: 60 concurrent header reads through a budget of 20/s and 2 in flight', async () => {
    const common = testCommon();
    const rpc = createChainRpc(common, {
      chain_id: 4848,
      rpc_urls: [standIn.url],
      rpc: [{ url: standIn.url, max_requests_per_second: 20, max_concurrency: 2, batch_size: 1 }],
    });
    standIn.reset();
    await Promise.all(Array.from({ length: 60 }, (_, i) => rpc.header(i % sc.manifest.endBlock)));
    expect(standIn.calls.eth_getBlockByNumber).toBe(60);
    expect(standIn.maxInFlight).toBeLessThanOrEqual(2);
    expect(standIn.maxBatch).toBe(1);
    // at most 20 sent in any second; a margin for the skew between sending and arrival at the stand-in
    expect(standIn.maxInWindow(1000)).toBeLessThanOrEqual(23);
    // and the budget was what held them: 60 calls at 20/s span at least two full windows
    expect(standIn.arrivals.length).toBe(60);
    expect(Math.max(...standIn.arrivals) - Math.min(...standIn.arrivals)).toBeGreaterThanOrEqual(2000 - 50);
    const text = await common.metrics.metrics();
    const url = standIn.url.replace(/\./g, '\\.');
    expect(text).toMatch(new RegExp(`vaultd_rpc_budget\\{chain="4848",url="${url}",budget="max_requests_per_second"\\} 20`));
    expect(text).toMatch(new RegExp(`vaultd_rpc_budget\\{chain="4848",url="${url}",budget="max_concurrency"\\} 2`));
    expect(text).toMatch(new RegExp(`vaultd_rpc_requests_total\\{chain="4848",url="${url}"\\} 60`));
    expect(text).toMatch(/vaultd_rpc_budget_wait_seconds_total\{chain="4848",url="[^"]+"\} [1-9]/);
  });

  it('every path of an ingest round and a Chainlink round: within the budget, spans and batches too', async () => {
    const common = testCommon();
    const input = scenarioConfigInput(sc.manifest);
    const budget = { url: standIn.url, max_requests_per_second: 60, max_concurrency: 3, max_block_range: 10, batch_size: 4 };
    const config = {
      ...parseConfig(VAULT_TYPES, { ...input, chains: input.chains!.map((c) => ({ ...c, rpc_urls: [budget] })) }, 'test'),
      source: null,
      log_level: 'silent' as const,
    };
    const store = await createStore(common, { path: ':memory:' });
    stores.push(store);
    standIn.reset();
    const [r] = await ingestOnce(common, store, config);
    expect(r!.status, r!.error).toBe('ok');
    expect(r!.snapshots).toBeGreaterThan(0);
    const prices = await runPriceRound(common, store, createPriceRuntime(common, config), sc.manifest.endTime + 3600);
    expect(prices.rows).toBeGreaterThan(0);
    // logs, headers, Multicall reads (eth_call), deployment and Multicall3 probes (eth_getCode), the feeds
    for (const m of ['eth_getLogs', 'eth_getBlockByNumber', 'eth_call']) expect(standIn.calls[m] ?? 0).toBeGreaterThan(0);
    expect(standIn.maxInFlight).toBeLessThanOrEqual(3);
    expect(standIn.maxBatch).toBeLessThanOrEqual(4);
    expect(standIn.maxLogSpan).toBeLessThanOrEqual(10);
    expect(standIn.maxInWindow(1000)).toBeLessThanOrEqual(66);
  });

  it('a 429 with Retry-After: the URL waits it out in full (beyond the retry cap), then the call succeeds', async () => {
    const common = testCommon();
    const rpc = createChainRpc(
      common,
      { chain_id: 4848, rpc_urls: [standIn.url] },
      { timeoutMs: 10_000, batch: false, retry: { attempts: 4, baseMs: 10, maxMs: 50 } },
    );
    standIn.reset();
    standIn.setMode({ tooMany: { count: 2, retryAfterSeconds: 1 } });
    expect(await rpc.blockNumber()).toBeGreaterThanOrEqual(sc.manifest.endBlock);
    standIn.setMode({});
    expect(standIn.throttled).toHaveLength(2);
    // measured at the stand-in: nothing arrived within the Retry-After (a 50 ms backoff would have)
    for (const t of standIn.throttled) expect(t.nextAt! - t.sentAt).toBeGreaterThanOrEqual(t.retryAfterMs - 20);
    expect(await common.metrics.metrics()).toMatch(/vaultd_rpc_retry_after_total\{chain="4848",url="[^"]+"\} 2/);
  });
});
