// One vault's hourly life in the demo world: a noisy unit-price path, its wallets' deposits,
// withdrawals, transfers and Aera async requests, and the hourly snapshot, all in exact integers.
import type { RawSink } from '../../store/rawSink.js';
import { familyOf, type FamilyDemo } from '../../families/index.js';
import type { EventKind, EventRow, VaultRow } from '../../model/rows.js';
import type { ChainClock } from './chainClock.js';
import type { PriceModel } from './catalog.js';
import { UNIT_PRICE_JUMP_PCT } from './demoAnomalies.js';
import { createRng, deriveAddress, hashKey, hashString, uniqueHex } from './prng.js';
import type { WalletPools } from './walletPools.js';

const HOUR = 3600;
const WAD = 10n ** 18n;
/** unit-price steps are parts per trillion: P ← P · (1e12 + δ) / 1e12 */
const PPT = 1_000_000_000_000;
const PPT_BIG = 10n ** 12n;
/** a drawdown (−0.5..−3 % over a few hours) starts about every 20 months per vault */
const DRAWDOWN_PROB = 1 / 15_000;
/** the log index of vault-owned logs: chain index × LOGS_PER_BLOCK + sequence within the hour */
export const LOGS_PER_BLOCK = 1000;
const MAX_ACTIONS_PER_HOUR = 200;
const MAX_SETTLEMENTS_PER_HOUR = 600;

/** Shared by every vault of one run. */
export interface VaultSimContext {
  seed: number;
  /** first hour of the world */
  start: number;
  /** last hour simulated (inclusive) */
  end: number;
  /** rows with ts ≤ fromTs are computed but not emitted */
  fromTs: number;
  /** rows with ts > until are computed but not emitted (a world built to an instant inside an hour) */
  until: number;
  /** the vault's total assets are kept at every snapshot on a multiple of this (the allocation instants) */
  markEvery: number;
  sink: RawSink;
  pools: WalletPools;
  /** emitted rows per kind */
  eventCounts: Record<EventKind, number>;
  /** 1 for every pool wallet that has any event up to `end` (emitted or not) */
  activeWallets: Uint8Array;
  /** seed depositors (curators) with events up to `end` */
  curators: Set<string>;
  /** called once per vault-hour */
  tick: () => void;
}

export interface VaultSimInput {
  vault: VaultRow;
  /** position in the run's canonical vault order (sorted by vault_id) */
  vaultIndex: number;
  /** position among the vaults of its chain, same order */
  chainIndex: number;
  clock: ChainClock;
  /** wallet indices of this vault's pool */
  members: Int32Array;
  price: PriceModel;
  /** rough USD per numeraire token, to size deposits */
  refUsd: number;
  /** hours [from, to] without a snapshot (demoAnomalies.ts), or null */
  missed?: readonly [number, number] | null;
  /** the hour whose unit price jumps for that one hour (demoAnomalies.ts), or null */
  jumpHour?: number | null;
}

export interface VaultEndState {
  /** snapshots emitted */
  snapshots: number;
  /** total assets at each emitted snapshot on a multiple of markEvery */
  marks: Map<number, bigint>;
  /** false when the vault was not yet listed at `end` */
  listed: boolean;
  totalAssets: bigint;
  totalSupply: bigint;
  unitPrice: bigint;
  pendingDepositAssets: bigint;
  pendingRedeemShares: bigint;
}

interface Request {
  deposit: boolean;
  slot: number;
  assets: bigint;
  shares: bigint;
  index: number;
  due: number;
  refund: boolean;
}

/**
 * Raw row conventions (magnitudes; signs are the engine's, DESIGN §4.6):
 * - `deposit`: assets in, shares minted; with `request_hash` the settlement of an async
 *   request: assets = the request's, shares minted at the as-of unit price.
 * - `withdraw`: shares burned, assets out; with `request_hash` the settlement of a redeem.
 * - `deposit_pending`: assets escrowed, shares 0. `deposit_refunded`: the request's assets, shares 0.
 * - `withdraw_pending`: shares escrowed (still in supply), assets 0. `withdraw_refunded`: the
 *   request's shares, assets 0.
 * - `transfer_out` / `transfer_in` (sub_index 0 / 1 of one log): shares, and assets = their
 *   market value at the as-of snapshot's published unit price (DESIGN §4.4).
 *
 * Simulates hours [max(start, listed_at), end]. Every random draw comes from the vault's own
 * stream in hour order, so the rows of an hour never depend on how far the run goes.
 * Hour H's step places events strictly inside (H − 1 h, H) and then snapshots at H, so the
 * snapshot at H reflects exactly the events with ts ≤ H.
 */
