// Issue #38 item 6, the command-line half: `ingest --once` against an RPC that is down says
// what it could not do (no head, so nothing due can be known) rather than "nothing due
// (target ?)", and an RPC URL in an error keeps its origin and hides its path (where providers
// put API keys): `http://127.0.0.1:9/<path>`, never `http:/<path>`, never the key.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { vaultd } from './helpers/cli.js';
import { tempDir } from './helpers/common.js';

const dir = tempDir('vaultd-readable-');
// port 9 (discard) is refused by fetch at once: a dead RPC without waiting on a timeout
const DEAD_RPC = 'http://127.0.0.1:9/v2/SECRETKEY123';

describe('ingest --once against an RPC that is down', () => {
  it('the summary says no head was read; the price error keeps the URL origin and hides its key', () => {
    const config = join(dir, 'dead.json');
    writeFileSync(
      config,
      JSON.stringify({
        chains: [{ chain_id: 1, slug: 'ethereum', name: 'Ethereum', rpc_urls: [DEAD_RPC], finality_blocks: 12 }],
        registry: {
          vaults: [
            {
              chain_id: 1,
              address: '0xBEEF01735c132Ada46AA9aA4c54623cAA92A64CB',
              vault_type: 'morpho_v1',
              name: 'Steakhouse USDC',
              symbol: 'steakUSDC',
              numeraire_token: { address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6, symbol: 'USDC' },
              start_block: 18_000_000,
            },
          ],
        },
        prices: {
          providers: [
            {
              kind: 'chainlink',
              chain_id: 1,
              feeds: [{ token: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', aggregator: '0x8fFfFfd4AfB6115b954Bd326cbe7B4BA576818f6' }],
            },
          ],
        },
      }),
    );
    const r = vaultd(['ingest', '--once', '--config', config, '--db', join(dir, 'dead.duckdb')], { VAULTD_LOG_LEVEL: 'info' });
    expect(r.status).toBe(1);
    const [chain, prices] = r.stdout.trim().split('\n');
    expect(chain).toMatch(
      /^chain 1 \(ethereum\): no blocks read \(the head could not be read\), 0 logs, 0 events, 0 snapshots in [\d.]+ s — stalled: fetch failed\b/,
    );
    expect(prices).toMatch(/^prices chainlink:1: 0 rows for 0 tokens — failed: /);
    const failed = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; error?: string })
      .find((l) => l.msg === 'price provider failed; the others went on');
    expect(failed!.error).toContain('URL: http://127.0.0.1:9/<path>');
    for (const text of [r.stdout, r.stderr]) {
      expect(text).not.toContain('SECRETKEY123');
      expect(text).not.toContain('http:/<path>');
    }
  });
});
