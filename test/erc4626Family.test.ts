// The fifth family end to end (issue #33): the devnet's plain ERC-4626 vault, ingested over
// JSON-RPC by the real `vaultd ingest`, served by the real `vaultd serve`, and every number the
// API gives for it — detail, definition, hourly timeseries, each wallet's position and activity —
// checked against the contract's own state read independently at the same blocks.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, http, parseEventLogs, type Address, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, fromBaseUnits, type Erc4626Definition } from '../client/index.js';
import { chainlinkLikeAggregatorAbi, plainERC4626VaultAbi } from '../devnet/abis.js';
import { devnetChain } from '../devnet/chain.js';
import { BIN, stopChildren, vaultdSpawn, waitForListening } from './helpers/cli.js';
import { tempDir } from './helpers/common.js';
import { scenarioConfigInput, startScenario, type Scenario } from './helpers/chain/scenario.js';

const CHAIN = 4646;
const ZERO = '0x0000000000000000000000000000000000000000';

let sc: Scenario;
let chain: PublicClient;
let server: ReturnType<typeof vaultdSpawn> | undefined;
let api: ReturnType<typeof createClient>;
let vault: Address;
let vaultId: string;
let decimals: number;

/** A child `vaultd` run to its end without blocking this process (the devnet answers from it). */
function run(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, VAULTD_LOG_LEVEL: 'warn' } });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

/** The vault's reads at a block: total assets, total supply, and the engine's unit-price rule (DESIGN §4.1). */
async function stateAt(block: bigint) {
  const [assets, supply] = await chain.multicall({
    contracts: [
      { address: vault, abi: plainERC4626VaultAbi, functionName: 'totalAssets' },
      { address: vault, abi: plainERC4626VaultAbi, functionName: 'totalSupply' },
    ],
    allowFailure: false,
    blockNumber: block,
  });
  // assets / 10^d ÷ supply / 10^18, as an 18-decimal price truncated toward zero
  const unitPrice = (assets * 10n ** BigInt(36 - decimals)) / supply;
  return { assets, supply, unitPrice };
}

const blockOfHour = (ts: number) => BigInt((ts - sc.manifest.startTime) / 3600 + sc.manifest.startBlock);
/** shares × an 18-decimal unit price in numeraire base units, truncated toward zero (DESIGN §4.4) */
const sharesToAssets = (shares: bigint, unitPrice: bigint) => (shares * unitPrice) / 10n ** BigInt(36 - decimals);

beforeAll(async () => {
  sc = await startScenario({ chainId: CHAIN, days: 7, seed: 7, wallets: 20 });
  const v = sc.manifest.vaults.find((x) => x.vault_type === 'erc4626')!;
  vault = v.address;
  vaultId = `${CHAIN}:${vault.toLowerCase()}`;
  decimals = v.numeraire.decimals;
  chain = createPublicClient({
    chain: devnetChain(CHAIN, sc.devnet.rpcUrl, sc.manifest.contracts.multicall3),
    transport: http(sc.devnet.rpcUrl),
    cacheTime: 0,
  });

  const dir = tempDir('vaultd-erc4626-');
  const config = join(dir, 'devnet.json');
  const input = { ...scenarioConfigInput(sc.manifest), db: join(dir, 'world.duckdb'), rate_limits: { anonymous_per_minute: 100_000 } };
  writeFileSync(config, JSON.stringify(input));
  const ingest = await run(['ingest', '--once', '--config', config]);
  expect(ingest.code, ingest.output).toBe(0);
  expect(ingest.output).toMatch(/chain 4646 \(devnet\): blocks 1\.\.\d+ of \d+, .* — ok/);
  server = vaultdSpawn(['serve', '--config', config, '--no-jobs', '--port', '0', '--host', '127.0.0.1']);
  const port = await waitForListening(server);
  api = createClient({ baseUrl: `http://127.0.0.1:${port}`, retry: false });
}, 240_000);

afterAll(async () => {
  if (server) await stopChildren([server]);
  await sc?.devnet.stop();
});

