import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCommon } from '../../test/helpers/common.js';
import { E18, HOUR, oracleSeries, T0, worldArb, writeSnapshots, writeWorld, type Layout, type WorldVault } from '../../test/helpers/seriesWorld.js';
import type { VaultSeries } from '../../model/world.js';
import { createStore, type Store } from '../../store/store.js';
import { capacityOf } from '../series/vaultSeries.js';
import { loadVaultSeries, type LoadSeriesStats } from './loadSeries.js';

const common = testCommon();

async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await createStore(common, { path: ':memory:', threads: 1, memoryLimit: '512MB' });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The loaded series must equal the oracle's view of the raw rows. */
function expectOracle(series: VaultSeries | undefined, v: WorldVault): void {
  const { points, skipped } = oracleSeries(v);
  expect(series).toBeDefined();
  const s = series!;
  expect(s.length).toBe(points.length);
  expect(s.skipped).toBe(skipped);
  expect(Array.from(s.ts.subarray(0, s.length))).toEqual(points.map((p) => p.ts));
  for (let i = 0; i < s.length; i++) {
    expect(s.total_assets.get(i)).toBe(points[i]!.total_assets);
    expect(s.total_supply.get(i)).toBe(points[i]!.total_supply);
    if (s.publishes_unit_price) expect(s.published_price.get(i)).toBe(points[i]!.published);
  }
}

const vault = (
  id: number,
  rows: [h: number, assets: bigint, supply: bigint, price?: bigint | null][],
  type: WorldVault['vault_type'] = 'morpho_v1',
): WorldVault => {
  const vault_id = `1:0x${id.toString(16).padStart(40, '0')}`;
  return {
    vault_id,
    numeraire_decimals: 6,
    vault_type: type,
    rows: rows.map(([h, a, s, p], k) => ({ vault_id, ts: T0 + h * HOUR, block_number: k, total_assets: a, total_supply: s, unit_price: p ?? null })),
  };
};

describe('loadVaultSeries', () => {
  let store: Store;
  beforeAll(async () => {
    store = await createStore(common, { path: ':memory:', threads: 1, memoryLimit: '512MB' });
  });
  afterAll(async () => store.close());

  it('copies 128-bit amounts byte for byte: beyond 2^64, up to HUGEINT max, in ascending ts', async () => {
    const big = (1n << 127n) - 1n;
    const v = vault(1, [
      [2, big, (1n << 64n) + 5n],
      [0, 1n, 2n],
      [1, (1n << 64n) - 1n, 1n << 100n],
    ]);
    await writeWorld(store, [v]);
    const out = await loadVaultSeries(store, [v]);
    expectOracle(out.get(v.vault_id), v);
    expect(out.get(v.vault_id)!.total_assets.get(2)).toBe(big);
  });

  it('skips corrupt rows (counted), drops duplicate hours (lowest rowid wins), sorts a backfill', async () => {
    await store.run('t', 'DELETE FROM vault_snapshots; DELETE FROM vaults');
    const v = vault(
      2,
      [
        [5, 50n, E18, 7n],
        [6, 60n, E18, null],
        [0, 10n, E18, 1n], // backfilled after newer rows
        [1, -1n, E18, 1n], // corrupt: negative assets
        [2, 20n, -3n, 1n], // corrupt: negative supply
        [0, 99n, E18, 9n], // duplicate of hour 0: the first row stays
      ],
      'aera_v3',
    );
    await writeWorld(store, [v]);
    const s = (await loadVaultSeries(store, [v])).get(v.vault_id)!;
    expectOracle(s, v);
    expect(s.skipped).toBe(2);
    expect(Array.from(s.ts.subarray(0, s.length))).toEqual([0, 5, 6].map((h) => T0 + h * HOUR));
    expect(s.total_assets.get(0)).toBe(10n);
    expect(s.published_price.get(2)).toBe(0n);
  });

  it('allocates staggered spare capacity, ignores vaults not asked for, and gives empty series for vaults without rows', async () => {
    await store.run('t', 'DELETE FROM vault_snapshots; DELETE FROM vaults');
    const a = vault(3, [[0, 1n, 1n]]);
    const b = vault(4, [[0, 2n, 2n]]);
    await writeWorld(store, [a, b]);
    const none = { vault_id: 'nothing', numeraire_decimals: 6, vault_type: 'symbiotic' };
    const out = await loadVaultSeries(store, [a, none], { capacityHours: 10 });
    expect([...out.keys()]).toEqual([a.vault_id, 'nothing']);
    expect(capacityOf(out.get(a.vault_id)!)).toBe(1 + 10);
    expect(capacityOf(out.get('nothing')!)).toBe(0 + 10 + 1);
    expect(out.get('nothing')!.length).toBe(0);
  });

  it("reuses a retired generation's buffers when they have room", async () => {
    await store.run('t', 'DELETE FROM vault_snapshots; DELETE FROM vaults');
    const a = vault(5, [
      [0, 1n, 1n],
      [1, 2n, 1n],
    ]);
    await writeWorld(store, [a]);
    const first = await loadVaultSeries(store, [a]);
    const second = await loadVaultSeries(store, [a], { reuse: first });
    expect(second.get(a.vault_id)!.ts).toBe(first.get(a.vault_id)!.ts);
    expectOracle(second.get(a.vault_id), a);
  });
});

describe('loadVaultSeries layouts', () => {
  it('reads clean 2,048-row blocks by position and only the interleaved tail through the join', async () => {
    // three vaults of 3,000 hours written one after the other, then 150 hours appended live
    const mk = (id: number, from: number, to: number) =>
      vault(
        id,
        Array.from({ length: to - from }, (_, k) => [from + k, BigInt(id * 1_000_000 + from + k), E18] as [number, bigint, bigint]),
      );
    const world = [1, 2, 3].map((id) => mk(id, 0, 3000));
    const tail = [1, 2, 3].map((id) => mk(id, 3000, 3150));
    await withStore(async (store) => {
      await writeWorld(store, world, 'clustered');
      await writeSnapshots(store, tail, 'interleaved');
      let stats: LoadSeriesStats | undefined;
      const out = await loadVaultSeries(store, world, { onStats: (s) => (stats = s) });
      const full = world.map((v, k) => ({ ...v, rows: [...v.rows, ...tail[k]!.rows] }));
      for (const v of full) expectOracle(out.get(v.vault_id), v);
      expect(stats!.positionalRows + stats!.mixedRows).toBe(3 * 3150);
      expect(stats!.positionalRows).toBeGreaterThan(3 * 3000 - 2 * 2048);
      expect(stats!.mixedRows).toBeGreaterThanOrEqual(450);
      expect(stats!.droppedRows).toBe(0);
    });
  });
});

describe('loadVaultSeries on random worlds', () => {
  for (const layout of ['clustered', 'interleaved', 'clustered-then-interleaved'] as Layout[]) {
    it(`equals the oracle whatever the physical order (${layout})`, async () => {
      await fc.assert(
        fc.asyncProperty(worldArb(5), async (world) =>
          withStore(async (store) => {
            await writeWorld(store, world, layout);
            const out = await loadVaultSeries(store, world);
            for (const v of world) expectOracle(out.get(v.vault_id), v);
          }),
        ),
        { numRuns: 12 },
      );
    });
  }
});
