import { describe, expect, it } from 'vitest';
import { E18, HOUR, T0 } from '../../test/helpers/seriesWorld.js';
import { computeApy } from './apyWindows.js';
import { computeUnitPrices } from './unitPrices.js';
import { appendSnapshot, capacityOf, createVaultSeries } from './vaultSeries.js';

const meta = { vault_id: 'v', numeraire_decimals: 18, vault_type: 'morpho_v1' };
const row = (h: number, assets = E18 + BigInt(h)) => ({ ts: T0 + h * HOUR, total_assets: assets, total_supply: E18, unit_price: null });

describe('appendSnapshot', () => {
  it('appends in place while there is room, then doubles, keeping every value', () => {
    const s = createVaultSeries(meta, 3);
    const first = s.ts;
    for (let h = 0; h < 3; h++) expect(appendSnapshot(s, row(h))).toBe(h);
    expect(s.ts).toBe(first);
    expect(appendSnapshot(s, row(3))).toBe(3);
    expect(capacityOf(s)).toBe(6);
    expect(s.ts).not.toBe(first);
    expect(Array.from(s.ts.subarray(0, 4))).toEqual([0, 1, 2, 3].map((h) => T0 + h * HOUR));
    expect(s.total_assets.get(2)).toBe(E18 + 2n);
    expect(s.ts.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it('drops a duplicate hour (the stored row wins) and counts a corrupt row as skipped', () => {
    const s = createVaultSeries(meta, 4);
    appendSnapshot(s, row(0));
    expect(appendSnapshot(s, row(0, 5n))).toBe(-1);
    expect(s.total_assets.get(0)).toBe(E18);
    expect(appendSnapshot(s, { ...row(1), total_supply: -1n })).toBe(-1);
    expect(appendSnapshot(s, { ...row(1), total_assets: -1n })).toBe(-1);
    expect(s.skipped).toBe(2);
    expect(s.length).toBe(1);
  });

  it('inserts a late hour in order and returns where the derived values went stale', () => {
    const incremental = createVaultSeries(meta, 2);
    for (const h of [0, 1, 3, 4]) appendSnapshot(incremental, row(h));
    computeUnitPrices(incremental);
    computeApy(incremental);
    const from = appendSnapshot(incremental, row(2, 7n * E18));
    expect(from).toBe(2);
    computeUnitPrices(incremental, from);
    computeApy(incremental, from);

    const full = createVaultSeries(meta, 8);
    for (const h of [0, 1, 2, 3, 4]) appendSnapshot(full, row(h, h === 2 ? 7n * E18 : undefined));
    computeUnitPrices(full);
    computeApy(full);
    expect(Array.from(incremental.ts.subarray(0, 5))).toEqual(Array.from(full.ts.subarray(0, 5)));
    for (let i = 0; i < 5; i++) expect(incremental.unit_price.get(i)).toBe(full.unit_price.get(i));
    expect(incremental.unit_price.get(2)).toBe(7n * E18);
  });

  it('keeps the published price only for vaults that publish one', () => {
    const aera = createVaultSeries({ ...meta, vault_type: 'aera_v3' }, 1);
    const morpho = createVaultSeries(meta, 1);
    appendSnapshot(aera, { ...row(0), unit_price: 3n });
    appendSnapshot(morpho, { ...row(0), unit_price: 3n });
    expect(aera.publishes_unit_price).toBe(true);
    expect(aera.published_price.get(0)).toBe(3n);
    expect(morpho.published_price.get(0)).toBe(0n);
  });
});
