import { describe, expect, it } from 'vitest';
import type { EventRow } from '../store/rows.js';
import { demoPositions } from '../positions/fixtures.js';
import { compareActivity, toActivityRow, type ActivityRow } from './activityRows.js';
import { stitchFlows, type FlowRow } from './stitchFlows.js';

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

describe('stitchFlows: status transitions of the request state table', () => {
  it('deposit_pending alone is pending; a deposit with its hash settles it; a refund refunds it', () => {
    const req = r('deposit_pending', '0', '100', '0xa');
    expect(stitchFlows([req])[0]).toMatchObject({ kind: 'deposit', status: 'pending', request_hash: '0xa' });
    const settled = stitchFlows([req, r('deposit', '95.5', '0', '0xa')]);
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ kind: 'deposit', status: 'settled', net: { shares: '95.5', assets: { native: '100' } } });
    const refunded = stitchFlows([req, r('deposit_refunded', '0', '-100', '0xa')]);
    expect(refunded[0]).toMatchObject({ status: 'refunded', net: { shares: '0', assets: { native: '0' } } });
  });

  it('redeem requests: pending, settled by a withdraw with the hash, refunded by withdraw_refunded', () => {
    const req = r('withdraw_pending', '-3', '0', '0xw');
    expect(stitchFlows([req])[0]).toMatchObject({ kind: 'withdraw', status: 'pending', net: { shares: '-3', assets: { native: '0' } } });
    expect(stitchFlows([req, r('withdraw', '0', '-3.3', '0xw')])[0]).toMatchObject({
      status: 'settled',
      net: { shares: '-3', assets: { native: '-3.3' } },
    });
    expect(stitchFlows([req, r('withdraw_refunded', '3', '0', '0xw')])[0]).toMatchObject({
      status: 'refunded',
      net: { shares: '0', assets: { native: '0' } },
    });
  });

  it('the first terminal row decides; later rows of the same request stay in the flow', () => {
    const flows = stitchFlows([
      r('deposit_pending', '0', '1', '0xa'),
      r('deposit_refunded', '0', '-1', '0xa'),
      r('deposit', '1', '0', '0xa'),
    ]);
    expect(flows[0]!.status).toBe('refunded');
    expect(flows[0]!.rows).toHaveLength(3);
  });

  it('sync rows and transfers are settled flows of one row with a null request_hash', () => {
    const flows = stitchFlows([
      r('deposit', '1', '1'),
      r('withdraw', '-1', '-1.01'),
      r('transfer_in', '2', '2.2'),
      r('transfer_out', '-2', '-2.2'),
    ]);
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
    const flows = stitchFlows([a2, s1, b1, a1]);
    expect(flows.map((f) => f.id)).toEqual(['1:0xv:0xa', s1.id, '1:0xother:0xa']);
    expect(flows[0]!.rows).toEqual([a1, a2]);
    expect(flows[0]!.status).toBe('settled');
    expect(flows[2]!.status).toBe('pending');
  });

  it('a lifecycle cut by a page boundary is stitched from the rows present', () => {
    expect(stitchFlows([r('withdraw', '0', '-2', '0xz')])[0]).toMatchObject({ kind: 'withdraw', status: 'settled', request_hash: '0xz' });
  });

  it('net movement is an exact decimal sum, whatever the digits', () => {
    const flows = stitchFlows([
      r('deposit_pending', '0', '0.000001', '0xq'),
      r('deposit', '0.000000000000000001', '0', '0xq'),
    ]);
    expect(flows[0]!.net).toEqual({ shares: '0.000000000000000001', assets: { native: '0.000001', token: { address: '0xnum', decimals: 6, symbol: 'USDC' } } });
    expect(stitchFlows([r('deposit_pending', '0', '1.5', '0xn'), r('deposit_refunded', '0', '-1.5', '0xn')])[0]!.net.assets.native).toBe('0');
  });

  it('error: a malformed decimal string', () => {
    expect(() => stitchFlows([r('deposit', '1e5', '1')])).toThrow('stitchFlows: not a decimal string: "1e5"');
  });
});

describe('stitchFlows over the demo world', () => {
  it("every wallet's log stitches into flows whose status matches the raw lifecycle", () => {
    const NOW = Date.UTC(2026, 0, 15, 10) / 1000;
    const w = demoPositions({ seed: 9, now: NOW, vaults: null, wallets: 250, days: 90 });
    const outcome = new Map<string, string>();
    for (const e of w.events) {
      if (e.request_hash === null) continue;
      const k = `${e.vault_id}:${e.request_hash}`;
      if (e.kind.endsWith('_pending')) outcome.set(k, outcome.get(k) ?? 'pending');
      else outcome.set(k, e.kind.endsWith('_refunded') ? 'refunded' : 'settled');
    }
    const byWallet = new Map<string, EventRow[]>();
    for (const e of w.events) byWallet.set(e.wallet, [...(byWallet.get(e.wallet) ?? []), e]);
    const statuses = new Set<string>();
    let flows = 0;
    for (const rows of byWallet.values()) {
      const page: ActivityRow[] = [...rows].sort(compareActivity).reverse().map((e) => toActivityRow(e, w.contexts.get(e.vault_id)!));
      const stitched = stitchFlows(page);
      expect(stitched.reduce((s, f) => s + f.rows.length, 0)).toBe(page.length);
      for (const f of stitched) {
        flows++;
        statuses.add(`${f.kind}:${f.status}`);
        if (f.request_hash !== null) expect(f.status).toBe(outcome.get(f.id));
        else expect(f.rows).toHaveLength(1);
      }
    }
    expect(flows).toBeGreaterThan(500);
    expect([...statuses].sort()).toEqual(
      [
        'deposit:pending',
        'deposit:refunded',
        'deposit:settled',
        'transfer_in:settled',
        'transfer_out:settled',
        'withdraw:pending',
        'withdraw:refunded',
        'withdraw:settled',
      ].sort(),
    );
  });
});
