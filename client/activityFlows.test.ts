import { describe, expect, it } from 'vitest';
import { activityFlows, type FlowRow } from './activityFlows.js';
import { AmountError } from './errors.js';

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

describe('activityFlows: status transitions of the request state table', () => {
  it('deposit_pending alone is pending; a deposit with its hash settles it; a refund refunds it', () => {
    const req = r('deposit_pending', '0', '100', '0xa');
    expect(activityFlows([req])[0]).toMatchObject({ kind: 'deposit', status: 'pending', request_hash: '0xa' });
    const settled = activityFlows([req, r('deposit', '95.5', '0', '0xa')]);
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ kind: 'deposit', status: 'settled', net: { shares: '95.5', assets: { native: '100' } } });
    const refunded = activityFlows([req, r('deposit_refunded', '0', '-100', '0xa')]);
    expect(refunded[0]).toMatchObject({ status: 'refunded', net: { shares: '0', assets: { native: '0' } } });
  });

  it('redeem requests: pending, settled by a withdraw with the hash, refunded by withdraw_refunded', () => {
    const req = r('withdraw_pending', '-3', '0', '0xw');
    expect(activityFlows([req])[0]).toMatchObject({ kind: 'withdraw', status: 'pending', net: { shares: '-3', assets: { native: '0' } } });
    expect(activityFlows([req, r('withdraw', '0', '-3.3', '0xw')])[0]).toMatchObject({
      status: 'settled',
      net: { shares: '-3', assets: { native: '-3.3' } },
    });
    expect(activityFlows([req, r('withdraw_refunded', '3', '0', '0xw')])[0]).toMatchObject({
      status: 'refunded',
      net: { shares: '0', assets: { native: '0' } },
    });
  });

  it('the first terminal row decides; later rows of the same request stay in the flow', () => {
    const flows = activityFlows([r('deposit_pending', '0', '1', '0xa'), r('deposit_refunded', '0', '-1', '0xa'), r('deposit', '1', '0', '0xa')]);
    expect(flows[0]!.status).toBe('refunded');
    expect(flows[0]!.rows).toHaveLength(3);
  });

  it('sync rows and transfers are settled flows of one row with a null request_hash', () => {
    const flows = activityFlows([r('deposit', '1', '1'), r('withdraw', '-1', '-1.01'), r('transfer_in', '2', '2.2'), r('transfer_out', '-2', '-2.2')]);
    expect(flows.map((f) => [f.kind, f.status, f.request_hash, f.rows.length])).toEqual([
      ['deposit', 'settled', null, 1],
      ['withdraw', 'settled', null, 1],
      ['transfer_in', 'settled', null, 1],
      ['transfer_out', 'settled', null, 1],
    ]);
  });

  it('a newest-first page gives newest-first flows, each flow oldest row first; hashes pair per vault', () => {
    const a1 = r('deposit_pending', '0', '5', '0xa');
    const b1 = r('deposit_pending', '0', '7', '0xa', '1:0xother'); // same hash, other vault: another flow
    const s1 = r('deposit', '1', '1');
    const a2 = r('deposit', '4', '0', '0xa');
    const flows = activityFlows([a2, s1, b1, a1]);
    expect(flows.map((f) => f.id)).toEqual(['1:0xv:0xa', s1.id, '1:0xother:0xa']);
    expect(flows[0]!.rows).toEqual([a1, a2]);
    expect(flows[0]!.status).toBe('settled');
    expect(flows[2]!.status).toBe('pending');
  });

  it('a lifecycle cut by a page boundary is stitched from the rows present', () => {
    expect(activityFlows([r('withdraw', '0', '-2', '0xz')])[0]).toMatchObject({ kind: 'withdraw', status: 'settled', request_hash: '0xz' });
  });

  it('net movement is an exact decimal sum, whatever the digits', () => {
    const flows = activityFlows([r('deposit_pending', '0', '0.000001', '0xq'), r('deposit', '0.000000000000000001', '0', '0xq')]);
    expect(flows[0]!.net).toEqual({ shares: '0.000000000000000001', assets: { native: '0.000001', token: { address: '0xnum', decimals: 6, symbol: 'USDC' } } });
    expect(activityFlows([r('deposit_pending', '0', '1.5', '0xn'), r('deposit_refunded', '0', '-1.5', '0xn')])[0]!.net.assets.native).toBe('0');
  });

  it('error: a malformed decimal string is a typed AmountError', () => {
    const bad = () => activityFlows([r('deposit', '1e5', '1')]);
    expect(bad).toThrow(AmountError);
    expect(bad).toThrow('"1e5" is not a decimal string; expected digits with an optional "-" and fraction, e.g. "-12.5"');
  });

  it('rows of one block are ordered by log index and the sub-index of their id', () => {
    const a = { ...r('deposit_pending', '0', '5', '0xs'), block_number: 9, block_timestamp: 50, log_index: 3, id: '1:9:3:1' };
    const b = { ...r('deposit', '1', '0', '0xs'), block_number: 9, block_timestamp: 50, log_index: 3, id: '1:9:3:0' };
    expect(activityFlows([a, b])[0]!.rows.map((x) => x.id)).toEqual(['1:9:3:0', '1:9:3:1']);
  });
});
