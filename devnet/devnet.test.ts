// End-to-end over real JSON-RPC: a short scenario on the in-process Hardhat devnet, read back
// with viem through the HTTP URL exactly as the indexer will (DESIGN §6.1, §6.2).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, http, parseAbiItem, toEventSelector, type Abi, type AbiEvent, type Address, type Hex, type Log, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../common/config.js';
import { VAULT_TYPES } from '../families/index.js';
import { PROJECT_ROOT } from '../common/version.js';
import {
  aeraLikeProvisionerV1Abi,
  aeraLikeProvisionerV2Abi,
  aeraLikeVaultAbi,
  chainlinkLikeAggregatorAbi,
  morphoLikeVaultAbi,
  plainERC4626VaultAbi,
  priceAndFeeCalculatorAbi,
} from './abis.js';
import { HOUR, devnetChain, startDevnet, type Devnet } from './chain.js';
import { devnetConfig } from './devnetConfig.js';
import { genesisEndingAt } from './index.js';
import { simulateDevnet, type DevnetManifest } from './simulate.js';

// The signatures exactly as DESIGN §6.1 writes them (names and `indexed` included).
const SIG = {
  Deposit: 'Deposit(address indexed sender, address indexed owner, uint256 assets, uint256 shares)',
  Withdraw: 'Withdraw(address indexed sender, address indexed receiver, address indexed owner, uint256 assets, uint256 shares)',
  Transfer: 'Transfer(address indexed from, address indexed to, uint256 value)',
  AccrueInterest: 'AccrueInterest(uint256 newTotalAssets, uint256 feeShares)',
  SetFee: 'SetFee(address indexed caller, uint256 newFee)',
  SetCurator: 'SetCurator(address indexed newCurator)',
  Enter: 'Enter(address indexed sender, address indexed recipient, address indexed token, uint256 tokenAmount, uint256 unitsAmount)',
  Exit: 'Exit(address indexed sender, address indexed recipient, address indexed token, uint256 tokenAmount, uint256 unitsAmount)',
  DepositRequestedV1:
    'DepositRequested(address indexed user, address indexed token, uint256 tokensIn, uint256 minUnitsOut, uint256 solverTip, uint256 deadline, uint256 maxPriceAge, bool isFixedPrice, bytes32 depositRequestHash)',
  RedeemRequestedV1:
    'RedeemRequested(address indexed user, address indexed token, uint256 minTokensOut, uint256 unitsIn, uint256 solverTip, uint256 deadline, uint256 maxPriceAge, bool isFixedPrice, bytes32 redeemRequestHash)',
  DepositRequestedV2:
    'DepositRequested(address indexed user, address indexed receiver, address indexed token, uint256 tokensIn, uint256 minUnitsOut, uint256 solverTip, uint256 deadline, uint256 maxPriceAge, bool isFixedPrice, bytes32 depositRequestHash)',
  RedeemRequestedV2:
    'RedeemRequested(address indexed user, address indexed receiver, address indexed token, uint256 minTokensOut, uint256 unitsIn, uint256 solverTip, uint256 deadline, uint256 maxPriceAge, bool isFixedPrice, bytes32 redeemRequestHash)',
  DepositSolved: 'DepositSolved(bytes32 indexed depositHash)',
  RedeemSolved: 'RedeemSolved(bytes32 indexed redeemHash)',
  DepositRefunded: 'DepositRefunded(bytes32 indexed depositHash)',
  RedeemRefunded: 'RedeemRefunded(bytes32 indexed redeemHash)',
  Deposited: 'Deposited(address indexed user, address indexed token, uint256 tokensIn, uint256 unitsOut, bytes32 depositHash)',
  Redeemed: 'Redeemed(address indexed user, address indexed receiver, address indexed token, uint256 unitsIn, uint256 tokensOut)',
  UnitPriceUpdated: 'UnitPriceUpdated(address indexed vault, uint128 price, uint32 timestamp)',
  VaultFeesSet: 'VaultFeesSet(address indexed vault, uint16 tvlFee, uint16 performanceFee)',
  AnswerUpdated: 'AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt)',
} as const;

/** An event as the ABI declares it, without solc's internalType: comparable to parseAbiItem. */
function shape(event: AbiEvent) {
  return { name: event.name, inputs: event.inputs.map((p) => ({ name: p.name, type: p.type, indexed: p.indexed ?? false })) };
}

