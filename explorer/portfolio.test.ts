import { describe, expect, it } from 'vitest';
import { dec } from '../client/decimal.js';
import type { Position } from '../client/types.gen.js';
import { portfolio, ratioPercent } from './portfolio.js';

const pair = (native: string, usd: string | null) => ({ native, usd });
function position(id: string, value: string | null, cost: string | null, pnl: string | null, pending = { deposit: '0', redeem: '0' }): Position {
  return {
    vault_id: id,
    wallet_address: '0x0',
    numeraire_token: { address: '0x1', decimals: 6, symbol: 'USDC' },
    metrics: {
      shares_owned: '1',
      value: pair('1', value),
      cost_basis: pair('1', cost),
      pending_deposit_assets: pair(pending.deposit, '0'),
      pending_redeem_shares: pending.redeem,
      pnl: { realized: pair('0', pnl), unrealized: pair('0', pnl), total: pair('0', pnl) },
      roi_pct: { native: 1, usd: 1 },
    },
  };
}

describe('portfolio', () => {
  it('sums exactly where floats would not', () => {
    // 0.1 + 0.2 as floats is 0.30000000000000004
    const p = portfolio([position('a', '0.1', '0.1', '0.01'), position('b', '0.2', '0.2', '0.02')]);
    expect(p.value).toEqual({ usd: '0.3', missing: [] });
    expect(p.costBasis.usd).toBe('0.3');
    expect(p.pnl.usd).toBe('0.03');
    expect(p.returnOnCostPct).toBe('10.00');
    expect(p.positions).toBe(2);
  });

  it('names the positions without a USD leg and leaves them out', () => {
    const p = portfolio([
      position('a', '53584.457056', '53468.263626', '3146.369322'),
      position('mxnb', null, null, null),
      position('b', '0', '139686.233738', '10755.516824', { deposit: '0', redeem: '1.8' }),
      position('c', '5', '5', '0', { deposit: '2.5', redeem: '0' }),
    ]);
    expect(p.value).toEqual({ usd: '53589.457056', missing: ['mxnb'] });
    expect(p.costBasis).toEqual({ usd: '193159.497364', missing: ['mxnb'] });
    expect(p.pnl).toEqual({ usd: '13901.886146', missing: ['mxnb'] });
    expect(p.returnOnCostPct).toBe('7.20');
    expect(p.pendingDeposits).toBe(1);
    expect(p.pendingRedemptions).toBe(1);
  });

  it('no USD at all, or nothing invested: unknown rather than 0', () => {
    const p = portfolio([position('x', null, null, null)]);
    expect(p.value.usd).toBeNull();
    expect(p.returnOnCostPct).toBeNull();
    expect(portfolio([]).returnOnCostPct).toBeNull();
    expect(ratioPercent(dec('1'), dec('0'))).toBeNull();
    expect(ratioPercent(dec('-1'), dec('3'))).toBe('-33.33');
    expect(ratioPercent(dec('-0.00001'), dec('3'))).toBe('0.00');
  });
});
