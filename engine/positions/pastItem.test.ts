// positionMetricsJson (one pass, a view of the past's per-request valuation) writes exactly what
// JSON.stringify(positionMetrics(...)) writes — the metrics every other route serializes — for
// any state a replay can hold (scaled or not, losses, pending legs, USD incomplete, never held,
// returns of any size: ROIs huge, tiny, infinite as null) valued at any instant of a series with
// a gap, with USD prices present, stale or absent.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PriceSeries } from '../../model/world.js';
import { createVaultSeries } from '../series/vaultSeries.js';
import { pastBasis, positionMetrics, positionMetricsJson } from './positionMetrics.js';
import { createPositionState, type PositionContext, type PositionState } from './replayPosition.js';

const HOUR = 3600;
const T0 = 1_767_225_600;
const amount = (max: bigint) => fc.bigInt({ min: 0n, max });

/** A context of `n` hourly points with a gap after the first third; prices hourly for `m` hours from `lag` hours in. */
function contextOf(decimals: number, ups: bigint[], priced: { usd: string[]; lag: number } | null): PositionContext {
  const n = ups.length;
  const s = createVaultSeries({ vault_id: '1:0xv', numeraire_decimals: decimals, vault_type: 'erc4626' }, n);
  ups.forEach((up, i) => {
    s.ts[i] = T0 + (i + (i > n / 3 ? 5 : 0)) * HOUR;
    s.unit_price.set(i, up);
    s.unit_price_f[i] = Number(up) / 1e18;
  });
  s.length = n;
  let prices: PriceSeries | undefined;
  if (priced) {
    const ts = Float64Array.from(priced.usd, (_, k) => T0 + (priced.lag + k) * HOUR);
    prices = { chain_id: 1, address: '0xn', ts, usd: priced.usd, usd_f: Float64Array.from(priced.usd, Number) };
  }
  return { series: s, prices, numeraire: { address: '0xn', decimals, symbol: 'N' } };
}

const usdText = fc.tuple(fc.integer({ min: 0, max: 200_000 }), fc.integer({ min: 0, max: 999_999 })).map(([a, b]) => `${a}.${String(b).padStart(6, '0')}`);

const world = fc
  .record({
    decimals: fc.constantFrom(0, 6, 8, 18, 24),
    ups: fc.array(amount(5n * 10n ** 18n), { minLength: 1, maxLength: 40 }),
    priced: fc.option(fc.record({ usd: fc.array(usdText, { minLength: 1, maxLength: 60 }), lag: fc.integer({ min: -10, max: 30 }) }), { nil: null }),
  })
  .map(({ decimals, ups, priced }) => contextOf(decimals, ups, priced));

function stateOf(ctx: PositionContext, r: Record<string, unknown>): PositionState {
  const st = createPositionState(ctx);
  Object.assign(st, r);
  if (!st.everHeld) Object.assign(st, { twr: 1, twrUsd: 1 });
  return st;
}

/** a time-weighted growth factor: a plausible one, or any double (an ROI's text at every magnitude) */
const growth = fc.oneof(
  fc.double({ min: 0.5, max: 2, noNaN: true }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(1, 1e21, 5e-324, 1 - 1e-9, -1e-7),
);

const stateFields = fc.record({
  scaled: fc.boolean(),
  shares: amount(10n ** 30n),
  pendingRedeemShares: fc.oneof(fc.constant(0n), amount(10n ** 24n)),
  pendingDepositAssets: fc.oneof(fc.constant(0n), amount(10n ** 30n)),
  cost: amount(10n ** 40n),
  realized: fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }),
  costUsd: amount(10n ** 50n),
  realizedUsd: fc.bigInt({ min: -(10n ** 50n), max: 10n ** 50n }),
  usdComplete: fc.boolean(),
  everHeld: fc.boolean(),
  twr: growth,
  twrUsd: growth,
  spellP: fc.oneof(fc.double({ min: 0.1, max: 3, noNaN: true }), fc.constant(0)),
  spellPUsd: fc.double({ min: 0.1, max: 3, noNaN: true }),
});

describe('positionMetricsJson', () => {
  it('is JSON.stringify(positionMetrics(...)) byte for byte, at any instant', () => {
    fc.assert(
      fc.property(world, stateFields, fc.integer({ min: -5, max: 60 }), fc.integer({ min: 0, max: HOUR - 1 }), (ctx, fields, hour, sec) => {
        const st = stateOf(ctx, fields);
        const now = T0 + hour * HOUR + sec;
        const want = JSON.stringify(positionMetrics(st, ctx, now));
        expect(positionMetricsJson(st, ctx, now, pastBasis(st))).toBe(want);
        // the basis is reused across instants: valuing again gives the same text
        const b = pastBasis(st);
        positionMetricsJson(st, ctx, now + HOUR, b);
        expect(positionMetricsJson(st, ctx, now, b)).toBe(want);
      }),
      { numRuns: 2000, seed: 34 },
    );
  });
});
