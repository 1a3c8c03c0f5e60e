import { describe, expect, it } from 'vitest';
import type { FlowRow } from './activityFlows.js';
import { positionHistory } from './positionHistory.js';

let n = 0;
function r(type: string, shares: string, assets: string, request_hash: string | null = null, vault_id = '1:0xv'): FlowRow {
  n++;
  return {
    id: `1:${n}:0:0`,
    type,
    vault_id,
    block_timestamp: 1000 + n,
    block_number: n,
    log_index: 0,
    request_hash,
    shares_delta: shares,
    assets_delta: { native: assets, token: { address: '0xnum', decimals: 6, symbol: 'USDC' } },
  };
}

const state = (h: ReturnType<typeof positionHistory>[number]) => [
  h.current.shares,
  h.current.pending_deposit_assets,
  h.current.pending_redeem_shares,
  h.current.open,
];

describe('positionHistory: S, Pd and Pr of DESIGN §4.4 from activity rows', () => {
  it('an async deposit: Pd while pending, shares once settled; a refund clears Pd', () => {
    const req = r('deposit_pending', '0', '100', '0xa');
    const [pending] = positionHistory([req]);
    expect(state(pending!)).toEqual(['0', '100', '0', true]);
    const [settled] = positionHistory([r('deposit', '95.5', '0', '0xa'), req]); // any input order
    expect(state(settled!)).toEqual(['95.5', '0', '0', true]);
    expect(settled!.points.map((p) => [p.type, p.shares, p.pending_deposit_assets])).toEqual([
      ['deposit_pending', '0', '100'],
      ['deposit', '95.5', '0'],
    ]);
    const [refunded] = positionHistory([req, r('deposit_refunded', '0', '-100', '0xa')]);
    expect(state(refunded!)).toEqual(['0', '0', '0', false]);
  });

  it('a redeem request escrows shares into Pr; settlement releases them; a refund returns them', () => {
    const dep = r('deposit', '10', '10');
    const req = r('withdraw_pending', '-4', '0', '0xw');
    expect(state(positionHistory([dep, req])[0]!)).toEqual(['6', '0', '4', true]);
    expect(state(positionHistory([dep, req, r('withdraw', '0', '-4.4', '0xw')])[0]!)).toEqual(['6', '0', '0', true]);
    expect(state(positionHistory([dep, req, r('withdraw_refunded', '4', '0', '0xw')])[0]!)).toEqual(['10', '0', '0', true]);
  });

  it('sync withdrawals and transfers move S; a full exit closes the position', () => {
    const rows = [r('deposit', '1', '1'), r('transfer_in', '2', '2.2'), r('transfer_out', '-0.5', '-0.55'), r('withdraw', '-2.5', '-2.6')];
    expect(state(positionHistory(rows)[0]!)).toEqual(['0', '0', '0', false]);
  });

  it('one history per vault, in the order of each vault first row', () => {
    const hs = positionHistory([r('deposit', '1', '1', null, '1:0xb'), r('deposit', '2', '2', null, '1:0xa'), r('deposit', '3', '3', null, '1:0xb')]);
    expect(hs.map((h) => [h.vault_id, h.current.shares])).toEqual([
      ['1:0xb', '4'],
      ['1:0xa', '2'],
    ]);
  });

  it('rows the server replay skips are skipped here too, with the reason', () => {
    const hs = positionHistory([r('withdraw', '-1', '-1'), r('deposit', '1', '0', '0xnone'), r('withdraw_pending', '-1', '0', null)]);
    expect(hs[0]!.skipped.map((s) => s.reason)).toEqual(['insufficient_shares', 'no_matching_request', 'missing_request_hash']);
    expect(hs[0]!.points).toEqual([]);
  });
});
