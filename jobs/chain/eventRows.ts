// Decoded logs → raw event rows in activity vocabulary (store/rows.ts), pure.
//
// - ERC-4626 Deposit/Withdraw: `deposit`/`withdraw` of the share owner.
// - Aera Enter/Exit by a wallet: sync `deposit` (recipient) / `withdraw` (sender). Enter/Exit by the
//   vault's provisioner are the settlement of a request: held until the *Solved of the same
//   transaction, which writes the terminal row with the request's hash: a deposit carries the
//   request's assets and the units the Enter minted, a redeem the tokens the Exit paid and the
//   escrowed units. A v2 deposit whose receiver is not the requester also writes a transfer of
//   the minted units to the receiver, so every wallet's rows sum to its balance.
// - *Requested: `deposit_pending` / `withdraw_pending` of the user; *Refunded: `deposit_refunded` /
//   `withdraw_refunded` with the request's amounts (requests may come from an earlier range: the
//   caller passes a lookup over the stored ones).
// - Share Transfer between wallets: `transfer_out` (sub 0) + `transfer_in` (sub 1). Mints, burns
//   and moves into or out of a provisioner's escrow are covered by the rows above.
// - Deposited, Redeemed (covered by Enter/Exit) and the governance and price events write nothing.
import type { EventRow, RequestRecord } from '../../model/rows.js';
import type { AddressBook, IndexedVault } from './addressBook.js';
import type { DecodedLog } from './decodeLog.js';
import type { BadDataReason } from './ingestMetrics.js';

export type { RequestRecord } from '../../model/rows.js';

export interface RowIssue {
  reason: BadDataReason;
  detail: string;
  block_number: number;
  log_index: number;
}

export interface EventRowsInput {
  chainId: number;
  book: AddressBook;
  /** sorted by (block, log index) */
  decoded: readonly DecodedLog[];
  /** block timestamp (every block of `decoded` must be known) */
  ts: (block: number) => number;
  /** requests stored by earlier ranges, by `${provisioner}:${hash}` */
  stored: ReadonlyMap<string, RequestRecord>;
}

export interface EventRowsOutput {
  rows: EventRow[];
  requests: RequestRecord[];
  issues: RowIssue[];
}

const ZERO = '0x0000000000000000000000000000000000000000';
export const requestKey = (provisioner: string, hash: string) => `${provisioner}:${hash}`;

const SETTLEMENTS = new Set(['DepositSolved', 'RedeemSolved', 'DepositRefunded', 'RedeemRefunded']);

/** The stored requests a batch needs: every settled or refunded hash. */
export function settlementKeys(decoded: readonly DecodedLog[]): { provisioner: string; hash: string }[] {
  const out: { provisioner: string; hash: string }[] = [];
  for (const d of decoded) {
    if (!SETTLEMENTS.has(d.name)) continue;
    const hash = (d.args.depositHash ?? d.args.redeemHash) as string;
    out.push({ provisioner: d.log.address, hash });
  }
  return out;
}

interface Held {
  log: DecodedLog;
  vault: IndexedVault;
  used: boolean;
}

