// `vaultd devnet` end to end: a local chain, our contracts, a simulated month, ingested over
// JSON-RPC by the real indexer, served by the real API; the operator's configuration
// (VAULTD_CONFIG) sets the rest of the run, and --write-config keeps the run's configuration.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/common.js';
import { vaultd, vaultdSpawn, waitForListening } from './helpers/cli.js';

describe('vaultd devnet', () => {
  it('serves the vaults it deployed and ingested, under the given configuration, keeps it with --write-config, and stops on SIGTERM', async () => {
    const dir = tempDir();
    const given = join(dir, 'operator.json');
    // the operator's own settings; its chains give way to the devnet's
    writeFileSync(
      given,
      JSON.stringify({
        server: { metrics_public: false },
        rate_limits: { anonymous_per_minute: 1000 },
        chains: [{ chain_id: 1, slug: 'ethereum', name: 'Ethereum' }],
      }),
    );
    const kept = join(dir, 'out', 'devnet.json');
    const child = vaultdSpawn(['devnet', '--port', '0', '--db', join(dir, 'devnet.duckdb'), '--write-config', kept], { VAULTD_CONFIG: given });
    try {
      let stdout = '';
      child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
      const port = await waitForListening(child, 240_000);
      const res = await fetch(`http://127.0.0.1:${port}/v1/vaults`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        data: {
          vault_id: string;
          vault_type: string;
          numeraire_token: { address: string };
          metrics: { total_supply: string; as_of: number; tvl: { native: string; usd: string | null } };
        }[];
      };
      expect(body.data).toHaveLength(5);
      expect(new Set(body.data.map((v) => v.vault_type))).toEqual(new Set(['morpho_v1', 'aera_v3', 'erc4626']));
      for (const v of body.data) {
        expect(v.vault_id).toMatch(/^31337:0x[0-9a-f]{40}$/);
        expect(Number(v.metrics.total_supply)).toBeGreaterThan(0);
        // USD from the devnet's Chainlink-like feeds, read by the prices job
        expect(Number(v.metrics.tvl.usd)).toBeGreaterThan(0);
        const price = (await (await fetch(`http://127.0.0.1:${port}/v1/prices?chain_id=31337&address=${v.numeraire_token.address}`)).json()) as {
          price: { usd: number };
          timestamp: string;
        };
        expect(price.price.usd).toBeGreaterThan(0);
        expect(Date.parse(price.timestamp) / 1000).toBe(v.metrics.as_of);
      }
      // every definition field the indexer reads is on the devnet's contracts (MetaMorpho's timelock too)
      for (const v of body.data.filter((x) => x.vault_type === 'morpho_v1')) {
        const def = (await (await fetch(`http://127.0.0.1:${port}/v1/vaults/${v.vault_id}/definition`)).json()) as { data: Record<string, unknown> };
        expect(JSON.stringify(def.data)).toContain('"timelock_seconds":86400');
      }
      const chains = (await (await fetch(`http://127.0.0.1:${port}/health/chains`)).json()) as { chain_id: number; latest_block: number }[];
      // the indexer's checkpoint, at the last full hour: fresh
      expect(chains[0]).toMatchObject({ chain_id: 31337, freshness: 'fresh' });
      expect(chains[0]!.latest_block).toBeGreaterThan(700);
      // VAULTD_CONFIG was honoured: /metrics is kept for keys there
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
      const config = /; config (\S+\.json);/.exec(stdout)?.[1];
      expect(config).toBe(kept);
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      // kept after the run: the devnet's chain, vaults and feeds with the operator's settings, a valid configuration
      const written = JSON.parse(readFileSync(kept, 'utf8'));
      expect(written.server).toEqual({ metrics_public: false });
      expect(written.rate_limits).toEqual({ anonymous_per_minute: 1000 });
      expect(written.chains.map((c: { chain_id: number }) => c.chain_id)).toEqual([31337]);
      expect(written.registry.vaults).toHaveLength(5);
      expect(written.prices.providers[0].kind).toBe('chainlink');
      expect(vaultd(['config', 'check', '--config', kept]).status).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 300_000);
});
