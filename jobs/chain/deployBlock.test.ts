// Deployment blocks (issue 38 item 1): a vault without start_block is indexed from its
// deployment block, found by bisection on eth_getCode against the devnet (every devnet contract
// is deployed in block 1; one more is put on chain in a later block here), in at most
// ⌈log2(head)⌉ + 2 calls, cached in the store (a second runtime searches nothing), and the
// tables equal those of an ingest with the start blocks configured.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../common/config.js';
import { mineEmptyHours } from '../../devnet/index.js';
import { VAULT_TYPES } from '../../families/index.js';
import { readDeployBlocks } from '../../store/deployBlocks.js';
import { createStore, type Store } from '../../store/store.js';
import { vaultdAsync } from '../../test/helpers/cli.js';
import { tempDir, testCommon } from '../../test/helpers/common.js';
import { tableHashes } from '../../test/helpers/contentHash.js';
import { startRpcStandIn, type RpcStandIn } from '../../test/helpers/chain/rpcStandIn.js';
import { scenarioConfig, scenarioConfigInput, startScenario, type Scenario } from '../../test/helpers/chain/scenario.js';
import { createChainRpc } from '../evm/chainRpc.js';
import { findDeployBlock } from '../evm/findDeployBlock.js';
import { ingestOnce } from './ingestOnce.js';

let sc: Scenario;
let standIn: RpcStandIn;
const stores: Store[] = [];
/** a contract put on chain after the simulation, and the block it appeared in */
const late = { address: '0x00000000000000000000000000000000000c0de1', block: 0 };
let head = 0;

beforeAll(async () => {
  sc = await startScenario({ chainId: 4646, days: 3, seed: 5, wallets: 8 });
  const p = sc.devnet.provider;
  const code = (await p.request({ method: 'eth_getCode', params: [sc.manifest.vaults[0]!.address, 'latest'] })) as string;
  await mineEmptyHours(p, sc.manifest.endTime + 3600, 10);
  // hardhat_setCode writes the latest block's state: the code appears in that block
  await p.request({ method: 'hardhat_setCode', params: [late.address, code] } as never);
  late.block = Number.parseInt((await p.request({ method: 'eth_blockNumber' })) as string, 16);
  await mineEmptyHours(p, sc.manifest.endTime + 12 * 3600, 40);
  head = Number.parseInt((await p.request({ method: 'eth_blockNumber' })) as string, 16);
  standIn = await startRpcStandIn(sc.devnet.rpcUrl);
});

afterAll(async () => {
  for (const s of stores) await s.close();
  await standIn?.close();
  await sc?.devnet.stop();
});

/** The scenario's config without any start_block. */
function unstarted() {
  const input = scenarioConfigInput(sc.manifest, { rpcUrls: [standIn.url] });
  const vaults = input.registry!.vaults!.map(({ start_block: _, ...v }) => v);
  return { ...parseConfig(VAULT_TYPES, { ...input, registry: { vaults } }, 'test'), source: null, log_level: 'silent' as const };
}