export function toEventRows(input: EventRowsInput): EventRowsOutput {
  const { chainId, book } = input;
  const rows: EventRow[] = [];
  const requests: RequestRecord[] = [];
  const issues: RowIssue[] = [];
  const fresh = new Map<string, RequestRecord>();
  const lookup = (provisioner: string, hash: string) => fresh.get(requestKey(provisioner, hash)) ?? input.stored.get(requestKey(provisioner, hash));

  let tx: string | null = null;
  let held: Held[] = [];
  /** the transaction's latest mint not yet matched: a Morpho fee mint precedes its AccrueInterest */
  let mint: { log: DecodedLog; vault: IndexedVault } | null = null;

  const issue = (d: DecodedLog, reason: BadDataReason, detail: string) =>
    issues.push({ reason, detail, block_number: d.log.blockNumber, log_index: d.log.logIndex });

  function row(d: DecodedLog, sub: number, vault: IndexedVault, r: Pick<EventRow, 'kind' | 'wallet' | 'assets' | 'shares'> & Partial<EventRow>): void {
    rows.push({
      chain_id: chainId,
      block_number: d.log.blockNumber,
      log_index: d.log.logIndex,
      sub_index: sub,
      block_hash: d.log.blockHash,
      tx_hash: d.log.transactionHash,
      ts: input.ts(d.log.blockNumber),
      vault_id: vault.vault_id,
      counterparty: null,
      token: vault.numeraire.address,
      request_hash: null,
      ...r,
    });
  }

  /** A provisioner Enter with no *Solved in its transaction still minted units: book them as a sync deposit. */
  function flushTx(): void {
    for (const h of held) {
      if (h.used) continue;
      const a = h.log.args;
      if (h.log.name === 'Enter') {
        issue(h.log, 'unpaired_settlement', `Enter by the provisioner with no DepositSolved in ${h.log.log.transactionHash}`);
        row(h.log, 0, h.vault, {
          kind: 'deposit',
          wallet: a.recipient as string,
          assets: a.tokenAmount as bigint,
          shares: a.unitsAmount as bigint,
          token: a.token as string,
        });
      } else {
        issue(h.log, 'unpaired_settlement', `Exit by the provisioner with no RedeemSolved in ${h.log.log.transactionHash}`);
      }
    }
    held = [];
  }

  function take(name: 'Enter' | 'Exit', vault: IndexedVault): DecodedLog | undefined {
    const h = held.find((x) => !x.used && x.log.name === name && x.vault === vault);
    if (!h) return undefined;
    h.used = true;
    return h.log;
  }

  for (const d of input.decoded) {
    if (d.log.transactionHash !== tx) {
      flushTx();
      mint = null;
      tx = d.log.transactionHash;
    }
    const a = d.args;
    const at = d.log.address;
    switch (d.name) {
      case 'Deposit': {
        const v = book.byAddress.get(at)!;
        row(d, 0, v, { kind: 'deposit', wallet: a.owner as string, assets: a.assets as bigint, shares: a.shares as bigint });
        break;
      }
      case 'Withdraw': {
        const v = book.byAddress.get(at)!;
        row(d, 0, v, { kind: 'withdraw', wallet: a.owner as string, assets: a.assets as bigint, shares: a.shares as bigint });
        break;
      }
      case 'Transfer': {
        const v = book.byAddress.get(at)!;
        const from = a.from as string;
        const to = a.to as string;
        if (from === ZERO) mint = { log: d, vault: v }; // Deposit/Enter cover it, AccrueInterest a fee mint
        if (from === ZERO || to === ZERO) break; // mint or burn: Deposit/Withdraw/Enter/Exit cover it
        if (v.provisioner !== null && (from === v.provisioner || to === v.provisioner)) break; // escrow
        const shares = a.value as bigint;
        row(d, 0, v, { kind: 'transfer_out', wallet: from, counterparty: to, assets: 0n, shares });
        row(d, 1, v, { kind: 'transfer_in', wallet: to, counterparty: from, assets: 0n, shares });
        break;
      }
      case 'Enter':
      case 'Exit': {
        const v = book.byAddress.get(at)!;
        if (v.provisioner !== null && a.sender === v.provisioner) {
          held.push({ log: d, vault: v, used: false });
          break;
        }
        if (d.name === 'Enter') {
          row(d, 0, v, {
            kind: 'deposit',
            wallet: a.recipient as string,
            assets: a.tokenAmount as bigint,
            shares: a.unitsAmount as bigint,
            token: a.token as string,
          });
        } else {
          row(d, 0, v, {
            kind: 'withdraw',
            wallet: a.sender as string,
            assets: a.tokenAmount as bigint,
            shares: a.unitsAmount as bigint,
            token: a.token as string,
          });
        }
        break;
      }
      case 'DepositRequestedV1':
      case 'DepositRequestedV2':
      case 'RedeemRequestedV1':
      case 'RedeemRequestedV2': {
        const v = book.provisioners.get(at)!;
        const deposit = d.name.startsWith('Deposit');
        const hash = (deposit ? a.depositRequestHash : a.redeemRequestHash) as string;
        const user = a.user as string;
        const r: RequestRecord = {
          chain_id: chainId,
          provisioner: at,
          request_hash: hash,
          kind: deposit ? 'deposit' : 'redeem',
          vault_id: v.vault_id,
          user,
          receiver: (a.receiver as string | undefined) ?? user,
          token: a.token as string,
          tokens: (deposit ? a.tokensIn : a.minTokensOut) as bigint,
          units: (deposit ? a.minUnitsOut : a.unitsIn) as bigint,
          block_number: d.log.blockNumber,
          log_index: d.log.logIndex,
        };
        fresh.set(requestKey(at, hash), r);
        requests.push(r);
        if (deposit) row(d, 0, v, { kind: 'deposit_pending', wallet: user, assets: r.tokens, shares: 0n, token: r.token, request_hash: hash });
        else row(d, 0, v, { kind: 'withdraw_pending', wallet: user, assets: 0n, shares: r.units, token: r.token, request_hash: hash });
        break;
      }
      case 'DepositSolved': {
        const v = book.provisioners.get(at)!;
        const hash = a.depositHash as string;
        const r = lookup(at, hash);
        const enter = take('Enter', v);
        if (!r) {
          issue(d, 'orphan_settlement', `DepositSolved ${hash} with no request seen`);
          // the units were still minted: keep balances right with a sync deposit
          if (enter) {
            const e = enter.args;
            row(d, 0, v, {
              kind: 'deposit',
              wallet: e.recipient as string,
              assets: e.tokenAmount as bigint,
              shares: e.unitsAmount as bigint,
              token: e.token as string,
            });
          }
          break;
        }
        const shares = enter ? (enter.args.unitsAmount as bigint) : r.units;
        const receiver = enter ? (enter.args.recipient as string) : r.receiver;
        row(d, 0, v, { kind: 'deposit', wallet: r.user, assets: r.tokens, shares, token: r.token, request_hash: hash });
        if (receiver !== r.user) {
          row(d, 1, v, { kind: 'transfer_out', wallet: r.user, counterparty: receiver, assets: 0n, shares });
          row(d, 2, v, { kind: 'transfer_in', wallet: receiver, counterparty: r.user, assets: 0n, shares });
        }
        break;
      }
      case 'RedeemSolved': {
        const v = book.provisioners.get(at)!;
        const hash = a.redeemHash as string;
        const r = lookup(at, hash);
        const exit = take('Exit', v);
        if (!r) {
          issue(d, 'orphan_settlement', `RedeemSolved ${hash} with no request seen`);
          break;
        }
        const assets = exit ? (exit.args.tokenAmount as bigint) : r.tokens;
        row(d, 0, v, { kind: 'withdraw', wallet: r.user, assets, shares: r.units, token: r.token, request_hash: hash });
        break;
      }
      case 'DepositRefunded':
      case 'RedeemRefunded': {
        const v = book.provisioners.get(at)!;
        const deposit = d.name === 'DepositRefunded';
        const hash = (deposit ? a.depositHash : a.redeemHash) as string;
        const r = lookup(at, hash);
        if (!r) {
          issue(d, 'orphan_settlement', `${d.name} ${hash} with no request seen`);
          break;
        }
        if (deposit) row(d, 0, v, { kind: 'deposit_refunded', wallet: r.user, assets: r.tokens, shares: 0n, token: r.token, request_hash: hash });
        else row(d, 0, v, { kind: 'withdraw_refunded', wallet: r.user, assets: 0n, shares: r.units, token: r.token, request_hash: hash });
        break;
      }
      case 'AccrueInterest': {
        // MetaMorpho mints the fee shares to the fee recipient just before it emits AccrueInterest:
        // booked as shares received from the vault (at market value), so the recipient's rows
        // sum to its balance like everyone's
        const v = book.byAddress.get(at)!;
        const fee = a.feeShares as bigint;
        if (fee > 0n && mint && mint.vault === v && mint.log.args.value === fee) {
          row(mint.log, 0, v, { kind: 'transfer_in', wallet: mint.log.args.to as string, counterparty: ZERO, assets: 0n, shares: fee });
        }
        mint = null;
        break;
      }
      default:
        // Deposited, Redeemed, Approval, SetFee, SetCurator, UnitPriceUpdated, VaultFeesSet
        break;
    }
  }
  flushTx();
  return { rows, requests, issues };
}
