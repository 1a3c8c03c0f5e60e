// Issue #38 item 4: `vaultd config check [--config FILE] [--probe]` through the real bin: a valid
// file (a table, exit 0), a file with typos and broken references (every error listed, exit 2),
// and with --probe a real chain (a Hardhat devnet over HTTP JSON-RPC, its Chainlink-like feeds),
// a price API and a TVL source on loopback, a node that keeps no old state, a URL of another
// chain and a dead URL.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { genesisEndingAt, simulateDevnet, startDevnet, type Devnet, type DevnetManifest } from '../devnet/index.js';
import { scenarioConfigInput } from './helpers/chain/scenario.js';
import { vaultd, vaultdAsync } from './helpers/cli.js';
import { tempDir } from './helpers/common.js';
import { listenOnLoopback, type Loopback } from './helpers/loopback.js';
import { startTvlFixture, type TvlFixture } from './helpers/prices/tvlFixture.js';

const dir = tempDir('vaultd-config-check-');
const write = (name: string, value: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
};

/** The table's rows as [item, status, detail]. */
function rows(stdout: string): [string, string, string][] {
  const lines = stdout.trimEnd().split('\n');
  expect(lines[1]).toMatch(/^item\s+status\s+detail$/);
  return lines.slice(2, -1).map((l) => {
    const m = /^(\S+)\s+(ok|warn|error)\s+(.*)$/.exec(l);
    expect(m, l).not.toBeNull();
    return [m![1]!, m![2]!, m![3]!];
  });
}