export function simulateVault(ctx: VaultSimContext, input: VaultSimInput): VaultEndState {
  const { vault, clock, members } = input;
  const { sink, fromTs, end, pools } = ctx;
  const rng = createRng(ctx.seed, `vault:${vault.vault_id}`);
  const txKey = hashKey(ctx.seed, 'tx');
  const requestKey = hashKey(ctx.seed, 'request');
  // request terms (deadline, solver tip) draw from a stream of their own: the world's other rows
  // are the ones they were before terms existed
  const termsRng = createRng(ctx.seed, `terms:${vault.vault_id}`);
  const decimals = vault.numeraire_decimals;
  // assets = shares · P / 10^(36−d); shares = assets · 10^(36−d) / P (both floor)
  const scale = 10n ** BigInt(36 - decimals);
  const family = familyOf(vault.vault_type);
  // the unit price is the contract's own, read as published (Aera) rather than assets / supply
  const published = family.publishesUnitPrice;
  // deposits and redeems go through requests settled hours later (Aera's provisioner)
  const requests = family.demo?.asyncRequests === true;
  const token = vault.numeraire_address;
  const chainId = vault.chain_id;
  const vaultId = vault.vault_id;
  const logBase = input.chainIndex * LOGS_PER_BLOCK;

  // The vault's character, drawn once.
  const [apyLo, apyHi] = apyRange(input.price, family.demo);
  const apyMean = rng.uniform(apyLo, apyHi);
  let apy = apyMean;
  const noise = rng.uniform(0.4, 2.5);
  const poissonLimit = Math.exp(-rng.uniform(0.03, 0.15));
  const p0 = rng.uniform(1, 1.25);
  const seedUsd = rng.uniform(250_000, 2_500_000);

  const first = Math.max(ctx.start, Math.ceil(vault.listed_at / HOUR) * HOUR);
  // A vault listed before the window opens mid-life, with some yield already accrued.
  let P = vault.listed_at < ctx.start + HOUR ? BigInt(Math.round(p0 * 1e6)) * 10n ** 12n : WAD;
  if (first > end) {
    return { snapshots: 0, marks: new Map(), listed: false, totalAssets: 0n, totalSupply: 0n, unitPrice: P, pendingDepositAssets: 0n, pendingRedeemShares: 0n };
  }

  const poolN = members.length;
  const shares: bigint[] = new Array<bigint>(poolN + 1).fill(0n); // slot 0: the curator
  const curator = curatorAddress(vault);
  let supply = 0n;
  let snapSupply = 0n;
  // the unit price of the last snapshot taken; equal to P between snapshots except in a missed stretch
  let snapP = P;
  const [missedFrom, missedTo] = input.missed ?? [Infinity, -Infinity];
  const jumpHour = input.jumpHour ?? null;
  let beforeJump = 0n;
  const marks = new Map<number, bigint>();
  let pending: Request[] = [];
  let nextDue = Infinity;
  let logCounter = 0;
  let requestCounter = 0;
  let ddLeft = 0;
  let ddStep = 0;
  let snapshots = 0;

  const itemBlock = new Float64Array(MAX_ACTIONS_PER_HOUR + MAX_SETTLEMENTS_PER_HOUR);
  const itemReq: (Request | null)[] = new Array<Request | null>(itemBlock.length).fill(null);
  const order = new Int32Array(itemBlock.length);
  const decPow = decimals >= 6 ? 10n ** BigInt(decimals - 6) : 1n;

  const addressOf = (slot: number): string => (slot === 0 ? curator : pools.address(members[slot - 1]!));
  const markActive = (slot: number): void => {
    if (slot === 0) ctx.curators.add(curator);
    else ctx.activeWallets[members[slot - 1]!] = 1;
  };
  const toBase = (tokens: number): bigint => {
    if (decimals >= 6) return BigInt(Math.max(1, Math.round(tokens * 1e6))) * decPow;
    return BigInt(Math.max(1, Math.round(tokens * 10 ** decimals)));
  };
  const requestHash = (index: number): string => '0x' + uniqueHex(requestKey, input.vaultIndex, index, 8);

  /** One log: one row, or two for a Transfer (out, then in). */
  const emit = (
    kind: EventKind,
    slot: number,
    other: number,
    assets: bigint,
    sh: bigint,
    request: number,
    block: number,
    ts: number,
    logIndex: number,
  ): void => {
    const tx = logCounter++;
    if (ts > ctx.until) return;
    markActive(slot);
    if (other >= 0) markActive(other);
    if (ts <= fromTs) return;
    const blockHash = clock.blockHash(block);
    const txHash = '0x' + uniqueHex(txKey, input.vaultIndex, tx, 8);
    const row: EventRow = {
      chain_id: chainId,
      block_number: block,
      log_index: logIndex,
      sub_index: 0,
      block_hash: blockHash,
      tx_hash: txHash,
      ts,
      vault_id: vaultId,
      kind,
      wallet: addressOf(slot),
      counterparty: other >= 0 ? addressOf(other) : null,
      token,
      assets,
      shares: sh,
      request_hash: request >= 0 ? requestHash(request) : null,
    };
    sink.event(row);
    ctx.eventCounts[kind]++;
    if (kind === 'transfer_out') {
      sink.event({ ...row, sub_index: 1, kind: 'transfer_in', wallet: row.counterparty!, counterparty: row.wallet });
      ctx.eventCounts.transfer_in++;
    }
  };

  const snapshot = (h: number): void => {
    ctx.tick();
    // the allocation reading is its own source: a missed snapshot keeps its mark
    if (h > fromTs && h <= ctx.until && h % ctx.markEvery === 0) marks.set(h, (supply * P) / scale);
    if (h >= missedFrom && h <= missedTo) return;
    snapSupply = supply;
    snapP = P;
    if (h <= fromTs || h > ctx.until) return;
    snapshots++;
    sink.snapshot({
      vault_id: vaultId,
      ts: h,
      block_number: clock.blockAt(h),
      total_assets: (supply * P) / scale,
      total_supply: supply,
      unit_price: published ? P : null,
    });
  };

  // First hour: the curator seeds the vault at the listing instant, so TVL is never zero.
  {
    const block = clock.blockAt(first);
    const assets = toBase(seedUsd / input.refUsd);
    const sh = (assets * scale) / P;
    shares[0] = sh;
    supply = sh;
    emit('deposit', 0, -1, assets, sh, -1, block, clock.blockTs(block), logBase);
    snapshot(first);
  }

  for (let h = first + HOUR; h <= end; h += HOUR) {
    // 1. This hour's items: new actions, then requests falling due, each at a random block.
    let n = 0;
    for (let p = rng.float(); p > poissonLimit && n < MAX_ACTIONS_PER_HOUR; p *= rng.float()) n++;
    let m = 0;
    let lo = 0;
    let span = 0;
    if (n > 0 || nextDue <= h) {
      lo = clock.blockAt(h - HOUR) + 1;
      span = clock.blockAt(h - 1) - lo + 1;
    }
    for (let i = 0; i < n; i++) {
      itemBlock[m] = lo + Math.floor(rng.float() * span);
      itemReq[m++] = null;
    }
    if (nextDue <= h) {
      const keep: Request[] = [];
      nextDue = Infinity;
      for (const q of pending) {
        if (q.due <= h && m < itemBlock.length) {
          itemBlock[m] = lo + Math.floor(rng.float() * span);
          itemReq[m++] = q;
        } else {
          keep.push(q);
          if (q.due < nextDue) nextDue = q.due;
        }
      }
      pending = keep;
    }

    if (m > 0) {
      // stable insertion sort by block: log indexes must rise with blocks within the hour
      for (let i = 0; i < m; i++) {
        let j = i;
        while (j > 0 && itemBlock[order[j - 1]!]! > itemBlock[i]!) {
          order[j] = order[j - 1]!;
          j--;
        }
        order[j] = i;
      }
      // transfers and settlements price at the as-of snapshot (the previous hour's), DESIGN §4.4
      let seq = 1; // 0 marks the seed deposit
      for (let k = 0; k < m; k++) {
        const i = order[k]!;
        const block = itemBlock[i]!;
        const ts = clock.blockTs(block);
        const logIndex = logBase + seq;
        const q = itemReq[i];
        itemReq[i] = null;
        if (q) {
          settle(q, block, ts, logIndex);
          seq++;
          continue;
        }
        if (poolN === 0) continue;
        const slot = 1 + Math.floor(rng.float() * poolN);
        const own = shares[slot]!;
        let act = 0; // 0 deposit, 1 partial withdraw, 2 full withdraw, 3 transfer
        if (own > 0n) {
          const u = rng.float();
          act = u < 0.3 ? 0 : u < 0.55 ? 1 : u < 0.7 ? 2 : u < 0.85 ? 3 : 0;
        }
        if (act === 3 && poolN < 2) act = 0;
        if (act === 0) {
          const usd = Math.min(5e6, Math.max(20, Math.exp(9.6 + 1.5 * rng.normal())));
          const assets = toBase(usd / input.refUsd);
          if (requests && rng.chance(0.7)) {
            const refund = rng.chance(0.1);
            const q2: Request = { deposit: true, slot, assets, shares: 0n, index: requestCounter++, due: h + delayHours(refund) * HOUR, refund };
            addPending(q2);
            emit('deposit_pending', slot, -1, assets, 0n, q2.index, block, ts, logIndex);
            terms(q2, h, block, ts, assets);
          } else {
            const sh = (assets * scale) / mintPrice();
            shares[slot] = own + sh;
            supply += sh;
            emit('deposit', slot, -1, assets, sh, -1, block, ts, logIndex);
          }
        } else if (act === 1 || act === 2) {
          let sh = act === 2 ? own : (own * BigInt(Math.floor(rng.uniform(0.05, 0.9) * 1e6))) / 1_000_000n;
          if (sh === 0n) sh = own;
          shares[slot] = own - sh;
          if (requests) {
            const refund = rng.chance(0.1);
            const q2: Request = { deposit: false, slot, assets: 0n, shares: sh, index: requestCounter++, due: h + delayHours(refund) * HOUR, refund };
            addPending(q2);
            emit('withdraw_pending', slot, -1, 0n, sh, q2.index, block, ts, logIndex);
            terms(q2, h, block, ts, (sh * P) / scale);
          } else {
            supply -= sh;
            emit('withdraw', slot, -1, (sh * P) / scale, sh, -1, block, ts, logIndex);
          }
        } else {
          let to = 1 + Math.floor(rng.float() * (poolN - 1));
          if (to >= slot) to++;
          let sh = rng.chance(0.25) ? own : (own * BigInt(Math.floor(rng.uniform(0.1, 0.9) * 1e6))) / 1_000_000n;
          if (sh === 0n) sh = own;
          shares[slot] = own - sh;
          shares[to] = shares[to]! + sh;
          emit('transfer_out', slot, to, (sh * publishedUnitPrice()) / scale, sh, -1, block, ts, logIndex);
        }
        seq++;
      }
    }

    // 2. The unit price moves to hour h: slow APY regime, hourly noise, rare drawdowns.
    if ((h / HOUR) % 24 === 0) {
      apy = Math.min(0.25, Math.max(0.005, apy + 0.08 * (apyMean - apy) + 0.003 * rng.normal()));
    }
    let r: number;
    if (ddLeft > 0) {
      r = ddStep;
      ddLeft--;
    } else if (rng.float() < DRAWDOWN_PROB) {
      ddLeft = rng.int(2, 8);
      ddStep = -rng.uniform(0.005, 0.03) / ddLeft;
      r = ddStep;
      ddLeft--;
    } else {
      const drift = Math.log1p(apy) / 8760;
      r = drift * (1 + noise * rng.normal());
    }
    if (jumpHour !== null && h === jumpHour + HOUR && beforeJump > 0n) P = beforeJump;
    P = (P * BigInt(PPT + Math.round(r * PPT))) / PPT_BIG;
    if (h === jumpHour) {
      beforeJump = P;
      P = (P * (100n + UNIT_PRICE_JUMP_PCT)) / 100n;
    }

    // 3. The hourly reading.
    snapshot(h);
  }

  let pendingDepositAssets = 0n;
  let pendingRedeemShares = 0n;
  for (const q of pending) {
    if (q.deposit) pendingDepositAssets += q.assets;
    else pendingRedeemShares += q.shares;
  }
  return {
    snapshots,
    marks,
    listed: true,
    totalAssets: (supply * P) / scale,
    totalSupply: supply,
    unitPrice: P,
    pendingDepositAssets,
    pendingRedeemShares,
  };

  function addPending(q: Request): void {
    pending.push(q);
    if (q.due < nextDue) nextDue = q.due;
  }

  /**
   * The request's terms (DESIGN §11.8), drawn whether emitted or not (the stream stays in step):
   * a request that settles has its deadline 1–72 h after its settlement hour; one that is refunded
   * passed its deadline 1 h to a third of its delay after the request, so until its refund it is
   * expired. The solver tip is 0–30 bp of the request's value in the token.
   */
  function terms(q: Request, h: number, block: number, ts: number, value: bigint): void {
    const delay = (q.due - h) / HOUR;
    const deadline = q.refund ? h + termsRng.int(1, Math.max(1, Math.floor(delay / 3))) * HOUR : q.due + termsRng.int(1, 72) * HOUR;
    const tip = (value * BigInt(termsRng.int(0, 30))) / 10_000n;
    if (ts > ctx.until || ts <= fromTs) return;
    sink.requestTerms({ chain_id: chainId, vault_id: vaultId, request_hash: requestHash(q.index), block_number: block, deadline, solver_tip: tip });
  }

  /** Settlement delays: hours to a few days; refunds wait for the request's deadline. */
  function delayHours(refund: boolean): number {
    return refund ? rng.int(24, 120) : Math.min(120, 1 + Math.floor(rng.exponential(18)));
  }

  /** The 18-digit unit price the engine publishes for the last snapshot (DESIGN §4.1). */
  function publishedUnitPrice(): bigint {
    if (published || snapSupply === 0n) return snapP;
    return (((snapSupply * snapP) / scale) * scale) / snapSupply;
  }

  /** A family that publishes its unit price mints and redeems at the last published one; ERC-4626 at its exact one. */
  function mintPrice(): bigint {
    return published ? snapP : P;
  }

  function settle(q: Request, block: number, ts: number, logIndex: number): void {
    const hash = q.index;
    if (q.deposit) {
      if (q.refund) {
        emit('deposit_refunded', q.slot, -1, q.assets, 0n, hash, block, ts, logIndex);
        return;
      }
      const sh = (q.assets * scale) / mintPrice();
      shares[q.slot] = shares[q.slot]! + sh;
      supply += sh;
      emit('deposit', q.slot, -1, q.assets, sh, hash, block, ts, logIndex);
      return;
    }
    if (q.refund) {
      shares[q.slot] = shares[q.slot]! + q.shares;
      emit('withdraw_refunded', q.slot, -1, 0n, q.shares, hash, block, ts, logIndex);
      return;
    }
    supply -= q.shares;
    emit('withdraw', q.slot, -1, (q.shares * mintPrice()) / scale, q.shares, hash, block, ts, logIndex);
  }
}

/** Yearly yield range by numeraire and family: stablecoin strategies pay more than ETH/BTC ones. */
function apyRange(price: PriceModel, demo: FamilyDemo | undefined): readonly [number, number] {
  if (demo?.apy) return demo.apy;
  switch (price) {
    case 'eth':
    case 'wsteth':
      return [0.02, 0.06];
    case 'btc':
      return [0.02, 0.05];
    case 'none':
      return [0.06, 0.12];
    default:
      return demo?.stablecoinApy ?? [0.03, 0.1];
  }
}

/** The seed depositor: the curator where the family has one, else the owner. */
function curatorAddress(vault: VaultRow): string {
  const d = vault.definition;
  const a = typeof d.curator === 'string' ? d.curator : d.owner;
  return typeof a === 'string' ? a.toLowerCase() : deriveAddress(0, 'curator', hashString(vault.vault_id));
}
