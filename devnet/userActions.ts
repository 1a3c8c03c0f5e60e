// What wallets do: ERC-4626 deposits, mints, partial and full withdrawals and share transfers
// on the Morpho-like vaults and the plain ERC-4626 vault; sync deposits, async deposit and redeem
// requests, v2 sync redeems and unit transfers on the Aera-like vaults. An action that needs a
// balance the wallet lacks becomes a deposit into the same vault instead, so every queued
// transaction succeeds.
import { parseEventLogs, type Address } from 'viem';
import { aeraLikeProvisionerV1Abi, aeraLikeProvisionerV2Abi, aeraLikeVaultAbi, morphoLikeVaultAbi, plainERC4626VaultAbi } from './abis.js';
import { UNIT, fractionOf, markOutflow, otherWallet, spendable, ticket, type AeraVaultSim, type MorphoVaultSim, type SimContext } from './context.js';
import type { AeraRequest, RequestKind } from './requests.js';

export const MORPHO_ACTIONS = ['deposit', 'mint', 'withdraw', 'redeem', 'exit', 'transfer'] as const;
export const AERA_ACTIONS = ['deposit', 'requestDeposit', 'requestRedeem', 'redeem', 'transfer'] as const;
export type MorphoAction = (typeof MORPHO_ACTIONS)[number];
export type AeraAction = (typeof AERA_ACTIONS)[number];

/** Relative frequencies, tuned so 20 wallets make ~2,000 transactions in 90 days. */
const MORPHO_WEIGHTS: Record<MorphoAction, number> = { deposit: 22, mint: 3, withdraw: 8, redeem: 5, exit: 3, transfer: 6 };
const AERA_WEIGHTS: Record<AeraAction, number> = { deposit: 10, requestDeposit: 10, requestRedeem: 9, redeem: 5, transfer: 2 };
const REQUEST_LIFETIMES_HOURS = [6, 12, 24, 48] as const;
const MAX_PRICE_AGE = 86_400n;

/** One random action by one random wallet (busier wallets act more often). */
export async function randomUserAction(ctx: SimContext): Promise<void> {
  const { rng } = ctx;
  const i = Math.min(ctx.actors.wallets.length - 1, Math.floor(ctx.actors.wallets.length * rng.float() ** 1.6));
  const wallet = ctx.actors.wallets[i]!;
  const morphoWeight = sum(MORPHO_WEIGHTS);
  if (rng.float() * (morphoWeight + sum(AERA_WEIGHTS)) < morphoWeight) {
    await morphoAction(ctx, rng.pick(ctx.morpho), wallet, weighted(ctx, MORPHO_WEIGHTS));
  } else {
    await aeraAction(ctx, rng.pick(ctx.aera), wallet, weighted(ctx, AERA_WEIGHTS));
  }
}

/** One random ERC-4626 action on a plain vault by one random wallet, drawn from `ctx.rng`. */
export async function randomPlainAction(ctx: SimContext, v: MorphoVaultSim): Promise<void> {
  const i = Math.min(ctx.actors.wallets.length - 1, Math.floor(ctx.actors.wallets.length * ctx.rng.float() ** 1.6));
  await morphoAction(ctx, v, ctx.actors.wallets[i]!, weighted(ctx, MORPHO_WEIGHTS), plainERC4626VaultAbi);
}

function walletUsd(ctx: SimContext, wallet: Address): number {
  return (ctx.walletUsd[ctx.actors.wallets.indexOf(wallet)] ?? 10_000) * ctx.rng.uniform(0.1, 1);
}

/** One ERC-4626 action on a Morpho-like vault, or (`abi`) on any vault with the standard's functions. */
export async function morphoAction(
  ctx: SimContext,
  v: MorphoVaultSim,
  wallet: Address,
  action: MorphoAction,
  abi: typeof morphoLikeVaultAbi | typeof plainERC4626VaultAbi = morphoLikeVaultAbi,
): Promise<void> {
  const { q, rng } = ctx;
  // every function called here is the ERC-4626 standard's, the same signature on both vaults
  const call = { address: v.address, abi: abi as typeof morphoLikeVaultAbi } as const;
  if (action === 'deposit' || action === 'mint') {
    const assets = ticket(walletUsd(ctx, wallet), v.token, v.feed);
    if (action === 'deposit') return q.write(wallet, { ...call, functionName: 'deposit', args: [assets, wallet] });
    // mint: the shares those assets buy at the last block's price, minus a margin for rounding
    const shares = await ctx.client.readContract({ ...call, functionName: 'convertToShares', args: [assets] });
    return q.write(wallet, { ...call, functionName: 'mint', args: [fractionOf(shares, 0.999), wallet] });
  }
  const shares = await spendable(ctx, v.address, wallet);
  if (shares === 0n) return morphoAction(ctx, v, wallet, 'deposit', abi);
  markOutflow(ctx, v.address, wallet);
  if (action === 'withdraw') {
    // assets, not shares: withdraw rounds the shares burnt up, so stay well inside the balance
    const max = await ctx.client.readContract({ ...call, functionName: 'convertToAssets', args: [shares] });
    const assets = fractionOf(max, rng.uniform(0.1, 0.6));
    if (assets === 0n) return;
    return q.write(wallet, { ...call, functionName: 'withdraw', args: [assets, wallet, wallet] });
  }
  if (action === 'redeem' || action === 'exit') {
    const amount = action === 'exit' ? shares : fractionOf(shares, rng.uniform(0.1, 0.7));
    return q.write(wallet, { ...call, functionName: 'redeem', args: [amount, wallet, wallet] });
  }
  const amount = rng.chance(0.25) ? shares : fractionOf(shares, rng.uniform(0.2, 0.9));
  return q.write(wallet, { ...call, functionName: 'transfer', args: [otherWallet(ctx, wallet), amount] });
}