describe('a plain ERC-4626 vault (vault_type "erc4626") on the devnet, through the API', () => {
  it('detail: TVL, supply and unit price are the contract’s at the last hour; USD from its Chainlink feed', async () => {
    const { data } = await api.vault(vaultId);
    expect(data).toMatchObject({ vault_id: vaultId, chain_id: CHAIN, vault_type: 'erc4626', name: 'Devnet Plain USDC', symbol: 'dpUSDC' });
    const end = BigInt(sc.manifest.endBlock);
    const s = await stateAt(end);
    expect(s.supply).toBeGreaterThan(0n);
    expect(data.metrics).toMatchObject({
      as_of: sc.manifest.endTime,
      tvl: { native: fromBaseUnits(s.assets, decimals) },
      total_supply: fromBaseUnits(s.supply, 18),
      unit_price: fromBaseUnits(s.unitPrice, 18),
    });
    // the yield the keeper sent in moved the unit price above 1
    expect(s.unitPrice).toBeGreaterThan(10n ** 18n);
    const [, answer] = await chain.readContract({
      address: sc.manifest.vaults.find((x) => x.vault_type === 'erc4626')!.aggregator,
      abi: chainlinkLikeAggregatorAbi,
      functionName: 'latestRoundData',
      blockNumber: end,
    });
    // TVL in USD: assets × the feed's 8-decimal answer, half-even at 6 decimals (DESIGN §4.7)
    const x = s.assets * answer; // 10^(d + 8) units
    const scale = 10n ** BigInt(decimals + 8 - 6);
    let usd = x / scale;
    const rest = x % scale;
    if (rest * 2n > scale || (rest * 2n === scale && usd % 2n === 1n)) usd++;
    expect(data.metrics.tvl.usd).toBe(fromBaseUnits(usd, 6));
  });

  it('definition: identity and the asset read on chain, nothing of another family', async () => {
    const { data } = await api.definition(vaultId);
    const asset = await chain.readContract({ address: vault, abi: plainERC4626VaultAbi, functionName: 'asset' });
    expect(data).toEqual({
      vault_id: vaultId,
      chain_id: CHAIN,
      address: vault.toLowerCase(),
      name: 'Devnet Plain USDC',
      symbol: 'dpUSDC',
      owner: null,
      numeraire_token: { address: sc.manifest.contracts.usdc.toLowerCase(), decimals: 6, symbol: 'USDC' },
      vault_type: 'erc4626',
      asset: asset.toLowerCase(),
    } satisfies Erc4626Definition);
  });

  it('timeseries: every hour from the deployment to the end, each point the contract’s reads at that hour’s block', async () => {
    const { data } = await api.timeseries(vaultId, { granularity: 'hour', limit: 10_000 });
    const hours = (sc.manifest.endTime - sc.manifest.startTime) / 3600 + 1;
    expect(data).toHaveLength(hours);
    for (const p of data) {
      const ts = Date.parse(p.timestamp) / 1000;
      const s = await stateAt(blockOfHour(ts));
      expect([p.timestamp, p.tvl.native, p.total_supply, p.unit_price]).toEqual([
        p.timestamp,
        fromBaseUnits(s.assets, decimals),
        fromBaseUnits(s.supply, 18),
        fromBaseUnits(s.unitPrice, 18),
      ]);
    }
  });

  it("every wallet's position and activity: balanceOf, value, cost basis and realized PnL from the vault's own logs (DESIGN §4.4)", async () => {
    const logs = parseEventLogs({
      abi: plainERC4626VaultAbi,
      logs: await chain.getLogs({ address: vault, fromBlock: 0n, toBlock: 'latest' }),
    });
    expect(new Set(logs.map((l) => l.eventName))).toEqual(new Set(['Deposit', 'Withdraw', 'Transfer']));
    const end = await stateAt(BigInt(sc.manifest.endBlock));
    const priceAt = new Map<bigint, bigint>();
    const unitPriceAt = async (block: bigint) => priceAt.get(block) ?? priceAt.set(block, (await stateAt(block)).unitPrice).get(block)!;

    // the average-cost replay of DESIGN §4.4, natively, with 30 extra digits so no division rounds
    const FINE = 10n ** 30n;
    type Book = { shares: bigint; cost: bigint; realized: bigint; rows: number };
    const books = new Map<string, Book>();
    const book = (w: string) => books.get(w) ?? books.set(w, { shares: 0n, cost: 0n, realized: 0n, rows: 0 }).get(w)!;
    const dispose = (b: Book, shares: bigint, assets: bigint) => {
      const basis = shares === b.shares ? b.cost : (b.cost * shares) / b.shares;
      b.cost -= basis;
      b.realized += assets * FINE - basis;
      b.shares -= shares;
    };
    for (const l of logs) {
      if (l.eventName === 'Deposit') {
        const b = book(l.args.owner.toLowerCase());
        b.shares += l.args.shares;
        b.cost += l.args.assets * FINE;
        b.rows++;
      } else if (l.eventName === 'Withdraw') {
        const b = book(l.args.owner.toLowerCase());
        dispose(b, l.args.shares, l.args.assets);
        b.rows++;
      } else if (l.eventName === 'Transfer' && l.args.from !== ZERO && l.args.to !== ZERO) {
        // at market value: shares × the unit price of the hour the block closes
        const value = sharesToAssets(l.args.value, await unitPriceAt(l.blockNumber));
        const [from, to] = [book(l.args.from.toLowerCase()), book(l.args.to.toLowerCase())];
        dispose(from, l.args.value, value);
        to.shares += l.args.value;
        to.cost += value * FINE;
        from.rows++;
        to.rows++;
      }
    }
    const held = [...books].filter(([, b]) => b.shares > 0n);
    expect(held.length).toBeGreaterThan(3);
    expect(
      [...books.values()].some((b) => b.realized !== 0n),
      'some wallet withdrew or sent shares',
    ).toBe(true);
    for (const [wallet, b] of held) {
      const balance = await chain.readContract({ address: vault, abi: plainERC4626VaultAbi, functionName: 'balanceOf', args: [wallet as Address] });
      expect(b.shares, wallet).toBe(balance);
      const { data } = await api.position(wallet, vaultId);
      const value = sharesToAssets(balance, end.unitPrice);
      const cost = b.cost / FINE;
      expect([data.metrics.shares_owned, data.metrics.value.native, data.metrics.cost_basis.native, data.metrics.pnl.realized.native], wallet).toEqual([
        fromBaseUnits(balance, 18),
        fromBaseUnits(value, decimals),
        fromBaseUnits(cost, decimals),
        fromBaseUnits(b.realized / FINE, decimals),
      ]);
      const activity = await api.activity(wallet, { vaultId, limit: 1000 });
      expect(activity.data, wallet).toHaveLength(b.rows);
    }
  });
});
