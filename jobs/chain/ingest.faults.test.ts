// RPC faults (DESIGN §6.2, §9): the same devnet ingested directly and through a faulty proxy
// (range limits in every provider style, 429s, 5xx, internal errors, truncated and garbage
// bodies, timeouts, dropped connections) ends in identical tables; a dead chain stalls alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCommon } from '../../test/helpers/common.js';
import { tableHashes } from '../../test/helpers/contentHash.js';
import { createStore, type Store } from '../../store/store.js';
import { parseConfig, type Config } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { readIngestStatus } from './chainStore.js';
import { fetchRangeLogs } from '../evm/fetchRangeLogs.js';
import { createIngestRuntime, ingestOnce, type ChainRoundResult } from './ingestOnce.js';
import { RANGE_STYLES, startFaultyRpcProxy, type FaultyRpcProxy } from '../../test/helpers/chain/faultyRpcProxy.js';
import { scenarioConfig, scenarioConfigInput, startScenario, type Scenario } from '../../test/helpers/chain/scenario.js';

let sc: Scenario;
let proxy: FaultyRpcProxy;
let clean: Awaited<ReturnType<typeof tableHashes>>;
const stores: Store[] = [];

const fastRetry = { attempts: 8, baseMs: 5, maxMs: 80 };

beforeAll(async () => {
  sc = await startScenario({ chainId: 4343, days: 7, seed: 11, wallets: 16 });
  // the clean run goes through the proxy too (faults off): the chains table holds the RPC URL
  proxy = await startFaultyRpcProxy(sc.devnet.rpcUrl);
  const store = await createStore(testCommon(), { path: ':memory:' });
  stores.push(store);
  const [r] = await ingestOnce(testCommon(), store, scenarioConfig(sc.manifest, { rpcUrls: [proxy.url] }));
  expect(r!.status).toBe('ok');
  clean = await tableHashes(store);
});

afterAll(async () => {
  for (const s of stores) await s.close();
  await proxy?.close();
  await sc?.devnet.stop();
});