export async function aeraAction(ctx: SimContext, v: AeraVaultSim, wallet: Address, action: AeraAction, forcePending = false): Promise<void> {
  const { q, rng } = ctx;
  const price = v.price();
  if (action === 'deposit' || action === 'requestDeposit') {
    const tokens = ticket(walletUsd(ctx, wallet), v.token, v.feed);
    const expectedUnits = (tokens * UNIT) / price;
    if (action === 'deposit') {
      const args = [v.token.address, tokens, fractionOf(expectedUnits, 0.99)] as const;
      return q.write(wallet, { address: v.provisioner, abi: aeraLikeProvisionerV1Abi, functionName: 'deposit', args });
    }
    const fixed = rng.chance(0.15);
    const tip = rng.chance(0.2) ? tokens / 2000n : 0n;
    const minUnits = fractionOf(expectedUnits, fixed ? 0.995 : 0.97);
    return request(ctx, v, wallet, 'deposit', forcePending, (deadline, receiver) => [tokens, minUnits, tip, deadline, fixed, receiver]);
  }
  let units = await spendable(ctx, v.address, wallet);
  // dust worth under 1,000 base units could redeem to 0 tokens, which a provisioner refuses
  if ((units * price) / UNIT < 1000n) units = 0n;
  if (units === 0n || (action === 'redeem' && v.version === 1)) {
    // no units to move, or v1 has no sync redeem: an async redeem (if any units) or a deposit
    if (units !== 0n) return aeraAction(ctx, v, wallet, 'requestRedeem', forcePending);
    return aeraAction(ctx, v, wallet, forcePending ? 'requestDeposit' : 'deposit', forcePending);
  }
  markOutflow(ctx, v.address, wallet);
  const amount = rng.chance(0.3) ? units : fractionOf(units, rng.uniform(0.2, 0.9));
  const expectedTokens = (amount * price) / UNIT;
  if (action === 'transfer') {
    return q.write(wallet, { address: v.address, abi: aeraLikeVaultAbi, functionName: 'transfer', args: [otherWallet(ctx, wallet), amount] });
  }
  if (action === 'redeem') {
    const receiver = rng.chance(0.8) ? wallet : otherWallet(ctx, wallet);
    const args = [v.token.address, amount, fractionOf(expectedTokens, 0.99), receiver] as const;
    return q.write(wallet, { address: v.provisioner, abi: aeraLikeProvisionerV2Abi, functionName: 'redeem', args });
  }
  const fixed = rng.chance(0.15);
  const minTokens = fractionOf(expectedTokens, fixed ? 0.995 : 0.97);
  return request(ctx, v, wallet, 'redeem', forcePending, (deadline, receiver) => [amount, minTokens, 0n, deadline, fixed, receiver]);
}

/**
 * Queues a requestDeposit/requestRedeem in the provisioner's version (v2 names a receiver,
 * another wallet 30 % of the time), books its fate, and records its hash once mined.
 * `amounts` gives [tokensIn|unitsIn, minUnitsOut|minTokensOut, tip, deadline, isFixedPrice, receiver].
 */
async function request(
  ctx: SimContext,
  v: AeraVaultSim,
  wallet: Address,
  kind: RequestKind,
  forcePending: boolean,
  amounts: (deadline: bigint, receiver: Address) => readonly [bigint, bigint, bigint, bigint, boolean, Address],
): Promise<void> {
  const lifetime = forcePending ? 24 * 365 : ctx.rng.pick(REQUEST_LIFETIMES_HOURS);
  const deadline = ctx.ts + lifetime * 3600;
  const receiver = v.version === 2 && ctx.rng.chance(0.3) ? otherWallet(ctx, wallet) : wallet;
  const [a, b, tip, dl, fixed] = amounts(BigInt(deadline), receiver);
  const plan = ctx.requests.plan(v.provisioner, kind, ctx.hour, lifetime, forcePending);
  const entry: AeraRequest = { kind, provisioner: v.provisioner, user: wallet, deadline, ...plan };
  ctx.requests.add(entry);
  const functionName = kind === 'deposit' ? 'requestDeposit' : 'requestRedeem';
  const eventName = kind === 'deposit' ? 'DepositRequested' : 'RedeemRequested';
  const v1 = [v.token.address, a, b, tip, dl, MAX_PRICE_AGE, fixed] as const;
  if (v.version === 1) {
    return ctx.q.write(wallet, { address: v.provisioner, abi: aeraLikeProvisionerV1Abi, functionName, args: v1 }, (tx) => {
      const [log] = parseEventLogs({ abi: aeraLikeProvisionerV1Abi, eventName, logs: tx.logs });
      entry.hash = log && ('depositRequestHash' in log.args ? log.args.depositRequestHash : log.args.redeemRequestHash);
    });
  }
  return ctx.q.write(wallet, { address: v.provisioner, abi: aeraLikeProvisionerV2Abi, functionName, args: [...v1, receiver] }, (tx) => {
    const [log] = parseEventLogs({ abi: aeraLikeProvisionerV2Abi, eventName, logs: tx.logs });
    entry.hash = log && ('depositRequestHash' in log.args ? log.args.depositRequestHash : log.args.redeemRequestHash);
  });
}

function weighted<K extends string>(ctx: SimContext, weights: Record<K, number>): K {
  let x = ctx.rng.float() * sum(weights);
  const keys = Object.keys(weights) as K[];
  for (const k of keys) {
    x -= weights[k];
    if (x < 0) return k;
  }
  return keys[keys.length - 1]!;
}

function sum(weights: Record<string, number>): number {
  return Object.values(weights).reduce((a, b) => a + b, 0);
}
