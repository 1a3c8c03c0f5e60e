import { describe, expect, it } from 'vitest';
import { createAddressBook } from './addressBook.js';
import type { DecodedLog } from './decodeLog.js';
import { requestKey, requestLookups, toEventRows, type RequestRecord } from './eventRows.js';

const A = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const H = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const VAULT = A(0xa1);
const PROV = A(0xb1);
const CALC = A(0xc1);
const MORPHO = A(0xd1);
const TOKEN = A(0x70);
const [alice, bob] = [A(0x1a), A(0x1b)];
const ZERO = A(0);

const book = createAddressBook(
  {
    registry: {
      strategies: [],
      groups: [],
      vaults: [
        {
          chain_id: 1,
          address: VAULT,
          vault_type: 'aera_v3',
          name: 'a',
          symbol: 'a',
          numeraire_token: { address: TOKEN, decimals: 6, symbol: 'USDC' },
          provisioner: PROV,
          fee_calculator: CALC,
          is_primary: false,
          visibility: 'visible',
          definition: {},
        },
        {
          chain_id: 1,
          address: MORPHO,
          vault_type: 'morpho_v1',
          name: 'm',
          symbol: 'm',
          numeraire_token: { address: TOKEN, decimals: 6, symbol: 'USDC' },
          is_primary: false,
          visibility: 'visible',
          definition: {},
        },
      ],
    },
  },
  1,
);

let logIndex = 0;
function log(block: number, tx: number, address: string, name: string, args: DecodedLog['args']): DecodedLog {
  const emitter = book.emitterOf(address)!;
  return {
    name,
    args,
    emitter,
    log: { address, topics: [], data: '0x', blockNumber: block, blockHash: H(block), transactionHash: H(1000 + tx), logIndex: logIndex++ },
  };
}

const run = (decoded: DecodedLog[], stored = new Map<string, RequestRecord>()) => toEventRows({ chainId: 1, book, decoded, ts: (b) => b * 3600, stored });
const brief = (rows: ReturnType<typeof run>['rows']) =>
  rows.map(
    (r) =>
      `${r.kind} ${r.wallet === alice ? 'alice' : r.wallet === bob ? 'bob' : r.wallet} a=${r.assets} s=${r.shares} ${r.request_hash ? 'h' : '-'} #${r.sub_index}`,
  );

