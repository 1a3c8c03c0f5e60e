import { afterAll, describe, expect, it } from 'vitest';
import { testCommon } from '../../test/helpers/common.js';
import { parseConfig, type Config } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { createStore, type Store } from '../../store/store.js';
import { createChainSource, roundsToSkip } from './chainSource.js';

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

describe('createChainSource', () => {
  it('a chain that keeps failing sits out 1, 3, 7 … up to 31 rounds', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 20].map(roundsToSkip)).toEqual([0, 0, 0, 1, 3, 7, 15, 31, 31, 31]);
  });

  it('rounds of a dead chain: stalled three times, then skipped while backing off', async () => {
    const config: Config = {
      ...parseConfig(
        VAULT_TYPES,
        {
          chains: [{ chain_id: 7, slug: 'dead', name: 'Dead', rpc_urls: ['http://127.0.0.1:9'], finality_blocks: 0 }],
          registry: {
            vaults: [
              {
                chain_id: 7,
                address: '0x0000000000000000000000000000000000000007',
                vault_type: 'morpho_v1',
                name: 'v',
                symbol: 'v',
                numeraire_token: { address: '0x0000000000000000000000000000000000000008', decimals: 6, symbol: 'USDC' },
              },
            ],
          },
        },
        'test',
      ),
      source: null,
      log_level: 'silent',
    };
    const common = testCommon();
    const store = await createStore(common, { path: ':memory:' });
    stores.push(store);
    let results: { status: string }[] = [];
    const source = createChainSource({
      common,
      config,
      options: { rpc: { timeoutMs: 300, batch: false, retry: { attempts: 1, baseMs: 1, maxMs: 1 } } },
      onRound: (r) => (results = r),
    });
    const statuses: string[] = [];
    for (let i = 0; i < 5; i++) {
      expect(await source.round(store, new AbortController().signal)).toEqual({ inputsChanged: false, rowsRemoved: false });
      statuses.push(results.map((r) => r.status).join(',') || 'skipped');
    }
    expect(statuses).toEqual(['stalled', 'stalled', 'stalled', 'skipped', 'stalled']);
  });
});
