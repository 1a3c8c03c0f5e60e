// The prices round on a real DuckDB file (DESIGN §6.3, §4.5): static prices fill every hour
// from the token's first snapshot, the first provider to write a token-hour wins, a failing
// provider or TVL source stops nothing else, TVL readings come over real HTTP, and a round that
// is repeated or cut short by a crash adds nothing twice.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type Config, type ConfigInput } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { loadTvlSources } from '../../engine/load/loadWorld.js';
import { readRegistry } from '../../store/registryStore.js';
import { createStore, type Store } from '../../store/store.js';
import { tableHashes } from '../../test/helpers/contentHash.js';
import { createDemoWorld } from '../demo/createDemoWorld.js';
import { tempDir, testCommon } from '../../test/helpers/common.js';
import { createPriceRuntime, formatPriceSummary, hasPriceWork, runPriceRound } from './priceJob.js';

const HOUR = 3600;
const NOW = Date.parse('2026-02-01T00:00:00Z') / 1000;
const common = testCommon();
let store: Store;
let server: Server;
let base: string;
let tvlBody = '{"data":{"tvl":"1234.5678915"}}';

const config = (input: ConfigInput): Config => ({ ...parseConfig(VAULT_TYPES, input, 'test'), source: null, log_level: 'silent' });

