import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closeApy, DAY, E18, HOUR, oracleApy, T0, vaultArb } from '../../test/helpers/seriesWorld.js';
import type { VaultSeries } from '../../model/world.js';
import { APY_WINDOW_DAYS, apyAt, apyColumn, computeApy, keepsApy } from './apyWindows.js';
import { computeUnitPrices } from './unitPrices.js';
import { appendSnapshot, createVaultSeries } from './vaultSeries.js';

/** A morpho-style series from (ts, price) pairs: supply 1 share, assets = price (18 decimals). */
function priced(points: [ts: number, price: bigint][]): VaultSeries {
  const s = createVaultSeries({ vault_id: 'v', numeraire_decimals: 18, vault_type: 'morpho_v1' }, points.length);
  for (const [ts, price] of points) appendSnapshot(s, { ts, total_assets: price, total_supply: E18, unit_price: null });
  computeUnitPrices(s);
  computeApy(s);
  return s;
}

const col = (s: VaultSeries, days: 7 | 30 | 90) => Array.from(apyColumn(s, days).subarray(0, s.length));

describe('computeApy', () => {
  it('a vault younger than 90 days has no 90-day APY, and no 7-day APY in its first week', () => {
    const hours = 40 * 24;
    const s = priced(Array.from({ length: hours }, (_, k) => [T0 + k * HOUR, E18 + BigInt(k) * 10n ** 12n]));
    expect(col(s, 90).every(Number.isNaN)).toBe(true);
    const a7 = col(s, 7);
    expect(a7.slice(0, 7 * 24).every(Number.isNaN)).toBe(true);
    expect(a7.slice(7 * 24).every((x) => Number.isFinite(x) && x > 0)).toBe(true);
    expect(col(s, 30)[30 * 24 - 1]).toBeNaN();
    expect(col(s, 30)[30 * 24]).not.toBeNaN();
  });

  it('is (p_t / p_{t−N})^(365/N) − 1', () => {
    const s = priced([
      [T0, E18],
      [T0 + 7 * DAY, 1_010_000_000_000_000_000n],
    ]);
    expect(closeApy(s.apy_7d[1]!, 1.01 ** (365 / 7) - 1, 1e-13, 0)).toBe(true);
    expect(s.apy_7d[0]).toBeNaN();
  });

  it('a snapshot exactly N days back is the start of the window, for every N', () => {
    // daily snapshots, price +1 % a day
    const s = priced(Array.from({ length: 100 }, (_, d) => [T0 + d * DAY, BigInt(Math.round(1e6 * 1.01 ** d)) * 10n ** 12n]));
    for (const days of APY_WINDOW_DAYS) {
      const i = days + 3;
      const ratio = s.unit_price_f[i]! / s.unit_price_f[3]!;
      expect(closeApy(apyColumn(s, days)[i]!, ratio ** (365 / days) - 1, 1e-13, 0)).toBe(true);
      expect(apyColumn(s, days)[days - 1]).toBeNaN();
    }
  });

  it('across a gap, the window reads the last snapshot before it (as-of)', () => {
    // snapshots at day 0, day 1, then nothing until day 9
    const s = priced([
      [T0, E18],
      [T0 + DAY, 2n * E18],
      [T0 + 9 * DAY, 4n * E18],
    ]);
    // t − 7 days = day 2 → as-of is day 1 (price 2): ratio 2
    expect(closeApy(s.apy_7d[2]!, 2 ** (365 / 7) - 1, 1e-13, 0)).toBe(true);
  });

  it('an unknown or zero starting price is null (NaN), never 0', () => {
    const s = createVaultSeries({ vault_id: 'z', numeraire_decimals: 18, vault_type: 'morpho_v1' }, 4);
    appendSnapshot(s, { ts: T0, total_assets: 0n, total_supply: E18, unit_price: null }); // price 0
    appendSnapshot(s, { ts: T0 + 8 * DAY, total_assets: E18, total_supply: E18, unit_price: null });
    computeUnitPrices(s);
    computeApy(s);
    expect(s.unit_price_f[0]).toBe(0);
    expect(s.apy_7d[1]).toBeNaN();
    expect(APY_WINDOW_DAYS).toEqual([7, 30, 90]);
  });

  it('matches the pow oracle on random histories, null exactly when the window lacks history', () => {
    fc.assert(
      fc.property(vaultArb(1), (v) => {
        const s = createVaultSeries(v, 1);
        for (const r of v.rows) appendSnapshot(s, r);
        computeUnitPrices(s);
        computeApy(s);
        const ts = Array.from(s.ts.subarray(0, s.length));
        const p = Array.from(s.unit_price_f.subarray(0, s.length));
        for (const days of APY_WINDOW_DAYS) {
          const want = oracleApy(ts, p, days);
          const got = col(s, days);
          got.forEach((g, i) => {
            if (!closeApy(g, want[i]!)) expect.fail(`apy_${days}d[${i}] = ${g}, oracle ${want[i]}`);
            const history = ts[0]! <= ts[i]! - days * DAY;
            if (history && p.every((x) => x > 0)) expect(Number.isNaN(g)).toBe(false);
            if (!history) expect(Number.isNaN(g)).toBe(true);
          });
        }
      }),
      { numRuns: 150 },
    );
  });

  it('an incremental recompute from any index equals the full pass bit for bit', () => {
    fc.assert(
      fc.property(vaultArb(1), fc.nat(), (v, cut) => {
        const s = createVaultSeries(v, 1);
        for (const r of v.rows) appendSnapshot(s, r);
        fc.pre(s.length > 0);
        computeUnitPrices(s);
        computeApy(s);
        const full = APY_WINDOW_DAYS.map((d) => col(s, d));
        const from = cut % s.length;
        for (const d of APY_WINDOW_DAYS) apyColumn(s, d).fill(-7, from);
        computeApy(s, from);
        expect(APY_WINDOW_DAYS.map((d) => col(s, d))).toEqual(full);
      }),
      { numRuns: 100 },
    );
  });

  it("a series that keeps no APY columns computes each point's on read, bit for bit", () => {
    fc.assert(
      fc.property(vaultArb(1), (v) => {
        const kept = createVaultSeries(v, 1);
        const onRead = createVaultSeries(v, 1, { apy: false });
        for (const r of v.rows) {
          appendSnapshot(kept, r);
          appendSnapshot(onRead, r); // grows past its capacity as the kept one does
        }
        for (const s of [kept, onRead]) {
          computeUnitPrices(s);
          computeApy(s);
        }
        expect(keepsApy(kept)).toBe(true);
        expect(keepsApy(onRead)).toBe(false);
        expect([onRead.apy_7d.length, onRead.apy_30d.length, onRead.apy_90d.length]).toEqual([0, 0, 0]);
        for (const days of APY_WINDOW_DAYS) {
          const want = col(kept, days);
          for (let i = 0; i < onRead.length; i++) {
            const got = apyAt(onRead, days, i);
            if (!Object.is(got, want[i]!)) expect.fail(`apy_${days}d[${i}] on read ${got}, kept ${want[i]}`);
            expect(apyAt(kept, days, i)).toBe(want[i]!);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
