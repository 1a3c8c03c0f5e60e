// The devnet scenario: deploys everything in block 1, then plays N days hour by hour, one block
// per hour stamped on the hour, deterministic from the seed. Each hour the keeper strikes the
// Aera unit prices, accrues the Morpho vaults' interest, sends the plain ERC-4626 vault its
// yield and pushes due USD prices; the solver solves due requests and users refund expired
// ones; then wallets act (userActions.ts). The plain vault draws from a random stream of its
// own, so adding it left every other vault's amounts, wallets and blocks as they were.
// Returns the manifest an indexer and a config file are built from.
import { createPublicClient, custom, type Address, type Hex } from 'viem';
import { VaultdError } from '../common/errors.js';
import { createRng } from '../jobs/demo/prng.js';
import {
  aeraLikeProvisionerV1Abi,
  chainlinkLikeAggregatorAbi,
  morphoLikeVaultAbi,
  plainERC4626VaultAbi,
  priceAndFeeCalculatorAbi,
  testTokenAbi,
} from './abis.js';
import { HOUR, mineEmptyHours, type Devnet } from './chain.js';
import { UNIT, balanceOf, type AeraVaultSim, type MorphoVaultSim, type SimContext } from './context.js';
import { configureContracts, deployContracts, devnetActors, type DevnetContracts, type TokenInfo } from './deploy.js';
import { createFeed, createUnitPricePath, createYieldRate, type Feed } from './market.js';
import { createRequestBook, type RequestKind } from './requests.js';
import { createTxQueue } from './txQueue.js';
import { aeraAction, morphoAction, randomPlainAction, randomUserAction, AERA_ACTIONS, MORPHO_ACTIONS } from './userActions.js';

export interface SimulateOptions {
  seed?: number;
  /** scenario length after the deployment block; default 90 */
  days?: number;
  /** default 20 */
  wallets?: number;
  /** called after each closed hour (a progress bar) */
  onProgress?: (hour: number, hours: number) => void;
}

export interface ManifestVault {
  address: Address;
  name: string;
  symbol: string;
  vault_type: 'morpho_v1' | 'aera_v3' | 'erc4626';
  numeraire: TokenInfo;
  /** Aera only: the provisioner in front of the vault and its event version */
  provisioner?: Address;
  provisioner_version?: 1 | 2;
  /** Aera only: where UnitPriceUpdated / VaultFeesSet for this vault are emitted */
  fee_calculator?: Address;
  /** the numeraire's USD feed (ChainlinkLikeAggregator, 8 decimals) */
  aggregator: Address;
}

export interface DevnetManifest {
  chainId: number;
  rpcUrl: string;
  seed: number;
  days: number;
  /** block 1: every contract is deployed in it (Multicall3 first) */
  startBlock: number;
  /** timestamp of startBlock (genesis is one hour earlier) */
  startTime: number;
  endBlock: number;
  endTime: number;
  contracts: Omit<DevnetContracts, 'usdc' | 'weth' | 'cbbtc'> & { usdc: Address; weth: Address; cbbtc: Address };
  actors: { deployer: Address; solver: Address; feeRecipient: Address; curators: Address[] };
  wallets: Address[];
  vaults: ManifestVault[];
  /** requests left open on chain at the end (hash known), for indexer tests of pending state */
  pendingRequests: { provisioner: Address; kind: RequestKind; hash: Hex; user: Address }[];
  /** transactions: all of them; userTransactions: sent by the wallets (the rest is keeper, solver, setup) */
  stats: { blocks: number; transactions: number; userTransactions: number; logs: number; ms: number };
}

/** ~0.045 user actions per wallet-hour: 20 wallets make ~2,000 transactions in 90 days. */
const ACTIONS_PER_WALLET_HOUR = 0.045;
/** the plain ERC-4626 vault's own: ~0.015 per wallet-hour */
const PLAIN_ACTIONS_PER_WALLET_HOUR = 0.015;
/** A keeper outage: hours with no transaction at all, mined empty with hardhat_mine. */
const OUTAGE_HOURS = 6;