describe('toEventRows', () => {
  it('a v2 deposit request settled in a later range to another receiver: deposit of the requester + a transfer to the receiver', () => {
    const req = log(1, 1, PROV, 'DepositRequestedV2', {
      user: alice,
      receiver: bob,
      token: TOKEN,
      tokensIn: 1000n,
      minUnitsOut: 900n,
      solverTip: 5n,
      deadline: 99n,
      maxPriceAge: 9n,
      isFixedPrice: false,
      depositRequestHash: H(7),
    });
    const first = run([req]);
    expect(brief(first.rows)).toEqual(['deposit_pending alice a=1000 s=0 h #0']);
    expect(first.requests).toHaveLength(1);

    const solve = [
      log(5, 2, VAULT, 'Transfer', { from: ZERO, to: bob, value: 950n }),
      log(5, 2, VAULT, 'Enter', { sender: PROV, recipient: bob, token: TOKEN, tokenAmount: 995n, unitsAmount: 950n }),
      log(5, 2, PROV, 'DepositSolved', { depositHash: H(7) }),
    ];
    expect(requestLookups(solve)).toEqual([{ provisioner: PROV, hash: H(7) }]);
    // a settlement whose request is in the same batch needs no stored one
    expect(requestLookups([req, ...solve])).toEqual([]);
    const stored = new Map([[requestKey(PROV, H(7)), first.requests[0]!]]);
    const second = run(solve, stored);
    expect(brief(second.rows)).toEqual(['deposit alice a=1000 s=950 h #0', 'transfer_out alice a=0 s=950 - #1', 'transfer_in bob a=0 s=950 - #2']);
    expect(second.issues).toEqual([]);
  });

  it('a redeem: escrow transfers are not user transfers; the settlement carries the Exit’s assets and the escrowed units', () => {
    const rows = run([
      log(1, 1, VAULT, 'Transfer', { from: alice, to: PROV, value: 40n }),
      log(1, 1, PROV, 'RedeemRequestedV1', {
        user: alice,
        token: TOKEN,
        minTokensOut: 30n,
        unitsIn: 40n,
        solverTip: 0n,
        deadline: 9n,
        maxPriceAge: 9n,
        isFixedPrice: false,
        redeemRequestHash: H(8),
      }),
      log(2, 2, VAULT, 'Transfer', { from: PROV, to: ZERO, value: 40n }),
      log(2, 2, VAULT, 'Exit', { sender: PROV, recipient: alice, token: TOKEN, tokenAmount: 44n, unitsAmount: 40n }),
      log(2, 2, PROV, 'RedeemSolved', { redeemHash: H(8) }),
    ]).rows;
    expect(brief(rows)).toEqual(['withdraw_pending alice a=0 s=40 h #0', 'withdraw alice a=44 s=40 h #0']);
  });

  it('refunds carry the request’s amounts; sync Enter/Exit and ERC-4626 events are sync rows; mints, burns and governance write nothing', () => {
    const rows = run([
      log(1, 1, PROV, 'DepositRequestedV1', {
        user: bob,
        token: TOKEN,
        tokensIn: 70n,
        minUnitsOut: 60n,
        solverTip: 0n,
        deadline: 9n,
        maxPriceAge: 9n,
        isFixedPrice: false,
        depositRequestHash: H(9),
      }),
      log(2, 2, PROV, 'DepositRefunded', { depositHash: H(9) }),
      log(3, 3, VAULT, 'Transfer', { from: ZERO, to: alice, value: 10n }),
      log(3, 3, VAULT, 'Enter', { sender: alice, recipient: alice, token: TOKEN, tokenAmount: 11n, unitsAmount: 10n }),
      log(3, 3, PROV, 'Deposited', { user: alice, token: TOKEN, tokensIn: 11n, unitsOut: 10n, depositHash: H(10) }),
      log(4, 4, MORPHO, 'Deposit', { sender: bob, owner: alice, assets: 5n, shares: 4n }),
      log(4, 4, MORPHO, 'AccrueInterest', { newTotalAssets: 1n, feeShares: 0n }),
      log(5, 5, MORPHO, 'Transfer', { from: alice, to: bob, value: 3n }),
      log(6, 6, MORPHO, 'Withdraw', { sender: bob, receiver: bob, owner: alice, assets: 1n, shares: 1n }),
      log(6, 6, CALC, 'UnitPriceUpdated', { vault: VAULT, price: 1n, timestamp: 1n }),
    ]).rows;
    expect(brief(rows)).toEqual([
      'deposit_pending bob a=70 s=0 h #0',
      'deposit_refunded bob a=70 s=0 h #0',
      'deposit alice a=11 s=10 - #0',
      'deposit alice a=5 s=4 - #0',
      'transfer_out alice a=0 s=3 - #0',
      'transfer_in bob a=0 s=3 - #1',
      'withdraw alice a=1 s=1 - #0',
    ]);
    expect(rows.find((r) => r.kind === 'transfer_out')!.counterparty).toBe(bob);
    expect(rows.every((r) => r.ts === r.block_number * 3600)).toBe(true);
  });

  it('a Morpho fee mint (the mint just before AccrueInterest, same shares) is the fee recipient’s transfer_in from the vault; the deposit’s own mint is not', () => {
    const fee = A(0xfe);
    const rows = run([
      log(7, 7, MORPHO, 'Transfer', { from: ZERO, to: fee, value: 12n }),
      log(7, 7, MORPHO, 'AccrueInterest', { newTotalAssets: 900n, feeShares: 12n }),
      log(7, 7, MORPHO, 'Transfer', { from: ZERO, to: alice, value: 50n }),
      log(7, 7, MORPHO, 'Deposit', { sender: alice, owner: alice, assets: 55n, shares: 50n }),
      // a mint in an earlier transaction never pairs with a later AccrueInterest
      log(8, 8, MORPHO, 'Transfer', { from: ZERO, to: bob, value: 3n }),
      log(8, 9, MORPHO, 'AccrueInterest', { newTotalAssets: 901n, feeShares: 3n }),
    ]).rows;
    expect(brief(rows)).toEqual([`transfer_in ${fee} a=0 s=12 - #0`, 'deposit alice a=55 s=50 - #0']);
    expect(rows[0]).toMatchObject({ counterparty: ZERO, log_index: rows[1]!.log_index - 3 });
  });

  it('bad data: a settlement without its request, a provisioner Enter without its settlement — rows that keep balances right, and issues', () => {
    const out = run([
      log(1, 1, VAULT, 'Enter', { sender: PROV, recipient: bob, token: TOKEN, tokenAmount: 20n, unitsAmount: 19n }),
      log(1, 1, PROV, 'DepositSolved', { depositHash: H(11) }),
      log(2, 2, VAULT, 'Enter', { sender: PROV, recipient: alice, token: TOKEN, tokenAmount: 8n, unitsAmount: 7n }),
      log(3, 3, PROV, 'RedeemRefunded', { redeemHash: H(12) }),
    ]);
    expect(brief(out.rows)).toEqual(['deposit bob a=20 s=19 - #0', 'deposit alice a=8 s=7 - #0']);
    expect(out.issues.map((i) => i.reason)).toEqual(['orphan_settlement', 'unpaired_settlement', 'orphan_settlement']);
  });
});
