import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { E18, HOUR, oracleSeries, T0, vaultArb, type WorldVault } from '../../test/helpers/seriesWorld.js';
import type { VaultSeries } from '../../model/world.js';
import type { SnapshotRow } from '../../model/rows.js';
import { computeUnitPrices } from './unitPrices.js';
import { appendSnapshot, createVaultSeries } from './vaultSeries.js';

function seriesOf(v: Pick<WorldVault, 'vault_id' | 'numeraire_decimals' | 'vault_type' | 'rows'>): VaultSeries {
  const s = createVaultSeries(v, 4);
  for (const r of v.rows) appendSnapshot(s, r);
  return s;
}

function rows(vault_id: string, points: [assets: bigint, supply: bigint, published?: bigint | null][]): SnapshotRow[] {
  return points.map(([a, s, p], k) => ({ vault_id, ts: T0 + k * HOUR, block_number: k, total_assets: a, total_supply: s, unit_price: p ?? null }));
}

const prices = (s: VaultSeries) => Array.from({ length: s.length }, (_, i) => s.unit_price.get(i));

describe('computeUnitPrices', () => {
  it('supply 0 at the start is 1, and a drop to 0 mid-way keeps the previous price', () => {
    const s = seriesOf({
      vault_id: 'v',
      numeraire_decimals: 6,
      vault_type: 'morpho_v1',
      rows: rows('v', [
        [0n, 0n],
        [1_050_000n, E18], // 1.05 USDC per share
        [0n, 0n],
        [3_300_000n, 3n * E18],
      ]),
    });
    computeUnitPrices(s);
    expect(prices(s)).toEqual([E18, 1_050_000_000_000_000_000n, 1_050_000_000_000_000_000n, 1_100_000_000_000_000_000n]);
    expect(Array.from(s.unit_price_f.subarray(0, 4))).toEqual([1, 1.05, 1.05, 1.1]);
  });

  it('truncates at 18 digits instead of rounding', () => {
    const s = seriesOf({ vault_id: 'v', numeraire_decimals: 18, vault_type: 'morpho_v2', rows: rows('v', [[2n * E18, 3n * E18]]) });
    computeUnitPrices(s);
    expect(s.unit_price.get(0)).toBe(666_666_666_666_666_666n);
  });

  it('Aera: the published price as-is, else the previous one, else 1', () => {
    const s = seriesOf({
      vault_id: 'a',
      numeraire_decimals: 6,
      vault_type: 'aera_v3',
      rows: rows('a', [
        [5n, 5n, null],
        [5n, 5n, 1_234_567_890_123_456_789n],
        [999n, 1n, 0n],
        [999n, 1n, -3n],
        [1n, 0n, 2n * E18],
      ]),
    });
    computeUnitPrices(s);
    expect(prices(s)).toEqual([E18, 1_234_567_890_123_456_789n, 1_234_567_890_123_456_789n, 1_234_567_890_123_456_789n, 2n * E18]);
  });

  it('falls back to bigint beyond the fast path: huge prices and numeraires above 36 decimals', () => {
    // 1,000 tokens over 10 base units of shares: a quotient of 10^38 (above the fast path's 2^62)
    const big = seriesOf({ vault_id: 'b', numeraire_decimals: 18, vault_type: 'symbiotic', rows: rows('b', [[1000n * E18, 10n]]) });
    computeUnitPrices(big);
    expect(big.unit_price.get(0)).toBe(10n ** 38n);
    expect(big.unit_price_f[0]).toBe(1e20);
    // 0.001 of a 40-decimal token per share
    const wide = seriesOf({ vault_id: 'w', numeraire_decimals: 40, vault_type: 'morpho_v1', rows: rows('w', [[10n ** 37n, E18]]) });
    computeUnitPrices(wide);
    expect(wide.unit_price.get(0)).toBe(10n ** 15n);
  });

  it('recomputing from an index gives what a full pass gives', () => {
    fc.assert(
      fc.property(vaultArb(1), fc.nat(), (v, cut) => {
        const full = seriesOf(v);
        computeUnitPrices(full);
        const part = seriesOf(v);
        const from = part.length === 0 ? 0 : cut % part.length;
        computeUnitPrices(part);
        for (let i = from; i < part.length; i++) part.unit_price.set(i, 12345n);
        computeUnitPrices(part, from);
        expect(prices(part)).toEqual(prices(full));
      }),
      { numRuns: 60 },
    );
  });

  it('matches the bigint oracle on random vault histories', () => {
    fc.assert(
      fc.property(vaultArb(1), (v) => {
        const s = seriesOf(v);
        computeUnitPrices(s);
        const oracle = oracleSeries(v).points;
        expect(prices(s)).toEqual(oracle.map((p) => p.unit_price));
        expect(Array.from(s.unit_price_f.subarray(0, s.length))).toEqual(oracle.map((p) => Number(p.unit_price) / 1e18));
      }),
      { numRuns: 150 },
    );
  });
});
