// What every step of the devnet scenario shares: the queue it writes through, a reader of the
// last mined state, the seeded random stream, the vaults with their price models, and the
// per-hour guard against overdrawing. Reads see the last closed block only (automine is off),
// so a wallet moves shares or units out of a vault at most once an hour, sized from that block.
import type { Address, PublicClient } from 'viem';
import type { Rng } from '../jobs/demo/prng.js';
import { morphoLikeVaultAbi } from './abis.js';
import type { DevnetActors, DevnetContracts, TokenInfo } from './deploy.js';
import type { Feed } from './market.js';
import type { RequestBook } from './requests.js';
import type { TxQueue } from './txQueue.js';

export interface MorphoVaultSim {
  address: Address;
  token: TokenInfo;
  feed: Feed;
}

export interface AeraVaultSim {
  address: Address;
  provisioner: Address;
  version: 1 | 2;
  token: TokenInfo;
  feed: Feed;
  /** the unit price struck this hour (numeraire base units per whole unit) */
  price(): bigint;
}

export interface SimContext {
  q: TxQueue;
  client: PublicClient;
  rng: Rng;
  actors: DevnetActors;
  contracts: DevnetContracts;
  morpho: readonly MorphoVaultSim[];
  aera: readonly AeraVaultSim[];
  requests: RequestBook;
  /** each wallet's typical ticket in USD: a few whales, many small holders */
  walletUsd: readonly number[];
  /** current hour (block n closes hour n) and its block timestamp */
  hour: number;
  ts: number;
  /** `${wallet}:${vault}` pairs that already sent shares or units out this hour */
  outflows: Set<string>;
}

export const UNIT = 10n ** 18n;

/** Balance of an 18-decimal share or unit token at the last mined block. */
export async function balanceOf(ctx: SimContext, token: Address, wallet: Address): Promise<bigint> {
  // every ERC20Base shares balanceOf; any of the ABIs will do
  return ctx.client.readContract({ address: token, abi: morphoLikeVaultAbi, functionName: 'balanceOf', args: [wallet] });
}

/**
 * The balance a wallet may move out of `vault` now, or 0n if it already did this hour
 * (then the last mined balance may already be spent by a transaction still pending).
 */
export async function spendable(ctx: SimContext, vault: Address, wallet: Address): Promise<bigint> {
  if (ctx.outflows.has(`${wallet}:${vault}`)) return 0n;
  return balanceOf(ctx, vault, wallet);
}

export function markOutflow(ctx: SimContext, vault: Address, wallet: Address): void {
  ctx.outflows.add(`${wallet}:${vault}`);
}

/** `amount × fraction`, the fraction kept to 1e-6 so it stays exact in bigint arithmetic. */
export function fractionOf(amount: bigint, fraction: number): bigint {
  return (amount * BigInt(Math.round(fraction * 1e6))) / 1_000_000n;
}

/** A ticket of about `usd` dollars in `token` base units, rounded to 4 significant digits. */
export function ticket(usd: number, token: TokenInfo, feed: Feed): bigint {
  const whole = usd / feed.usd;
  const exponent = Math.floor(Math.log10(whole)) - 3;
  const mantissa = Math.round(whole / 10 ** exponent);
  const shift = token.decimals + exponent;
  return shift >= 0 ? BigInt(mantissa) * 10n ** BigInt(shift) : BigInt(mantissa) / 10n ** BigInt(-shift);
}

export function otherWallet(ctx: SimContext, wallet: Address): Address {
  const others = ctx.actors.wallets.filter((w) => w !== wallet);
  return ctx.rng.pick(others);
}