describe('deployment blocks', () => {
  it('the bisection finds the exact block of each devnet contract and of a later one, in ⌈log2(head)⌉ + 2 calls at most', async () => {
    const rpc = createChainRpc(testCommon(), { chain_id: 4646, rpc_urls: [sc.devnet.rpcUrl] });
    const bound = Math.ceil(Math.log2(head)) + 2;
    const targets = [...sc.manifest.vaults.map((v) => ({ address: v.address, block: sc.manifest.startBlock })), late];
    for (const t of targets) {
      // the truth, read directly: no code the block before, code from it on
      expect(await rpc.code(t.address, t.block - 1)).toBe('0x');
      expect(await rpc.code(t.address, t.block)).not.toBe('0x');
      const r = await findDeployBlock(rpc, t.address, 0, head);
      expect(r).toMatchObject({ block: t.block, atLo: false });
      expect(r.calls).toBeLessThanOrEqual(bound);
    }
    // a contract deployed before `lo` is said to be, and an address with no code has no block
    expect(await findDeployBlock(rpc, late.address, late.block + 3, head)).toMatchObject({ block: late.block + 3, atLo: true });
    expect((await findDeployBlock(rpc, '0x00000000000000000000000000000000000000ee', 0, head)).block).toBeNull();
  });

  it('ingest without start_block: found, cached, and the same tables as with the start blocks configured', async () => {
    const common = testCommon();
    const configured = await createStore(common, { path: ':memory:' });
    const found = await createStore(common, { path: ':memory:' });
    stores.push(configured, found);
    standIn.reset();
    const [a] = await ingestOnce(common, configured, scenarioConfig(sc.manifest, { rpcUrls: [standIn.url] }));
    expect(a!.status).toBe('ok');
    const baseline = standIn.calls.eth_getCode ?? 0;

    standIn.reset();
    const config = unstarted();
    const [b] = await ingestOnce(common, found, config);
    expect(b!.status).toBe('ok');
    const cached = await readDeployBlocks(found);
    for (const v of sc.manifest.vaults) expect(cached.get(`4646:${v.address.toLowerCase()}`)).toBe(sc.manifest.startBlock);
    // the searches: one bisection a vault, on top of what the configured run asked (the Multicall3 probe)
    expect((standIn.calls.eth_getCode ?? 0) - baseline).toBeGreaterThan(0);
    expect((standIn.calls.eth_getCode ?? 0) - baseline).toBeLessThanOrEqual(sc.manifest.vaults.length * (Math.ceil(Math.log2(head)) + 2));
    // every row the same; the registry's `vaults` table mirrors the configuration (start_block null there)
    const { vaults: _a, ...rowsFound } = await tableHashes(found);
    const { vaults: _b, ...rowsConfigured } = await tableHashes(configured);
    expect(rowsFound).toEqual(rowsConfigured);
    expect(rowsFound.vault_snapshots!.rows).toBeGreaterThan(0);

    // a new runtime on the same store reads the cache: no more eth_getCode than a configured one asks
    standIn.reset();
    await ingestOnce(common, configured, scenarioConfig(sc.manifest, { rpcUrls: [standIn.url] }));
    const rerun = standIn.calls.eth_getCode ?? 0;
    standIn.reset();
    const [c] = await ingestOnce(common, found, config);
    expect(c!.status).toBe('ok');
    expect(standIn.calls.eth_getCode ?? 0).toBe(rerun);
  });

  it('`vaultd chains` lists each vault: configured, found (after a round) or not yet found', async () => {
    const dir = tempDir();
    try {
      const input = scenarioConfigInput(sc.manifest, { rpcUrls: [standIn.url] });
      const [first, ...rest] = input.registry!.vaults!;
      const vaults = [first!, ...rest.map(({ start_block: _, ...v }) => v)];
      const file = join(dir, 'vaultd.json');
      const db = join(dir, 'vaultd.duckdb');
      writeFileSync(file, JSON.stringify({ ...input, db, registry: { vaults } }));
      const before = await vaultdAsync(['chains', '--config', file]);
      expect(before.status, before.stderr).toBe(0);
      const lines = (out: string) =>
        out
          .trimEnd()
          .split('\n')
          .map((l) => l.split(/\s{2,}/));
      expect(lines(before.stdout)[0]).toEqual(['chain', 'address', 'start_block', 'source']);
      expect(lines(before.stdout).slice(1)).toEqual([
        ['4646 (devnet)', first!.address.toLowerCase(), String(sc.manifest.startBlock), 'configured'],
        ...rest.map((v) => ['4646 (devnet)', v.address.toLowerCase(), '-', 'not yet found']),
      ]);
      const common = testCommon();
      const store = await createStore(common, { path: db });
      const [r] = await ingestOnce(common, store, {
        ...parseConfig(VAULT_TYPES, { ...input, db, registry: { vaults } }, 'test'),
        source: null,
        log_level: 'silent',
      });
      expect(r!.status).toBe('ok');
      await store.close();
      const after = await vaultdAsync(['chains', '--config', file]);
      expect(after.status, after.stderr).toBe(0);
      expect(lines(after.stdout).slice(2)).toEqual(rest.map((v) => ['4646 (devnet)', v.address.toLowerCase(), String(sc.manifest.startBlock), 'found']));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
