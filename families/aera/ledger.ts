// Aera v3 (DESIGN §6.1): a vault of units with a provisioner (deposit and redeem requests the
// curator's solver settles, or users refund) and a price-and-fee calculator that publishes the
// unit price. How its logs become rows:
// - Enter/Exit by a wallet: a sync `deposit` (recipient) / `withdraw` (sender). By the vault's
//   provisioner they are the settlement of a request: held until the *Solved of the same
//   transaction, which writes the terminal row with the request's hash: a deposit carries the
//   request's assets and the units the Enter minted, a redeem the tokens the Exit paid and the
//   escrowed units. A v2 deposit whose receiver is not the requester also writes a transfer of
//   the minted units to the receiver, so every wallet's rows sum to its balance.
// - *Requested: `deposit_pending` / `withdraw_pending` of the user; *Refunded: `deposit_refunded`
//   / `withdraw_refunded` with the request's amounts (the request may lie in an earlier range).
// - Unit Transfer between wallets: `transfer_out` + `transfer_in`; mints, burns and moves into or
//   out of the provisioner's escrow are covered by the rows above.
// - Deposited, Redeemed (covered by Enter/Exit) and the price and fee events write nothing.
import type { DecodedLog, Ledger, LedgerFact, LedgerVault, RequestRecord } from '../ledger.js';
import { ERC20_EVENTS, OWNER, TOTAL_SUPPLY, lowerAddress, shareTransferRows } from '../shared/erc4626.js';

const CONVERT_UNITS = 'function convertUnitsToNumeraire(address vault, uint256 units) view returns (uint256)';
const VAULT_STATE = 'function vaultState(address vault) view returns (uint128 unitPrice, uint32 timestamp, uint16 tvlFee, uint16 performanceFee)';
/** 1e18 units are one whole unit (Aera's UNIT_PRICE_PRECISION) */
const WHOLE_UNIT = 10n ** 18n;

const vaultEvent = (signature: string) => ({ signature, emitters: ['vault'] });
const provisionerEvent = (signature: string) => ({ signature, emitters: ['provisioner'] });
const calculatorEvent = (signature: string) => ({ signature, emitters: ['calculator'] });

const SETTLEMENTS = new Set(['DepositSolved', 'RedeemSolved', 'DepositRefunded', 'RedeemRefunded']);

interface Held {
  log: DecodedLog;
  used: boolean;
}

