// Bad data on chain (DESIGN §9): a registered address whose code emits an unknown event, a
// Transfer with a 5-byte body and a provisioner event from a vault — each skipped, logged and
// counted by reason, never a crash; everything else is ingested as if they were not there.
import { keccak256, pad, toEventSelector, toHex, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCommon } from '../../test/helpers/common.js';
import { tableHashes } from '../../test/helpers/contentHash.js';
import { createStore, type Store } from '../../store/store.js';
import { createTxQueue } from '../../devnet/txQueue.js';
import { ingestOnce } from './ingestOnce.js';
import { scenarioConfig, startScenario, type Scenario } from '../../test/helpers/chain/scenario.js';

const BAD: Address = '0x00000000000000000000000000000000000bad01';
const UNKNOWN_TOPIC = keccak256(toHex('NotAVaultEvent(uint256)'));
const TRANSFER = toEventSelector('Transfer(address,address,uint256)');
const DEPOSIT_SOLVED = toEventSelector('DepositSolved(bytes32)');

/** Runtime code: LOG1(unknown topic), LOG3(Transfer, from, to) with 5 data bytes, LOG2(DepositSolved, hash); STOP. */
function badLogsCode(from: Address, to: Address): `0x${string}` {
  const push32 = (word: string) => `7f${word.slice(2)}`;
  return `0x${[
    push32(UNKNOWN_TOPIC),
    '6000',
    '6000',
    'a1',
    push32(pad(to)),
    push32(pad(from)),
    push32(TRANSFER),
    '6005',
    '6000',
    'a3',
    push32(keccak256(toHex('some request'))),
    push32(DEPOSIT_SOLVED),
    '6000',
    '6000',
    'a2',
    '00',
  ].join('')}`;
}

let sc: Scenario;
const stores: Store[] = [];

beforeAll(async () => {
  sc = await startScenario({ chainId: 4545, days: 1, seed: 17, wallets: 6 });
});

afterAll(async () => {
  for (const s of stores) await s.close();
  await sc?.devnet.stop();
});

describe('bad data', () => {
  it('an unknown event, a malformed log and a misplaced event are skipped and counted; the rest is ingested', async () => {
    const m = sc.manifest;
    const provider = sc.devnet.provider;
    const [w0, w1] = m.wallets as [Address, Address];
    await provider.request({ method: 'hardhat_setCode', params: [BAD, badLogsCode(w0, w1)] });
    const q = createTxQueue(provider);
    const poke = [{ type: 'function', name: 'poke', inputs: [], outputs: [], stateMutability: 'nonpayable' }] as const;
    await q.write(w0, { address: BAD, abi: poke, functionName: 'poke', args: [] });
    await q.closeBlock(m.endTime + 3600);
    const badBlock = m.endBlock + 1;

    const extraVaults = [
      {
        chain_id: m.chainId,
        address: BAD,
        vault_type: 'morpho_v1' as const,
        name: 'Emits bad logs',
        symbol: 'BAD',
        numeraire_token: { ...m.vaults[0]!.numeraire },
        start_block: badBlock,
      },
    ];
    const common = testCommon();
    const store = await createStore(common, { path: ':memory:' });
    stores.push(store);
    const [r] = await ingestOnce(common, store, scenarioConfig(m, { extraVaults }));
    expect(r).toMatchObject({ status: 'ok', to: badBlock, bad_data: 4 });

    const bad = (await common.metrics.getSingleMetric('vaultd_ingest_bad_data_total')!.get()).values;
    expect(Object.fromEntries(bad.map((v) => [v.labels.reason, v.value]))).toEqual({
      unknown_topic: 1,
      malformed_log: 1,
      unexpected_emitter: 1,
      // its totalAssets() returns nothing: the hour's read fails, the vault gets no snapshot
      snapshot_read_failed: 1,
    });
    expect(await store.one('test.bad', 'SELECT count(*)::INT AS n FROM vault_events WHERE vault_id = $1', [`${m.chainId}:${BAD}`])).toEqual({ n: 0 });

    // the real vaults' rows are exactly those of a run that never saw the bad address
    const clean = await createStore(testCommon(), { path: ':memory:' });
    stores.push(clean);
    await ingestOnce(testCommon(), clean, scenarioConfig(m));
    expect(await tableHashes(store, ['vault_events', 'vault_snapshots'])).toEqual(await tableHashes(clean, ['vault_events', 'vault_snapshots']));
  });
});