describe('vaultd config check', () => {
  it('a valid file: a table of what it holds and the defaults that apply, exit 0', () => {
    const r = vaultd(['config', 'check', '--config', 'data/registry.example.json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('config check: data/registry.example.json');
    const table = rows(r.stdout);
    expect(table[0]).toEqual(['schema', 'ok', 'every key is known and every value valid']);
    expect(table).toContainEqual(['chains.0', 'ok', 'ethereum (1): 1 RPC URL, 45 vaults, finality 12 blocks']);
    expect(table).toContainEqual(['registry.vaults', 'ok', '95 vaults on 7 chains, 89 groups, 23 strategies']);
    // no vault sets start_block: said, as a warning, not an error
    expect(table.find((t) => t[0] === 'registry.vaults[].start_block')).toEqual([
      'registry.vaults[].start_block',
      'warn',
      '95 of 95 vaults set no start_block: the first ingest round finds each deployment block (eth_getCode bisection, ~log2(head) calls, cached; `vaultd chains` lists them)',
    ]);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('no errors, 1 warning(s): see above');
  });

  it("the README's configuration examples check out: no errors (the real-chain one warns about start_block)", () => {
    const blocks = [...readFileSync('README.md', 'utf8').matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => b.trimStart().startsWith('{'));
    const whole = blocks.filter((b) => {
      try {
        JSON.parse(b);
        return true;
      } catch {
        return false;
      }
    });
    const real = whole.find((b) => b.includes('"chains"'));
    expect(real).toBeDefined();
    for (const [i, block] of whole.entries()) {
      const r = vaultd(['config', 'check', '--config', write(`readme-${i}.json`, JSON.parse(block))]);
      expect(r.status, r.stdout).toBe(0);
      if (block === real) expect(r.stdout).toContain('registry.vaults[].start_block  warn    3 of 3 vaults set no start_block');
    }
  });

  it('error: every schema error is listed, typos with the nearest key; exit 2', () => {
    const file = write('typos.json', {
      rate_limit: { keyed_per_minute: 5 },
      server: { prot: 80, transport: 'h2' },
      chains: [{ chain_id: 1, slug: 'ethereum', name: 'Ethereum', rpc_urls: ['not a url'] }],
    });
    const r = vaultd(['config', 'check', '--config', file]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('');
    const table = rows(r.stdout);
    // unknown keys first (what was typed), then bad values
    expect(table.map((t) => t.slice(0, 2))).toEqual([
      ['server.prot', 'error'],
      ['rate_limit', 'error'],
      ['server.transport', 'error'],
      ['chains.0.rpc_urls.0', 'error'],
    ]);
    expect(table[0]![2]).toBe('unknown key "server.prot"; did you mean "port"?');
    expect(table[1]![2]).toBe('unknown key "rate_limit"; did you mean "rate_limits"?');
    expect(table[2]![2]).toBe('"server.transport": must be "uws" or "node"');
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('4 error(s), 0 warning(s): fix the errors (exit 2)');
  });

  it('error: references between the parts (a vault on an unlisted chain, an unknown group, a Chainlink chain, a cron); exit 2', () => {
    const vault = {
      chain_id: 10,
      address: '0x1111111111111111111111111111111111111111',
      vault_type: 'morpho_v1',
      name: 'V',
      symbol: 'V',
      numeraire_token: { address: '0x2222222222222222222222222222222222222222', decimals: 6, symbol: 'USDC' },
      group_id: 'nope',
      start_block: 100,
    };
    const file = write('refs.json', {
      chains: [{ chain_id: 1, slug: 'ethereum', name: 'Ethereum' }],
      registry: { vaults: [vault, { ...vault, chain_id: 1, group_id: null }] },
      prices: { providers: [{ kind: 'chainlink', chain_id: 8453, feeds: [{ token: vault.address, aggregator: vault.address }] }] },
      schedules: { ingest: 'every minute' },
    });
    const r = vaultd(['config', 'check', '--config', file]);
    expect(r.status).toBe(2);
    const errors = rows(r.stdout).filter((t) => t[1] === 'error');
    expect(errors).toEqual([
      ['chains.0.rpc_urls', 'error', 'chain 1 (ethereum) has 1 vault but no rpc_urls; add at least one'],
      ['registry.vaults.0.chain_id', 'error', 'vault 0x1111111111111111111111111111111111111111 is on chain 10, which "chains" does not list'],
      ['registry.vaults.0.group_id', 'error', 'group "nope" is not in registry.groups'],
      ['prices.providers.0.chain_id', 'error', 'chain 8453 is not in "chains" with an rpc_urls entry; add it there'],
      ['schedules.ingest', 'error', expect.stringMatching(/^"every minute" is not a cron expression croner reads: /)],
    ]);
  });

  it('error: no file named, a missing file, an unknown action: one line, exit 2', () => {
    const none = vaultd(['config', 'check'], { VAULTD_CONFIG: '' });
    expect(none.status).toBe(2);
    expect(none.stderr).toBe('vaultd config check: no configuration file; pass --config FILE or set VAULTD_CONFIG\n');
    const missing = vaultd(['config', 'check', '--config', join(dir, 'nope.json')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^vaultd config check: config file ".*nope\.json" does not exist; pass an existing JSON file to --config\n$/);
    const action = vaultd(['config', 'chek']);
    expect(action.status).toBe(2);
    expect(action.stderr).toBe('vaultd config: expected "check", got "chek"; did you mean "check"?\n');
    // VAULTD_CONFIG stands in for --config
    expect(vaultd(['config', 'check'], { VAULTD_CONFIG: 'data/registry.example.json' }).status).toBe(0);
  });

  describe('--probe', () => {
    let devnet: Devnet;
    let manifest: DevnetManifest;
    let prices: TvlFixture;
    let pruned: Loopback;
    let dead: string;

    beforeAll(async () => {
      // a chain whose last hour is now, so its feeds are as fresh as a live chain's
      devnet = await startDevnet({ startTime: genesisEndingAt(Date.now() / 1000, 2) });
      manifest = await simulateDevnet(devnet, { days: 2, wallets: 4, seed: 3 });
      const now = Math.floor(Date.now() / 1000);
      const usdc = manifest.vaults[0]!.numeraire.address.toLowerCase();
      prices = await startTvlFixture({
        [`/prices/current/devnet:${usdc}`]: { body: `{"coins":{"devnet:${usdc}":{"price":0.99987,"symbol":"USDC","timestamp":${now},"confidence":0.99}}}` },
        '/tvl.json': { body: '{"data":{"total_usd":"185000000.5"}}' },
      });
      // a node that keeps only recent state: eth_call below its head is refused as pruned nodes do
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', async () => {
          const call = JSON.parse(body) as { id: number; method: string; params: unknown[] };
          if (call.method === 'eth_call' && call.params[1] !== 'latest') {
            res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32000, message: 'missing trie node 4a5b… (path )' } }));
            return;
          }
          const upstream = await fetch(devnet.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          res.end(await upstream.text());
        });
      });
      pruned = await listenOnLoopback(server);
      // a port nothing listens on
      const gone = await listenOnLoopback(createServer());
      dead = gone.url;
      await gone.close();
    }, 240_000);
    afterAll(async () => {
      await prices?.close();
      await pruned?.close();
      await devnet?.stop();
    });

    it('a devnet, its feeds, a price API and a TVL source: every probe ok, exit 0', async () => {
      const file = write('devnet.json', {
        ...scenarioConfigInput(manifest),
        prices: {
          providers: [
            ...scenarioConfigInput(manifest).prices!.providers!,
            { kind: 'http', base_url: prices.url, tokens: [{ chain_id: manifest.chainId, address: manifest.vaults[0]!.numeraire.address }] },
          ],
        },
        tvl_sources: [{ id: 'offchain', label: 'Off-chain', kind: 'http', url: `${prices.url}/tvl.json`, path: 'data.total_usd' }],
      });
      const r = await vaultdAsync(['config', 'check', '--config', file, '--probe']);
      expect(r.stderr).toBe('');
      expect(r.status, r.stdout).toBe(0);
      const table = rows(r.stdout);
      const rpc = table.find((t) => t[0] === 'chains.0.rpc_urls.0')!;
      expect(rpc[1]).toBe('ok');
      expect(rpc[2]).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+: chain ${manifest.chainId}, head (\\d+), archive \\(state at block 1\\), \\d+ ms$`));
      expect(Number(/head (\d+)/.exec(rpc[2])![1])).toBeGreaterThanOrEqual(manifest.endBlock);
      const feeds = table.filter((t) => /^prices\.providers\.0\.feeds\.\d+$/.test(t[0]));
      const configured = scenarioConfigInput(manifest).prices!.providers![0]!;
      expect(feeds.length).toBe(configured.kind === 'chainlink' ? configured.feeds.length : -1);
      for (const f of feeds) expect(f[1], f[2]).toBe('ok');
      for (const f of feeds) expect(f[2]).toMatch(/^chainlink:\d+ 0x[0-9a-fA-F]{40}: \d+(\.\d+)? USD for 0x[0-9a-fA-F]{40}, updated \d{4}-\d\d-\d\dT/);
      expect(table.find((t) => t[0] === 'prices.providers.1')).toEqual([
        'prices.providers.1',
        'ok',
        expect.stringMatching(
          new RegExp(`^http:defillama: 0\\.99987 USD for ${manifest.chainId}:${manifest.vaults[0]!.numeraire.address.toLowerCase()}, \\d+ ms$`),
        ),
      ]);
      expect(table.find((t) => t[0] === 'tvl_sources.0')).toEqual([
        'tvl_sources.0',
        'ok',
        expect.stringMatching(/^http "offchain": 185000000\.5 USD, \d+ ms$/),
      ]);
    });

    it('history_from (a block or an instant) is where a pruned node is asked for state: ok there', async () => {
      const block10 = (await (
        await fetch(devnet.rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0xa', false] }),
        })
      ).json()) as { result: { timestamp: string } };
      const instant = new Date(Number.parseInt(block10.result.timestamp, 16) * 1000).toISOString();
      const chain = (slug: string, history_from: number | string) => ({
        chain_id: manifest.chainId,
        slug,
        name: slug,
        rpc_urls: [devnet.rpcUrl],
        history_from,
      });
      for (const [slug, from] of [
        ['by-block', 10],
        ['by-instant', instant],
      ] as const) {
        const file = write(`history-from-${slug}.json`, { chains: [chain(slug, from)] });
        const r = await vaultdAsync(['config', 'check', '--config', file, '--probe']);
        expect(r.status, r.stdout).toBe(0);
        expect(rows(r.stdout).find((t) => t[0] === 'chains.0.rpc_urls.0')![2]).toMatch(
          /^http:\/\/127\.0\.0\.1:\d+: chain \d+, head \d+, history_from \(state at block 10\), \d+ ms$/,
        );
      }
    });

    it('error: a node without old state, a URL of another chain, a dead URL; exit 2', async () => {
      const chain = (id: number, slug: string, url: string) => ({ chain_id: id, slug, name: slug, rpc_urls: [url], finality_blocks: 0 });
      const file = write('bad-rpcs.json', {
        chains: [chain(manifest.chainId, 'pruned', pruned.url), chain(1, 'ethereum', devnet.rpcUrl), chain(8453, 'base', dead)],
      });
      const r = await vaultdAsync(['config', 'check', '--config', file, '--probe']);
      expect(r.status).toBe(2);
      const table = rows(r.stdout);
      const [p, other, gone] = ['chains.0.rpc_urls.0', 'chains.1.rpc_urls.0', 'chains.2.rpc_urls.0'].map((k) => table.find((t) => t[0] === k)!);
      expect(p![1]).toBe('error');
      expect(p![2]).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+: chain \d+, head \d+, no archive state, \d+ ms — serves no state at block 1 \(eth_call: missing trie node 4a5b… \(path \)\): vaultd needs an archive node for history; set `chains\[\]\.history_from` to skip older hours$/,
      );
      expect(other![1]).toBe('error');
      expect(other![2]).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+: answers chain id ${manifest.chainId}, not 1: this URL serves another chain$`));
      expect(gone![1]).toBe('error');
      expect(gone![2]).toMatch(/^http:\/\/127\.0\.0\.1:\d+: fetch failed \| connect ECONNREFUSED 127\.0\.0\.1:\d+ — check the URL and that the node is up$/);
    });
  });
});