export const AERA_LEDGER: Ledger = {
  name: 'aera',
  contracts: (e) => ({ provisioner: e.provisioner?.toLowerCase() ?? null, calculator: e.fee_calculator?.toLowerCase() ?? null }),
  // one price-and-fee calculator serves every vault of a chain
  sharedRoles: ['calculator'],
  events: {
    ...ERC20_EVENTS,
    Enter: vaultEvent('event Enter(address indexed sender, address indexed recipient, address indexed token, uint256 tokenAmount, uint256 unitsAmount)'),
    Exit: vaultEvent('event Exit(address indexed sender, address indexed recipient, address indexed token, uint256 tokenAmount, uint256 unitsAmount)'),
    // the two Provisioner versions' *Requested events: two topic0s, a V1/V2 suffix here
    DepositRequestedV1: provisionerEvent(
      'event DepositRequested(address indexed user, address indexed token, uint256 tokensIn, uint256 minUnitsOut, uint256 solverTip, uint256 deadline, uint256 maxPriceAge, bool isFixedPrice, bytes32 depositRequestHash)',
    ),
    RedeemRequestedV1: provisionerEvent(
      'event RedeemRequested(address indexed user, address indexed token, uint256 minTokensOut, uint256 unitsIn, uint256 solverTip, uint256 deadline, uint256 maxPriceAge, bool isFixedPrice, bytes32 redeemRequestHash)',
    ),
    DepositRequestedV2: provisionerEvent(
      'event DepositRequested(address indexed user, address indexed receiver, address indexed token, uint256 tokensIn, uint256 minUnitsOut, uint256 solverTip, uint256 deadline, uint256 maxPriceAge, bool isFixedPrice, bytes32 depositRequestHash)',
    ),
    RedeemRequestedV2: provisionerEvent(
      'event RedeemRequested(address indexed user, address indexed receiver, address indexed token, uint256 minTokensOut, uint256 unitsIn, uint256 solverTip, uint256 deadline, uint256 maxPriceAge, bool isFixedPrice, bytes32 redeemRequestHash)',
    ),
    DepositSolved: provisionerEvent('event DepositSolved(bytes32 indexed depositHash)'),
    RedeemSolved: provisionerEvent('event RedeemSolved(bytes32 indexed redeemHash)'),
    DepositRefunded: provisionerEvent('event DepositRefunded(bytes32 indexed depositHash)'),
    RedeemRefunded: provisionerEvent('event RedeemRefunded(bytes32 indexed redeemHash)'),
    Deposited: provisionerEvent('event Deposited(address indexed user, address indexed token, uint256 tokensIn, uint256 unitsOut, bytes32 depositHash)'),
    Redeemed: provisionerEvent('event Redeemed(address indexed user, address indexed receiver, address indexed token, uint256 unitsIn, uint256 tokensOut)'),
    UnitPriceUpdated: calculatorEvent('event UnitPriceUpdated(address indexed vault, uint128 price, uint32 timestamp)'),
    VaultFeesSet: calculatorEvent('event VaultFeesSet(address indexed vault, uint16 tvlFee, uint16 performanceFee)'),
  },
  functions: [TOTAL_SUPPLY, OWNER, CONVERT_UNITS, VAULT_STATE],

  rows(sink) {
    /** the transaction's provisioner Enter/Exit, waiting for their *Solved */
    let held: Held[] = [];

    function take(name: 'Enter' | 'Exit', vault: LedgerVault): DecodedLog | undefined {
      const h = held.find((x) => !x.used && x.log.name === name && x.log.emitter.vault === vault);
      if (!h) return undefined;
      h.used = true;
      return h.log;
    }

    return {
      log(d) {
        const a = d.args;
        const at = d.log.address;
        const v = d.emitter.vault;
        switch (d.name) {
          case 'Transfer':
            shareTransferRows(sink, d, v.contracts.provisioner ?? null);
            break;
          case 'Enter':
          case 'Exit': {
            if (v.contracts.provisioner != null && a.sender === v.contracts.provisioner) {
              held.push({ log: d, used: false });
              break;
            }
            if (d.name === 'Enter') {
              sink.row(d, 0, v, {
                kind: 'deposit',
                wallet: a.recipient as string,
                assets: a.tokenAmount as bigint,
                shares: a.unitsAmount as bigint,
                token: a.token as string,
              });
            } else {
              sink.row(d, 0, v, {
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
            const deposit = d.name.startsWith('Deposit');
            const hash = (deposit ? a.depositRequestHash : a.redeemRequestHash) as string;
            const user = a.user as string;
            const r: RequestRecord = {
              chain_id: sink.chainId,
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
              deadline: Number(a.deadline as bigint),
              solver_tip: a.solverTip as bigint,
            };
            sink.addRequest(r);
            if (deposit) sink.row(d, 0, v, { kind: 'deposit_pending', wallet: user, assets: r.tokens, shares: 0n, token: r.token, request_hash: hash });
            else sink.row(d, 0, v, { kind: 'withdraw_pending', wallet: user, assets: 0n, shares: r.units, token: r.token, request_hash: hash });
            break;
          }
          case 'DepositSolved': {
            const hash = a.depositHash as string;
            const r = sink.request(at, hash);
            const enter = take('Enter', v);
            if (!r) {
              sink.issue(d, 'orphan_settlement', `DepositSolved ${hash} with no request seen`);
              // the units were still minted: keep balances right with a sync deposit
              if (enter) {
                const e = enter.args;
                sink.row(d, 0, v, {
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
            sink.row(d, 0, v, { kind: 'deposit', wallet: r.user, assets: r.tokens, shares, token: r.token, request_hash: hash });
            if (receiver !== r.user) {
              sink.row(d, 1, v, { kind: 'transfer_out', wallet: r.user, counterparty: receiver, assets: 0n, shares });
              sink.row(d, 2, v, { kind: 'transfer_in', wallet: receiver, counterparty: r.user, assets: 0n, shares });
            }
            break;
          }
          case 'RedeemSolved': {
            const hash = a.redeemHash as string;
            const r = sink.request(at, hash);
            const exit = take('Exit', v);
            if (!r) {
              sink.issue(d, 'orphan_settlement', `RedeemSolved ${hash} with no request seen`);
              break;
            }
            const assets = exit ? (exit.args.tokenAmount as bigint) : r.tokens;
            sink.row(d, 0, v, { kind: 'withdraw', wallet: r.user, assets, shares: r.units, token: r.token, request_hash: hash });
            break;
          }
          case 'DepositRefunded':
          case 'RedeemRefunded': {
            const deposit = d.name === 'DepositRefunded';
            const hash = (deposit ? a.depositHash : a.redeemHash) as string;
            const r = sink.request(at, hash);
            if (!r) {
              sink.issue(d, 'orphan_settlement', `${d.name} ${hash} with no request seen`);
              break;
            }
            if (deposit) sink.row(d, 0, v, { kind: 'deposit_refunded', wallet: r.user, assets: r.tokens, shares: 0n, token: r.token, request_hash: hash });
            else sink.row(d, 0, v, { kind: 'withdraw_refunded', wallet: r.user, assets: 0n, shares: r.units, token: r.token, request_hash: hash });
            break;
          }
          default:
            // Approval, Deposited, Redeemed, UnitPriceUpdated, VaultFeesSet
            break;
        }
      },

      /** A provisioner Enter with no *Solved in its transaction still minted units: booked as a sync deposit. */
      endTx() {
        for (const h of held) {
          if (h.used) continue;
          const a = h.log.args;
          if (h.log.name === 'Enter') {
            sink.issue(h.log, 'unpaired_settlement', `Enter by the provisioner with no DepositSolved in ${h.log.log.transactionHash}`);
            sink.row(h.log, 0, h.log.emitter.vault, {
              kind: 'deposit',
              wallet: a.recipient as string,
              assets: a.tokenAmount as bigint,
              shares: a.unitsAmount as bigint,
              token: a.token as string,
            });
          } else {
            sink.issue(h.log, 'unpaired_settlement', `Exit by the provisioner with no RedeemSolved in ${h.log.log.transactionHash}`);
          }
        }
        held = [];
      },
    };
  },

  /** Every settled or refunded hash whose request is not in the same batch. */
  requestLookups(decoded) {
    const fresh = new Set(
      decoded.filter((d) => d.name.includes('Requested')).map((d) => `${d.log.address}:${(d.args.depositRequestHash ?? d.args.redeemRequestHash) as string}`),
    );
    const out: { provisioner: string; hash: string }[] = [];
    for (const d of decoded) {
      if (!SETTLEMENTS.has(d.name)) continue;
      const hash = (d.args.depositHash ?? d.args.redeemHash) as string;
      if (!fresh.has(`${d.log.address}:${hash}`)) out.push({ provisioner: d.log.address, hash });
    }
    return out;
  },

  /** The calculator's price of one whole unit, and the supply: total_assets = units × price. */
  snapshotCalls(v) {
    const calculator = v.contracts.calculator;
    if (calculator == null) return `an ${v.vault_type} vault needs "fee_calculator" for its unit price`;
    return [
      { address: calculator, fn: CONVERT_UNITS, args: [v.address, WHOLE_UNIT] },
      { address: v.address, fn: TOTAL_SUPPLY },
    ];
  },

  snapshot(v, [perUnit, supply]) {
    // numeraire base units per whole unit, published as an 18-decimal human price
    const d = v.numeraire.decimals;
    const unitPrice = d <= 18 ? perUnit! * 10n ** BigInt(18 - d) : perUnit! / 10n ** BigInt(d - 18);
    return { total_assets: (supply! * perUnit!) / WHOLE_UNIT, total_supply: supply!, unit_price: unitPrice };
  },

  facts(v) {
    const facts: LedgerFact[] = [{ field: 'owner', call: { address: v.address, fn: OWNER }, value: lowerAddress }];
    const calculator = v.contracts.calculator;
    if (calculator != null) {
      facts.push({
        field: 'fees',
        call: { address: calculator, fn: VAULT_STATE, args: [v.address] },
        value: (result) => {
          const [, , tvlFee, performanceFee] = result as readonly [bigint, number, number, number];
          return { tvl_fee_bps: Number(tvlFee), performance_fee_bps: Number(performanceFee) };
        },
      });
    }
    return facts;
  },
};