export async function simulateDevnet(devnet: Devnet, options: SimulateOptions = {}): Promise<DevnetManifest> {
  const started = performance.now();
  const seed = options.seed ?? 1;
  const days = options.days ?? 90;
  const walletCount = options.wallets ?? 20;
  if (!Number.isInteger(days) || days < 1 || days > 3650) throw new VaultdError('USAGE', `devnet days must be an integer from 1 to 3650, got ${String(days)}`);
  if (!Number.isInteger(walletCount) || walletCount < 2 || walletCount > 1000) {
    // every wallet is funded and approved in block 1, which must hold it all
    throw new VaultdError('USAGE', `devnet wallets must be an integer from 2 to 1000, got ${String(walletCount)}`);
  }
  const hours = days * 24;
  const timeOf = (hour: number) => devnet.startTime + hour * HOUR;
  const q = createTxQueue(devnet.provider);
  const client = createPublicClient({ transport: custom(devnet.provider), cacheTime: 0 });
  const rng = createRng(seed, 'devnet');
  const actors = devnetActors(seed, walletCount);
  const c = await deployContracts(q, actors);
  await configureContracts(q, c, actors);

  const feeds = {
    usdc: createFeed(seed, 'USDC', { usd: 1, vol: 0.01, reversion: 0.05, deviation: 0.001, heartbeatHours: 24 }),
    eth: createFeed(seed, 'ETH', { usd: 3300, vol: 0.6, reversion: 0, deviation: 0.005, heartbeatHours: 6 }),
    btc: createFeed(seed, 'BTC', { usd: 95_000, vol: 0.45, reversion: 0, deviation: 0.005, heartbeatHours: 6 }),
  };
  const morpho: (MorphoVaultSim & { rate: { next(): bigint } })[] = [
    { address: c.morphoUsdcVault, token: c.usdc, feed: feeds.usdc, rate: createYieldRate(seed, 'morpho-usdc', 0.055, 0.012) },
    { address: c.morphoWethVault, token: c.weth, feed: feeds.eth, rate: createYieldRate(seed, 'morpho-weth', 0.028, 0.006) },
  ];
  const plain = { address: c.plainUsdcVault, token: c.usdc, feed: feeds.usdc, rate: createYieldRate(seed, 'plain-usdc', 0.045, 0.01) };
  const usdcPath = createUnitPricePath(seed, 'aera-usdc', 1_000_000n, 0.07); // 1.000000 USDC a unit
  const btcPath = createUnitPricePath(seed, 'aera-btc', 100_000_000n, 0.03); // 1.00000000 cbBTC a unit
  const aera: (AeraVaultSim & { path: typeof usdcPath })[] = [
    { address: c.aeraUsdcVault, provisioner: c.provisionerV1, version: 1, token: c.usdc, feed: feeds.usdc, path: usdcPath, price: usdcPath.current },
    { address: c.aeraBtcVault, provisioner: c.provisionerV2, version: 2, token: c.cbbtc, feed: feeds.btc, path: btcPath, price: btcPath.current },
  ];
  const ctx: SimContext = {
    q,
    client,
    rng,
    actors,
    contracts: c,
    morpho,
    aera,
    requests: createRequestBook(createRng(seed, 'devnet-requests')),
    walletUsd: actors.wallets.map(() => Math.min(2_000_000, 20_000 * Math.exp(1.2 * rng.normal()))),
    hour: 1,
    ts: timeOf(1),
    outflows: new Set(),
  };
  const d = actors.deployer;
  /** the plain vault's actions: the same chain, hour and queue, its own random stream */
  const plainRng = createRng(seed, 'devnet-plain-erc4626');
  const plainCtx = (): SimContext => ({ ...ctx, rng: plainRng });
  let plainRate = 0n;

  /** The keeper's hour: unit prices, Aera liquidity, interest, USD feeds, daily yield rates. */
  async function keeper(first: boolean): Promise<void> {
    for (const [feed, address] of [
      [feeds.usdc, c.usdcUsdFeed],
      [feeds.eth, c.ethUsdFeed],
      [feeds.btc, c.btcUsdFeed],
    ] as [Feed, Address][]) {
      const answer = first ? feed.answer() : feed.step();
      if (answer !== undefined) await q.write(d, { address, abi: chainlinkLikeAggregatorAbi, functionName: 'updateAnswer', args: [answer] });
    }
    for (const v of aera) {
      const price = first ? v.path.current() : v.path.next();
      await q.write(d, { address: c.calculator, abi: priceAndFeeCalculatorAbi, functionName: 'setUnitPrice', args: [v.address, price, ctx.ts] });
      if (!first && ctx.hour % 24 === 2) await topUpAera(v, price);
    }
    for (const v of morpho) {
      if (first || ctx.hour % 24 === 1) await q.write(d, { address: v.address, abi: morphoLikeVaultAbi, functionName: 'setYieldRate', args: [v.rate.next()] });
      if (!first) await q.write(d, { address: v.address, abi: morphoLikeVaultAbi, functionName: 'accrueInterest', args: [] });
    }
    // the plain vault's strategy returns: an hour of yield on its assets, sent in as tokens
    if (first || ctx.hour % 24 === 1) plainRate = plain.rate.next();
    if (!first) {
      const assets = await client.readContract({ address: plain.address, abi: plainERC4626VaultAbi, functionName: 'totalAssets' });
      const yieldAssets = (assets * plainRate * BigInt(HOUR)) / UNIT;
      if (yieldAssets > 0n) await q.write(d, { address: plain.token.address, abi: testTokenAbi, functionName: 'mint', args: [plain.address, yieldAssets] });
    }
  }

  /**
   * Once a day, keeps an Aera vault's tokens 0.2–0.5 % above what all its units are worth at
   * today's price (its strategy's returns arriving), so every exit until tomorrow can be paid:
   * a day of growth is ~0.02 %, and deposits bring in at least the value of the units they mint.
   */
  async function topUpAera(v: AeraVaultSim, price: bigint): Promise<void> {
    const supply = await client.readContract({ address: v.address, abi: morphoLikeVaultAbi, functionName: 'totalSupply' });
    const held = await balanceOf(ctx, v.token.address, v.address);
    const worth = (supply * price) / UNIT;
    if (held >= worth + worth / 500n) return;
    const amount = worth + worth / 200n - held;
    await q.write(d, { address: v.token.address, abi: testTokenAbi, functionName: 'mint', args: [v.address, amount] });
  }

  /** Due requests: solved by the solver while before the deadline, else refunded by their user. */
  async function settleRequests(): Promise<void> {
    for (const r of ctx.requests.takeDue(ctx.hour)) {
      if (r.hash === undefined) throw new VaultdError('INTERNAL', `devnet: a ${r.kind} request on ${r.provisioner} has no hash`);
      const call = { address: r.provisioner, abi: aeraLikeProvisionerV1Abi } as const;
      if (r.fate === 'solve' && ctx.ts <= r.deadline) {
        const functionName = r.kind === 'deposit' ? 'solveDeposit' : 'solveRedeem';
        await q.write(actors.solver, { ...call, functionName, args: [r.hash] });
      } else if (ctx.ts > r.deadline) {
        const functionName = r.kind === 'deposit' ? 'refundDeposit' : 'refundRedeem';
        await q.write(r.user, { ...call, functionName, args: [r.hash] });
      } else {
        // a solve that came too late (after an outage): its user refunds it once it expires
        ctx.requests.reschedule(r, 'refund', ctx.hour + Math.ceil((r.deadline - ctx.ts) / HOUR) + 1);
      }
    }
  }

  /** One-off governance moves at fixed points of the scenario. */
  async function governance(hour: number): Promise<void> {
    if (hour === Math.floor(hours * 0.35)) {
      await q.write(d, { address: c.morphoWethVault, abi: morphoLikeVaultAbi, functionName: 'setFee', args: [5n * 10n ** 16n] });
    }
    if (hour === Math.floor(hours * 0.5)) {
      await q.write(d, { address: c.morphoUsdcVault, abi: morphoLikeVaultAbi, functionName: 'setCurator', args: [actors.curators[1]] });
    }
    if (hour === Math.floor(hours * 0.65)) {
      await q.write(d, { address: c.calculator, abi: priceAndFeeCalculatorAbi, functionName: 'setVaultFees', args: [c.aeraUsdcVault, 75, 1000] });
    }
  }

  // Hour 1 (block 1): deployment, wiring, first prices, and opening deposits by the first
  // wallets so withdrawals, transfers and redeems have balances from hour 2 on.
  await keeper(true);
  for (const wallet of actors.wallets.slice(0, 4)) {
    for (const v of morpho) await morphoAction(ctx, v, wallet, 'deposit');
    for (const v of aera) await aeraAction(ctx, v, wallet, 'deposit');
  }
  for (const wallet of actors.wallets.slice(0, 4)) await morphoAction(plainCtx(), plain, wallet, 'deposit', plainERC4626VaultAbi);
  await q.closeBlock(ctx.ts);
  options.onProgress?.(1, hours);

  // every user action once in the first hours, so a short scenario still shows each event
  const script = [...MORPHO_ACTIONS.map((a) => ['morpho', a] as const), ...AERA_ACTIONS.map((a) => ['aera', a] as const)];
  const outageStart = days >= 2 ? Math.floor(hours * 0.8) : Number.POSITIVE_INFINITY;
  for (let hour = 2; hour <= hours; hour++) {
    if (hour === outageStart) {
      await mineEmptyHours(devnet.provider, timeOf(hour), OUTAGE_HOURS);
      hour += OUTAGE_HOURS - 1;
      continue;
    }
    ctx.hour = hour;
    ctx.ts = timeOf(hour);
    ctx.outflows.clear();
    await keeper(false);
    await settleRequests();
    await governance(hour);
    const scripted = script[hour - 2];
    if (scripted !== undefined) {
      const wallet = actors.wallets[(hour - 2) % 4]!;
      if (scripted[0] === 'morpho') for (const v of morpho) await morphoAction(ctx, v, wallet, scripted[1]);
      else for (const v of aera) await aeraAction(ctx, v, wallet, scripted[1]);
    }
    const actions = rng.poisson(ACTIONS_PER_WALLET_HOUR * walletCount);
    for (let i = 0; i < actions; i++) await randomUserAction(ctx);
    // the plain vault: every action once in the first hours, then its own random ones
    const p = plainCtx();
    const plainScripted = MORPHO_ACTIONS[hour - 2];
    if (plainScripted !== undefined) await morphoAction(p, plain, actors.wallets[(hour - 2) % 4]!, plainScripted, plainERC4626VaultAbi);
    const plainActions = plainRng.poisson(PLAIN_ACTIONS_PER_WALLET_HOUR * walletCount);
    for (let i = 0; i < plainActions; i++) await randomPlainAction(p, plain);
    if (hour === hours) {
      // leave a deposit and a redeem request open on each provisioner
      for (const v of aera) {
        await aeraAction(ctx, v, actors.wallets[0]!, 'requestDeposit', true);
        await aeraAction(ctx, v, await richestHolder(ctx, v.address), 'requestRedeem', true);
      }
    }
    await q.closeBlock(ctx.ts);
    options.onProgress?.(hour, hours);
  }

  const manifest: DevnetManifest = {
    chainId: devnet.chainId,
    rpcUrl: devnet.rpcUrl,
    seed,
    days,
    startBlock: 1,
    startTime: timeOf(1),
    endBlock: Number(await client.getBlockNumber()),
    endTime: timeOf(hours),
    contracts: { ...c, usdc: c.usdc.address, weth: c.weth.address, cbbtc: c.cbbtc.address },
    actors: { deployer: d, solver: actors.solver, feeRecipient: actors.feeRecipient, curators: [...actors.curators] },
    wallets: [...actors.wallets],
    vaults: [
      { address: c.morphoUsdcVault, name: 'Devnet USDC Prime', symbol: 'dvUSDC', vault_type: 'morpho_v1', numeraire: c.usdc, aggregator: c.usdcUsdFeed },
      { address: c.morphoWethVault, name: 'Devnet WETH Core', symbol: 'dvWETH', vault_type: 'morpho_v1', numeraire: c.weth, aggregator: c.ethUsdFeed },
      ...aera.map((v) => ({
        address: v.address,
        name: v.version === 1 ? 'Devnet Aera USDC' : 'Devnet Aera BTC',
        symbol: v.version === 1 ? 'daUSDC' : 'daBTC',
        vault_type: 'aera_v3' as const,
        numeraire: v.token,
        provisioner: v.provisioner,
        provisioner_version: v.version,
        fee_calculator: c.calculator,
        aggregator: v.version === 1 ? c.usdcUsdFeed : c.btcUsdFeed,
      })),
      { address: c.plainUsdcVault, name: 'Devnet Plain USDC', symbol: 'dpUSDC', vault_type: 'erc4626', numeraire: c.usdc, aggregator: c.usdcUsdFeed },
    ],
    pendingRequests: ctx.requests
      .open()
      .filter((r): r is typeof r & { hash: Hex } => r.hash !== undefined)
      .map((r) => ({ provisioner: r.provisioner, kind: r.kind, hash: r.hash, user: r.user })),
    stats: {
      blocks: Number(await client.getBlockNumber()),
      transactions: q.stats.transactions,
      userTransactions: actors.wallets.reduce((n, w) => n + (q.sent.get(w) ?? 0), 0),
      logs: q.stats.logs,
      ms: Math.round(performance.now() - started),
    },
  };
  return manifest;
}

/** The wallet holding the most units of `vault` that has not moved any out this hour. */
async function richestHolder(ctx: SimContext, vault: Address): Promise<Address> {
  let best = ctx.actors.wallets[0]!;
  let most = -1n;
  for (const w of ctx.actors.wallets) {
    if (ctx.outflows.has(`${w}:${vault}`)) continue;
    const units = await balanceOf(ctx, vault, w);
    if (units > most) [best, most] = [w, units];
  }
  return best;
}
