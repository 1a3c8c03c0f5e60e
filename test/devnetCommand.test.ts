// `vaultd devnet` end to end: a local chain, our contracts, a simulated month, ingested over
// JSON-RPC by the real indexer, served by the real API.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/common.js';
import { vaultdSpawn, waitForListening } from './helpers/cli.js';

describe('vaultd devnet', () => {
  it('serves the vaults it deployed and ingested, and stops on SIGTERM', async () => {
    const child = vaultdSpawn(['devnet', '--port', '0', '--db', join(tempDir(), 'devnet.duckdb')]);
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
      const config = /; config (\S+\.json);/.exec(stdout)?.[1];
      expect(config && existsSync(config)).toBe(true);
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(existsSync(config!)).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 300_000);
});