describe('ingest under RPC faults', () => {
  it('every fault is retried or adapted to; the final tables equal a clean run', async () => {
    proxy.setPlan({
      seed: 5,
      maxLogRange: 24,
      rates: { http500: 0.04, http502: 0.03, rate429: 0.05, rpcInternal: 0.04, truncated: 0.05, garbage: 0.05, reset: 0.03, timeout: 0.02 },
      upfront: ['http500', 'rate429', 'truncated', 'garbage', 'reset', 'timeout', 'http502', 'rpcInternal'],
      caps: { timeout: 1 }, // each costs the client's whole timeout
    });
    const common = testCommon();
    const store = await createStore(common, { path: ':memory:' });
    stores.push(store);
    const config = scenarioConfig(sc.manifest, { rpcUrls: [proxy.url] });
    // a timeout fault holds its request until this client gives up; an answer on a loaded machine comes well within it
    const runtime = createIngestRuntime(common, config, { initialRange: 200, rpc: { timeoutMs: 3000, batch: true, retry: fastRetry } });
    const rounds: ChainRoundResult[] = [];
    // a round may still end stalled when one call draws a fault 8 times running: the next resumes
    for (let i = 0; i < 12; i++) {
      const [r] = await ingestOnce(common, store, config, { runtime });
      rounds.push(r!);
      if (r!.status === 'ok') break;
    }
    expect(rounds.at(-1)!.status).toBe('ok');
    expect(await tableHashes(store)).toEqual(clean);

    // the proxy really did all of it, and the indexer saw it
    for (const kind of ['http500', 'http502', 'rate429', 'rpcInternal', 'truncated', 'garbage', 'reset', 'timeout']) {
      expect(proxy.stats.faults[kind] ?? 0, kind).toBeGreaterThan(0);
    }
    const faults = (await common.metrics.getSingleMetric('vaultd_ingest_rpc_faults_total')!.get()).values;
    const byKind = Object.fromEntries(faults.map((v) => [v.labels.kind, v.value]));
    for (const kind of ['range', 'rate_limited', 'server', 'garbage', 'network', 'timeout']) expect(byKind[kind] ?? 0, kind).toBeGreaterThan(0);
    // spans settled at the provider's limit
    expect(runtime.chains[0]!.sizer.size).toBeLessThanOrEqual(24);
  });

  it('a response over the client’s body-size limit shrinks the range like a "too large" message; the logs are whole', async () => {
    proxy.setPlan({});
    const common = testCommon();
    const config = scenarioConfig(sc.manifest);
    const direct = createIngestRuntime(common, config).chains[0]!;
    const addresses = direct.book.addressesOf(direct.book.vaults);
    const all = await direct.rpc.getLogs(1, 160, addresses);
    const bytes = JSON.stringify(all).length;
    // a limit a fifth of the whole answer: the first span of 160 blocks must shrink
    const [rt] = createIngestRuntime(common, config, {
      initialRange: 160,
      rpc: { timeoutMs: 2000, batch: false, retry: fastRetry, maxResponseBytes: Math.round(bytes / 5) },
    }).chains;
    const got = await fetchRangeLogs(rt!.rpc, rt!.sizer, 1, 160, addresses);
    expect(got.shrinks).toBeGreaterThan(0);
    expect(got.to).toBeLessThan(160);
    expect(got.logs).toEqual(await direct.rpc.getLogs(1, got.to, addresses));
  });

  it.each(RANGE_STYLES.map((s) => [s]))('the %s style of "range too large" is understood through viem: the span adapts, the logs are whole', async (style) => {
    proxy.setPlan({ maxLogRange: 24, rangeStyles: [style] });
    const common = testCommon();
    const config = scenarioConfig(sc.manifest, { rpcUrls: [proxy.url] });
    const [rt] = createIngestRuntime(common, config, { initialRange: 100, rpc: { timeoutMs: 2000, batch: false, retry: fastRetry } }).chains;
    const addresses = rt!.book.addressesOf(rt!.book.vaults);
    const got = await fetchRangeLogs(rt!.rpc, rt!.sizer, 1, 160, addresses);
    expect(got.shrinks).toBeGreaterThan(0);
    expect(got.to - got.from + 1).toBeLessThanOrEqual(24);
    expect(got.to - got.from + 1).toBeGreaterThanOrEqual(style === 'tooLarge' || style === 'responseSize' ? 12 : 24);
    const direct = createIngestRuntime(common, scenarioConfig(sc.manifest)).chains[0]!;
    expect(got.logs).toEqual(await direct.rpc.getLogs(1, got.to, addresses));
    expect(proxy.stats.ranges[style]).toBeGreaterThan(0);
  });

  it('a dead chain ends stalled, counts its failures, and never blocks a healthy one', async () => {
    const common = testCommon();
    const store = await createStore(common, { path: ':memory:' });
    stores.push(store);
    const input = scenarioConfigInput(sc.manifest);
    const dead = { chain_id: 999, slug: 'dead', name: 'Dead', rpc_urls: ['http://127.0.0.1:9'], finality_blocks: 0 };
    const deadVault = { ...input.registry!.vaults![0]!, chain_id: 999, start_block: 1 };
    const config: Config = {
      ...parseConfig(VAULT_TYPES, { chains: [...input.chains!, dead], registry: { vaults: [...input.registry!.vaults!, deadVault] } }, 'test'),
      source: null,
      log_level: 'silent',
    };
    // the dead chain's RPC refuses connections at once, so no timeout is needed to stall it; the healthy chain
    // gets one a loaded machine cannot reach (a short one stalled it there: "healthy chain reported stalled")
    const runtime = createIngestRuntime(common, config, { rpc: { timeoutMs: 30_000, batch: true, retry: { attempts: 3, baseMs: 5, maxMs: 20 } } });
    for (let round = 1; round <= 2; round++) {
      const results = await ingestOnce(common, store, config, { runtime });
      const ok = results.find((r) => r.chain_id === 4343)!;
      const stalled = results.find((r) => r.chain_id === 999)!;
      expect(ok.status).toBe('ok');
      expect(stalled).toMatchObject({ status: 'stalled', from: null });
      expect(stalled.error).toMatch(/HTTP request failed|fetch failed|ECONNREFUSED/);
      const [status] = await readIngestStatus(store, 999);
      expect(status).toMatchObject({ status: 'stalled', consecutive_failures: round, checkpoint_block: null });
    }
    const healthy = await tableHashes(store, ['vault_events', 'vault_snapshots']);
    expect(healthy).toEqual({ vault_events: clean.vault_events, vault_snapshots: clean.vault_snapshots });
  });
});
