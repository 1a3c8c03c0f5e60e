// Reorgs (DESIGN §6.1, §9): blocks are ingested, the chain is reverted below them with
// evm_snapshot/evm_revert and other blocks are mined in their place; the next round finds the
// fork point, drops the orphaned rows, ingests the new branch — and ends equal to a fresh
// ingest of the final chain.
import { parseUnits, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCommon } from '../../test/helpers/common.js';
import { tableHashes } from '../../test/helpers/contentHash.js';
import { createStore, type Store } from '../../store/store.js';
import { morphoLikeVaultAbi } from '../../devnet/abis.js';
import { mineBlockAt } from '../../devnet/chain.js';
import { createTxQueue } from '../../devnet/txQueue.js';
import { ingestOnce, createIngestRuntime } from './ingestOnce.js';
import { scenarioConfig, startScenario, type Scenario } from '../../test/helpers/chain/scenario.js';

let sc: Scenario;
const stores: Store[] = [];
const FINALITY = 2;
const HOUR = 3600;

beforeAll(async () => {
  sc = await startScenario({ chainId: 4444, days: 2, seed: 13, wallets: 8 });
});

afterAll(async () => {
  for (const s of stores) await s.close();
  await sc?.devnet.stop();
});

/** Mines `blocks` hourly blocks after the scenario's end: a deposit by `depositor` and a transfer in each. */
async function mineBranch(blocks: number, depositor: Address, amountUsdc: string, from: Address, to: Address): Promise<void> {
  const q = createTxQueue(sc.devnet.provider);
  const vault = sc.manifest.contracts.morphoUsdcVault;
  for (let i = 1; i <= blocks; i++) {
    await q.write(depositor, { address: vault, abi: morphoLikeVaultAbi, functionName: 'deposit', args: [parseUnits(amountUsdc, 6), depositor] });
    await q.write(from, { address: vault, abi: morphoLikeVaultAbi, functionName: 'transfer', args: [to, 10n ** 15n * BigInt(i)] });
    await q.closeBlock(sc.manifest.endTime + i * HOUR);
  }
}

describe('reorg below the ingested head', () => {
  it('rows of orphaned blocks disappear, the new branch’s appear, and the tables equal a fresh ingest', async () => {
    const m = sc.manifest;
    const provider = sc.devnet.provider;
    const [w0, w1, w2, w3] = m.wallets as [Address, Address, Address, Address];
    // every wallet 0–3 deposited in hour 1, so each can send a little
    const snapshot = (await provider.request({ method: 'evm_snapshot', params: [] })) as string;
    await mineBranch(6, w0, '1000', w0, w1);

    const common = testCommon();
    const store = await createStore(common, { path: ':memory:' });
    stores.push(store);
    const config = scenarioConfig(m, { finality: FINALITY });
    const runtime = createIngestRuntime(common, config);
    const [first] = await ingestOnce(common, store, config, { runtime });
    expect(first).toMatchObject({ status: 'ok', to: m.endBlock + 6 - FINALITY, reorg: null });
    const orphanHashes = (
      await store.rows<{ h: string }>('test.orphans', 'SELECT DISTINCT block_hash AS h FROM vault_events WHERE block_number > $1', [m.endBlock])
    ).map((r) => r.h);
    expect(orphanHashes.length).toBe(4);
    const orphanSnapshots = await store.rows('test.orphan_snaps', 'SELECT * FROM vault_snapshots WHERE block_number > $1', [m.endBlock]);
    expect(orphanSnapshots.length).toBe(4 * m.vaults.length);

    // the fork: back to the scenario's end, then a different branch of 8 blocks at the same hours
    expect(await provider.request({ method: 'evm_revert', params: [snapshot] })).toBe(true);
    await mineBranch(8, w1, '2500', w2, w3);
    const [second] = await ingestOnce(common, store, config, { runtime });
    expect(second!.error).toBeUndefined();
    expect(second!.status).toBe('ok');
    expect(second!.reorg).toMatchObject({ ancestor: m.endBlock, orphaned_from: m.endBlock + 1 });
    expect(second!.reorg!.events_removed).toBe(4 * 3); // a deposit and a transfer pair per orphaned block
    expect(second!.to).toBe(m.endBlock + 8 - FINALITY);

    const after = await store.rows<{ block_hash: string; kind: string; wallet: string }>(
      'test.after',
      'SELECT block_hash, kind, wallet FROM vault_events WHERE block_number > $1 ORDER BY block_number, log_index, sub_index',
      [m.endBlock],
    );
    expect(after.some((r) => orphanHashes.includes(r.block_hash))).toBe(false);
    expect(after.filter((r) => r.kind === 'transfer_out').map((r) => r.wallet)).toEqual(Array(6).fill(w2.toLowerCase()));
    expect(after.filter((r) => r.kind === 'deposit').map((r) => r.wallet)).toEqual(Array(6).fill(w1.toLowerCase()));

    // the strongest check: identical to a fresh database ingesting the final chain
    const fresh = await createStore(testCommon(), { path: ':memory:' });
    stores.push(fresh);
    await ingestOnce(testCommon(), fresh, config);
    expect(await tableHashes(store)).toEqual(await tableHashes(fresh));
    expect(await tableHashes(store, ['block_hashes', 'chain_requests'])).toEqual(await tableHashes(fresh, ['block_hashes', 'chain_requests']));

    // a round with nothing new finds no fork
    await mineBlockAt(provider, m.endTime + 9 * HOUR);
    const [third] = await ingestOnce(common, store, config, { runtime });
    expect(third).toMatchObject({ status: 'ok', reorg: null, to: m.endBlock + 9 - FINALITY });
  });
});