function abiEvent(abi: Abi, signature: string): AbiEvent | undefined {
  const topic0 = toEventSelector(signature);
  return abi.find((item): item is AbiEvent => item.type === 'event' && toEventSelector(item) === topic0);
}

let devnet: Devnet;
let manifest: DevnetManifest;
let client: PublicClient;
let logs: Log[];

beforeAll(async () => {
  devnet = await startDevnet({ chainId: 4242, startTime: Date.UTC(2025, 5, 1) / 1000 });
  manifest = await simulateDevnet(devnet, { days: 7, seed: 7, wallets: 20 });
  client = createPublicClient({
    chain: devnetChain(devnet.chainId, devnet.rpcUrl, manifest.contracts.multicall3),
    transport: http(devnet.rpcUrl, { batch: true }),
    cacheTime: 0, // viem caches getBlockNumber otherwise, and a local chain moves fast
  });
  logs = await client.getLogs({ fromBlock: 0n, toBlock: 'latest' });
}, 60_000);

afterAll(async () => {
  await devnet?.stop();
});

describe('devnet events (DESIGN §6.1)', () => {
  const m = () => manifest.contracts;
  const table: [keyof typeof SIG, Abi, () => Address[]][] = [
    ['Deposit', morphoLikeVaultAbi, () => [m().morphoUsdcVault, m().morphoWethVault]],
    ['Withdraw', morphoLikeVaultAbi, () => [m().morphoUsdcVault, m().morphoWethVault]],
    ['Transfer', morphoLikeVaultAbi, () => [m().morphoUsdcVault, m().morphoWethVault, m().aeraUsdcVault, m().aeraBtcVault, m().plainUsdcVault]],
    // the plain ERC-4626 vault: the standard's events only
    ['Deposit', plainERC4626VaultAbi, () => [m().plainUsdcVault]],
    ['Withdraw', plainERC4626VaultAbi, () => [m().plainUsdcVault]],
    ['AccrueInterest', morphoLikeVaultAbi, () => [m().morphoUsdcVault, m().morphoWethVault]],
    ['SetFee', morphoLikeVaultAbi, () => [m().morphoUsdcVault, m().morphoWethVault]],
    ['SetCurator', morphoLikeVaultAbi, () => [m().morphoUsdcVault, m().morphoWethVault]],
    ['Enter', aeraLikeVaultAbi, () => [m().aeraUsdcVault, m().aeraBtcVault]],
    ['Exit', aeraLikeVaultAbi, () => [m().aeraUsdcVault, m().aeraBtcVault]],
    ['DepositRequestedV1', aeraLikeProvisionerV1Abi, () => [m().provisionerV1]],
    ['RedeemRequestedV1', aeraLikeProvisionerV1Abi, () => [m().provisionerV1]],
    ['DepositRequestedV2', aeraLikeProvisionerV2Abi, () => [m().provisionerV2]],
    ['RedeemRequestedV2', aeraLikeProvisionerV2Abi, () => [m().provisionerV2]],
    ['DepositSolved', aeraLikeProvisionerV1Abi, () => [m().provisionerV1, m().provisionerV2]],
    ['RedeemSolved', aeraLikeProvisionerV1Abi, () => [m().provisionerV1, m().provisionerV2]],
    ['DepositRefunded', aeraLikeProvisionerV1Abi, () => [m().provisionerV1, m().provisionerV2]],
    ['RedeemRefunded', aeraLikeProvisionerV1Abi, () => [m().provisionerV1, m().provisionerV2]],
    ['Deposited', aeraLikeProvisionerV1Abi, () => [m().provisionerV1, m().provisionerV2]],
    ['Redeemed', aeraLikeProvisionerV2Abi, () => [m().provisionerV2]],
    ['UnitPriceUpdated', priceAndFeeCalculatorAbi, () => [m().calculator]],
    ['VaultFeesSet', priceAndFeeCalculatorAbi, () => [m().calculator]],
    ['AnswerUpdated', chainlinkLikeAggregatorAbi, () => [m().usdcUsdFeed, m().ethUsdFeed, m().btcUsdFeed]],
  ];

  it.each(table)('%s: the ABI declares the exact signature and every emitter logs it over eth_getLogs', async (key, abi, emitters) => {
    const signature = SIG[key];
    const declared = abiEvent(abi, signature);
    expect(declared, `no event with topic0 of ${signature}`).toBeDefined();
    // names and `indexed` too, which topic0 does not cover
    expect(shape(declared!)).toEqual(shape(parseAbiItem(`event ${signature}`) as AbiEvent));
    for (const address of emitters()) {
      const found = await client.request({
        method: 'eth_getLogs',
        params: [{ address, topics: [toEventSelector(signature)], fromBlock: '0x0', toBlock: 'latest' }],
      });
      expect(found.length, `${key} from ${address}`).toBeGreaterThan(0);
    }
  });

  it('v1 and v2 request events have different topic0s', () => {
    expect(toEventSelector(SIG.DepositRequestedV1)).not.toBe(toEventSelector(SIG.DepositRequestedV2));
    expect(toEventSelector(SIG.RedeemRequestedV1)).not.toBe(toEventSelector(SIG.RedeemRequestedV2));
  });

  it('no contract the indexer watches emits an event outside §6.1', () => {
    const known = new Set(Object.values(SIG).map((s) => toEventSelector(s)));
    const c = manifest.contracts;
    const watched = new Set(
      [c.morphoUsdcVault, c.morphoWethVault, c.aeraUsdcVault, c.aeraBtcVault, c.provisionerV1, c.provisionerV2, c.calculator, c.plainUsdcVault].map((a) =>
        a.toLowerCase(),
      ),
    );
    const stray = logs.filter((l) => watched.has(l.address.toLowerCase()) && !known.has(l.topics[0] as Hex));
    expect(stray).toEqual([]);
  });

  it('each solve emits the vault Enter or Exit in the same transaction', () => {
    const byTx = new Map<Hex | null, Log[]>();
    for (const l of logs) byTx.set(l.transactionHash, [...(byTx.get(l.transactionHash) ?? []), l]);
    for (const [solved, moved] of [
      [SIG.DepositSolved, SIG.Enter],
      [SIG.RedeemSolved, SIG.Exit],
    ] as const) {
      const solves = logs.filter((l) => l.topics[0] === toEventSelector(solved));
      expect(solves.length).toBeGreaterThan(0);
      for (const s of solves) expect(byTx.get(s.transactionHash)!.some((l) => l.topics[0] === toEventSelector(moved))).toBe(true);
    }
  });
});