beforeAll(async () => {
  const path = join(tempDir('vaultd-prices-'), 'world.duckdb');
  await createDemoWorld(common, { path, params: { seed: 3, now: NOW, vaults: null, wallets: 40, days: 20 }, force: true });
  store = await createStore(common, { path });
  server = createServer((req, res) => {
    if (req.url === '/tvl') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(tvlBody);
    } else {
      res.writeHead(500);
      res.end('down');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await store?.close();
  await new Promise((r) => server?.close(r));
});

/** The demo numeraire with no USD price (DESIGN §7), and where its vaults' history starts (before the tests price it). */
let unpriced: Promise<{ chain_id: number; address: string; first: number }> | null = null;
const unpricedToken = () => (unpriced ??= findUnpriced());
async function findUnpriced() {
  const registry = await readRegistry(store);
  const priced = new Set(
    (await store.rows<{ k: string }>('test.priced', "SELECT DISTINCT chain_id::VARCHAR || ':' || address AS k FROM prices")).map((r) => r.k),
  );
  const token = registry.tokens.find((t) => !priced.has(`${t.chain_id}:${t.address.toLowerCase()}`))!;
  const first = await store.one<{ t: number }>(
    'test.first',
    'SELECT epoch(min(s.ts))::DOUBLE AS t FROM vault_snapshots s JOIN vaults v USING (vault_id) WHERE v.chain_id = $1 AND lower(v.numeraire_address) = $2',
    [token.chain_id, token.address.toLowerCase()],
  );
  return { chain_id: token.chain_id, address: token.address.toLowerCase(), first: first!.t };
}

const rowsOf = (chainId: number, address: string) =>
  store.rows<{ ts: number; usd: string; source: string }>(
    'test.rows',
    'SELECT epoch(ts)::DOUBLE AS ts, usd::VARCHAR AS usd, source FROM prices WHERE chain_id = $1 AND address = $2 ORDER BY ts',
    [chainId, address],
  );

describe('runPriceRound', () => {
  it('knows when there is nothing to do', () => {
    expect(hasPriceWork(config({}))).toBe(false);
    expect(hasPriceWork(config({ prices: { providers: [{ kind: 'demo' }] } }))).toBe(false);
    expect(hasPriceWork(config({ tvl_sources: [{ id: 'x', label: 'X', kind: 'static', usd: '1' }] }))).toBe(true);
  });

  it('static prices fill every hour from the token’s first snapshot; the first provider wins; a failing one stops nothing', async () => {
    const t = await unpricedToken();
    const cfg = config({
      chains: [{ chain_id: t.chain_id, slug: 'dead', name: 'Dead', rpc_urls: ['http://127.0.0.1:9'], finality_blocks: 0 }],
      prices: {
        providers: [
          { kind: 'chainlink', chain_id: t.chain_id, feeds: [{ token: t.address, aggregator: '0x000000000000000000000000000000000000dEaD' }] },
          { kind: 'static', prices: [{ chain_id: t.chain_id, address: t.address, usd: '0.0501' }] },
          { kind: 'static', prices: [{ chain_id: t.chain_id, address: t.address, usd: '99' }] },
        ],
      },
      tvl_sources: [
        { id: 'api', label: 'API', kind: 'http', url: `${base}/tvl`, path: 'data.tvl' },
        { id: 'broken', label: 'Broken', kind: 'http', url: `${base}/nope`, path: 'tvl' },
        { id: 'fixed', label: 'Fixed', kind: 'static', usd: '42' },
      ],
    });
    const runtime = createPriceRuntime(common, cfg, { chainlink: { rpc: { timeoutMs: 300, batch: false, retry: { attempts: 2, baseMs: 1, maxMs: 2 } } } });
    const r = await runPriceRound(common, store, runtime, NOW + 1800);

    expect(r.providers.map((p) => [p.provider, p.status])).toEqual([
      ['chainlink:' + t.chain_id, 'failed'],
      ['static', 'ok'],
      ['static', 'ok'],
    ]);
    expect(r.providers[0]!.error).toMatch(/HTTP request failed|fetch failed|ECONNREFUSED|timed out/i);
    const hours = (NOW - t.first) / HOUR + 1;
    const rows = await rowsOf(t.chain_id, t.address);
    expect(rows.length).toBe(hours);
    expect(rows[0]!.ts).toBe(t.first);
    expect(rows.at(-1)!.ts).toBe(NOW);
    expect(new Set(rows.map((x) => Number(x.usd)))).toEqual(new Set([0.0501]));
    expect(r.providers[1]!.rows).toBe(hours);
    expect(r.providers[2]!.rows).toBe(0);
    expect(r.oldest).toBe(t.first);

    expect(r.tvl_sources).toEqual([
      { source_id: 'api', usd: '1234.567892', error: null },
      { source_id: 'broken', usd: null, error: expect.stringContaining('500') },
      { source_id: 'fixed', usd: '42', error: null },
    ]);
    expect(formatPriceSummary(r).join('\n')).toMatch(/failed/);
    // the config's sources replaced the demo world's in the registry /v1/tvl is built from
    expect((await readRegistry(store)).tvl_sources.map((x) => [x.id, x.kind, x.display_rank])).toEqual([
      ['api', 'http', 1],
      ['broken', 'http', 2],
      ['fixed', 'static', 3],
    ]);
  });

  it('a repeated round adds nothing; a later one only the new hour; a failing TVL source keeps its last good value', async () => {
    const t = await unpricedToken();
    const cfg = config({
      prices: { providers: [{ kind: 'static', prices: [{ chain_id: t.chain_id, address: t.address, usd: '0.0501' }] }] },
      tvl_sources: [{ id: 'api', label: 'API', kind: 'http', url: `${base}/tvl`, path: 'data.tvl' }],
    });
    const runtime = createPriceRuntime(common, cfg);
    const before = await tableHashes(store, ['prices']);
    expect((await runPriceRound(common, store, runtime, NOW + 1800)).rows).toBe(0);
    expect(await tableHashes(store, ['prices'])).toEqual(before);

    const next = await runPriceRound(common, store, runtime, NOW + HOUR + 5);
    expect(next.rows).toBe(1);

    tvlBody = 'not json';
    const failed = await runPriceRound(common, store, runtime, NOW + HOUR + 120);
    expect(failed.tvl_sources[0]).toMatchObject({ usd: null, error: expect.any(String) });
    const registry = await readRegistry(store);
    expect(registry.tvl_sources).toEqual([
      { id: 'api', label: 'API', kind: 'http', config: { url: `${base}/tvl`, path: 'data.tvl', headers: {}, timeout_ms: 10000 }, display_rank: 1 },
    ]);
    const state = await loadTvlSources(store, registry.tvl_sources);
    // readings are stamped on the minute
    expect(state[0]!.last_good).toEqual({ usd: '1234.567892', ts: NOW + HOUR });
    expect(state[0]!.last_error).toEqual({ message: failed.tvl_sources[0]!.error, ts: NOW + HOUR + 120 });
  });

  it('a provider naming a chain that is not configured fails at start with the key’s path', () => {
    const cfg = config({
      prices: {
        providers: [
          {
            kind: 'chainlink',
            chain_id: 77,
            feeds: [{ token: '0x0000000000000000000000000000000000000001', aggregator: '0x0000000000000000000000000000000000000002' }],
          },
        ],
      },
    });
    expect(() => createPriceRuntime(common, cfg)).toThrow(/prices\.providers\.0\.chain_id/);
  });
});
