import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCommon } from '../../test/helpers/common.js';
import { createStore, type Store } from '../../store/store.js';
import { loadChainHeads } from './loadWorld.js';

// The published world file is named by its hash: two publishes of the same inputs must list
// the chains in one order (a GROUP BY's rows come in any order on several threads).
describe('loadChainHeads', () => {
  const chains = [8453, 1, 42161, 10, 137, 56, 43114, 100, 250, 324, 59144, 534352];
  let store: Store;
  beforeAll(async () => {
    store = await createStore(testCommon(), { path: ':memory:', threads: 4, memoryLimit: '512MB' });
    for (const [k, chain] of chains.entries()) {
      const id = `${chain}:0x${k.toString(16).padStart(40, '0')}`;
      await store.run(
        'seed.vault',
        `INSERT INTO vaults VALUES ($1, $2, '0x', 'morpho_v1', 'v', 'v', '0x', 6, 'USDC', NULL, true, NULL, 'visible', TIMESTAMP '2026-01-01', '{}')`,
        [id, chain],
      );
      await store.run(
        'seed.snapshots',
        `INSERT INTO vault_snapshots SELECT $1, TIMESTAMP '2026-01-01' + INTERVAL (range) HOUR, $2 + range, 1, 1, NULL FROM range(2000)`,
        [id, chain * 10],
      );
    }
    // the indexer's own checkpoints, for some chains, inserted out of order
    for (const chain of [137, 1, 59144]) {
      await store.run(
        'seed.status',
        `INSERT INTO ingest_status (chain_id, checkpoint_block, checkpoint_ts, status, consecutive_failures, updated_at) VALUES ($1, $2, TIMESTAMP '2026-02-01', 'ok', 0, TIMESTAMP '2026-02-01')`,
        [chain, chain + 7],
      );
    }
  });
  afterAll(() => store.close());

  it('lists the chains ascending, with each its newest block or the indexer checkpoint', async () => {
    for (let round = 0; round < 10; round++) {
      const heads = await loadChainHeads(store);
      expect([...heads.keys()]).toEqual([...chains].sort((a, b) => a - b));
      expect(heads.get(8453)!.block).toBe(84530 + 1999);
      expect(heads.get(137)!.block).toBe(137 + 7);
    }
  });
});