describe('devnet state', () => {
  it('sum of balanceOf over every holder equals totalSupply, for each vault (read through Multicall3)', async () => {
    const transfer = toEventSelector(SIG.Transfer);
    for (const vault of manifest.vaults) {
      const holders = [
        ...new Set(
          logs
            .filter((l) => l.address.toLowerCase() === vault.address.toLowerCase() && l.topics[0] === transfer)
            .map((l) => `0x${l.topics[2]!.slice(26)}` as Address),
        ),
      ].filter((a) => BigInt(a) !== 0n);
      const abi = morphoLikeVaultAbi; // balanceOf/totalSupply are the same ERC-20 functions on both vault kinds
      const supply = await client.readContract({ address: vault.address, abi, functionName: 'totalSupply' });
      const balances = await client.multicall({
        contracts: holders.map((h) => ({ address: vault.address, abi, functionName: 'balanceOf', args: [h] }) as const),
        allowFailure: false,
      });
      expect(supply).toBeGreaterThan(0n);
      expect(balances.reduce((a, b) => a + b, 0n)).toBe(supply);
    }
  });

  it('closes every block on the hour, one block per hour, through the keeper outage', async () => {
    const genesis = manifest.startTime - HOUR;
    const blocks = await Promise.all(Array.from({ length: manifest.endBlock + 1 }, (_, n) => client.getBlock({ blockNumber: BigInt(n) })));
    for (const b of blocks) expect(Number(b.timestamp)).toBe(genesis + Number(b.number) * HOUR);
    expect(manifest.endBlock).toBe(7 * 24);
    expect(manifest.endTime).toBe(manifest.startTime + (manifest.endBlock - 1) * HOUR);
    const empty = blocks.filter((b) => b.number > 0n && b.transactions.length === 0);
    expect(empty.length).toBe(6); // the outage, mined with hardhat_mine
  });

  it('leaves a deposit and a redeem request pending on each provisioner', async () => {
    for (const provisioner of [manifest.contracts.provisionerV1, manifest.contracts.provisionerV2]) {
      const open = manifest.pendingRequests.filter((r) => r.provisioner === provisioner);
      expect(new Set(open.map((r) => r.kind))).toEqual(new Set(['deposit', 'redeem']));
      for (const r of open) {
        const onChain = await client.readContract({ address: provisioner, abi: aeraLikeProvisionerV1Abi, functionName: 'getRequest', args: [r.hash] });
        expect(onChain.user).toBe(r.user);
      }
    }
  });

  it('describes the chain in the manifest', async () => {
    expect(await client.getChainId()).toBe(4242);
    expect(manifest.chainId).toBe(4242);
    expect(manifest.wallets).toHaveLength(20);
    expect(manifest.vaults.map((v) => [v.vault_type, v.numeraire.symbol, v.numeraire.decimals, v.provisioner_version])).toEqual([
      ['morpho_v1', 'USDC', 6, undefined],
      ['morpho_v1', 'WETH', 18, undefined],
      ['aera_v3', 'USDC', 6, 1],
      ['aera_v3', 'cbBTC', 8, 2],
      ['erc4626', 'USDC', 6, undefined],
    ]);
    const code = await client.getCode({ address: manifest.contracts.multicall3, blockNumber: 1n });
    expect(code?.length).toBeGreaterThan(2);
    expect(manifest.stats.logs).toBe(logs.length);
  });

  it('turns the manifest into a valid vaultd config (chain + registry)', () => {
    const config = parseConfig(VAULT_TYPES, devnetConfig(manifest), 'the devnet manifest');
    expect(config.chains).toEqual([expect.objectContaining({ chain_id: 4242, rpc_urls: [devnet.rpcUrl], finality_blocks: 0 })]);
    expect(config.registry.vaults.map((v) => [v.address, v.start_block, v.provisioner])).toEqual(manifest.vaults.map((v) => [v.address, 1, v.provisioner]));
  });
});

