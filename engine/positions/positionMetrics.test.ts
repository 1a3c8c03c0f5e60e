// metricsJson (positionMetrics.ts) writes what JSON.stringify writes for any metrics a position
// can have: decimal amounts of any scale and sign, USD nulls, finite or null ROIs (-0 too).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatUnits } from '../../model/format/numbers.js';
import { metricsJson, type PositionMetrics } from './positionMetrics.js';

const amount = fc.tuple(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.integer({ min: 0, max: 36 })).map(([v, d]) => formatUnits(v, d));
const pair = fc.record({ native: amount, usd: fc.option(amount, { nil: null }) });
const roi = fc.option(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(-0, 0, 1e21, 5e-324, -1e-7)), { nil: null });
const metrics: fc.Arbitrary<PositionMetrics> = fc.record({
  shares_owned: amount,
  value: pair,
  cost_basis: pair,
  pending_deposit_assets: pair,
  pending_redeem_shares: amount,
  pnl: fc.record({ realized: pair, unrealized: pair, total: pair }),
  roi_pct: fc.record({ native: roi, usd: roi }),
});

describe('metricsJson', () => {
  it('is JSON.stringify of the metrics, byte for byte', () => {
    fc.assert(
      fc.property(metrics, (m) => {
        expect(metricsJson(m)).toBe(JSON.stringify(m));
      }),
      { numRuns: 3000, seed: 34 },
    );
  });
});