describe('devnet lifecycle', () => {
  it('error: invalid options, with the offending value quoted', async () => {
    await expect(startDevnet({ port: 70000 })).rejects.toThrow('devnet port must be an integer from 0 to 65535, got 70000');
    await expect(startDevnet({ chainId: 0 })).rejects.toThrow('devnet chain id must be a positive integer, got 0');
    await expect(startDevnet({ startTime: 1_735_689_601 })).rejects.toThrow('devnet start time must be unix seconds on the hour, got 1735689601');
    await expect(simulateDevnet(devnet, { days: 0 })).rejects.toThrow('devnet days must be an integer from 1 to 3650, got 0');
  });

  it('error: busy port (rejects instead of crashing the process)', async () => {
    const port = Number(new URL(devnet.rpcUrl).port);
    await expect(startDevnet({ port })).rejects.toThrow(`devnet could not listen on 127.0.0.1:${port}`);
  });

  it('genesisEndingAt puts the last hourly block on the last full hour', () => {
    const now = Date.UTC(2026, 0, 15, 10, 42) / 1000;
    expect(genesisEndingAt(now, 90) + 90 * 24 * HOUR).toBe(Date.UTC(2026, 0, 15, 10) / 1000);
  });

  it('replays the same chain from the same seed', async () => {
    const digest = async (seed: number) => {
      const d = await startDevnet();
      try {
        const run = await simulateDevnet(d, { days: 2, seed, wallets: 5 });
        const c = createPublicClient({ transport: http(d.rpcUrl), cacheTime: 0 });
        const all = await c.getLogs({ fromBlock: 0n, toBlock: 'latest' });
        return JSON.stringify({ wallets: run.wallets, logs: all.map((l) => [l.blockHash, l.logIndex, l.address, l.topics, l.data]) });
      } finally {
        await d.stop();
      }
    };
    const [a, b, other] = [await digest(3), await digest(3), await digest(4)];
    expect(a).toBe(b);
    expect(a).not.toBe(other);
  });

  it('stops cleanly: the port closes and a process running a scenario exits on its own', async () => {
    const d = await startDevnet();
    await d.stop();
    await expect(fetch(d.rpcUrl, { method: 'POST', body: '{}' })).rejects.toThrow();

    const dist = join(PROJECT_ROOT, 'dist', 'devnet');
    expect(existsSync(join(dist, 'simulate.js')), 'dist is stale or missing: run npm run build').toBe(true);
    const script = `
      const { startDevnet } = await import(${JSON.stringify(join(dist, 'chain.js'))});
      const { simulateDevnet } = await import(${JSON.stringify(join(dist, 'simulate.js'))});
      const devnet = await startDevnet();
      await simulateDevnet(devnet, { days: 1 });
      await devnet.stop();
      console.log('stopped');`;
    // no process.exit: the child ends only if nothing (server, socket, timer) is left open
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim()).toBe('stopped');
    expect(child.status).toBe(0);
  });
});
