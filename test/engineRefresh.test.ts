// The engine's incremental refresh picks up what the prices job writes (DESIGN §1, §6.3): new
// hours append, a backfill or a rewritten history reloads that token, a token that was unpriced
// gains a USD TVL, an external TVL source's new reading publishes, and nothing new publishes
// nothing. Every check compares with a full recompute of the same database.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../engine/engine.js';
import { priceKey } from '../model/world.js';
import { APY_WINDOW_DAYS, apyAt, keepsApy } from '../engine/series/apyWindows.js';
import type { Snapshot } from '../engine/publish/buildSnapshot.js';
import { createRawWriter } from '../store/rawWriter.js';
import type { PriceRow } from '../model/rows.js';
import { withStore } from '../store/storeHandle.js';
import type { Store } from '../store/store.js';
import { createDemoWorld } from '../jobs/demo/createDemoWorld.js';
import { extendDemoWorld } from '../jobs/demo/extendDemoWorld.js';
import { tempDir, testCommon } from './helpers/common.js';

const common = testCommon();
const NOW = Date.parse('2026-03-01T00:00:00Z') / 1000;
const HOUR = 3600;
let path: string;
let engine: Engine;
const access = <T>(work: (store: Store) => Promise<T>) => withStore(common, { path }, work);

beforeAll(async () => {
  path = join(tempDir('vaultd-refresh-'), 'world.duckdb');
  await createDemoWorld(common, { path, params: { seed: 5, now: NOW, vaults: null, wallets: 60, days: 40 }, force: true });
  // a serving engine (no APY columns: computed on read); the full recomputes it is compared with keep them
  engine = createEngine(common, access, { clock: () => NOW, apyColumns: false });
  await engine.recomputeFull();
});

afterAll(() => undefined);

async function write(rows: PriceRow[], sql?: string): Promise<void> {
  await access(async (store) => {
    if (sql) await store.run('test.sql', sql);
    const writer = await createRawWriter(store, 'dedupe');
    for (const r of rows) writer.sink.price(r);
    await store.transaction('test.prices', () => writer.finish());
  });
}

/** The same database recomputed from scratch: what a refresh must equal. */
async function fullSnapshot(): Promise<Snapshot> {
  const other = createEngine(testCommon(), access, { clock: () => NOW });
  await other.recomputeFull();
  return other.current()!;
}

/** The position items as bytes and flags: a refresh recomputes only some, and must equal all of them recomputed. */
const itemsOf = (s: Snapshot) => {
  const items = s.world.positionItems!;
  return { json: Buffer.from(items.json).toString(), offsets: [...items.offsets], flags: [...items.flags], skipped: [...items.skipped] };
};
const pricesOf = (s: Snapshot) => [...s.world.prices].map(([k, p]) => [k, [...p.ts], p.usd] as const).sort((a, b) => (a[0] < b[0] ? -1 : 1));
const tvlUsd = (s: Snapshot) => [...s.details].map(([id, d]) => [id, d.metrics.tvl.usd]);
/** every vault's latest metrics (APY windows included) and its hourly series' APYs, point by point */
const apysOf = (s: Snapshot) =>
  [...s.world.series].map(([id, v]) => [
    id,
    s.details.get(id)?.metrics,
    APY_WINDOW_DAYS.map((d) => Array.from({ length: v.length }, (_, i) => apyAt(v, d, i))),
  ]);

describe('engine.refresh after the prices job wrote', () => {
  it('nothing new: no publish', async () => {
    const gen = engine.current()!.generation;
    expect(await engine.refresh()).toBeNull();
    expect(engine.current()!.generation).toBe(gen);
  });

  it('appended hours, a rewritten history and a newly priced token all reach the snapshot', async () => {
    const world = engine.world()!;
    const [key, series] = [...world.prices].find(([, p]) => p.ts.length > 100)!;
    const { chain_id, address } = series;
    const last = series.ts[series.ts.length - 1]!;
    const unpriced = world.registry.tokens.find((t) => !world.prices.has(priceKey(t.chain_id, t.address)))!;
    expect(unpriced).toBeDefined();
    const vaultOfUnpriced = world.registry.vaults.find(
      (v) => v.chain_id === unpriced.chain_id && v.numeraire_address.toLowerCase() === unpriced.address.toLowerCase() && v.visibility !== 'disabled',
    )!;
    expect(engine.current()!.details.get(vaultOfUnpriced.vault_id)!.metrics.tvl.usd).toBeNull();

    // 1. two new hours of a priced token
    await write([1, 2].map((i) => ({ chain_id, address, ts: last + i * HOUR, usd: `1.00000${i}`, source: 'test' })));
    expect(await engine.refresh()).not.toBeNull();
    const appended = engine.world()!.prices.get(key)!;
    expect(appended.ts.length).toBe(series.ts.length + 2);
    expect(appended.usd.at(-1)).toBe('1.000002');

    // 2. an older hour rewritten (a feed rescanned after a reorg): the token reloads whole
    const old = appended.ts[10]!;
    await write(
      [{ chain_id, address, ts: old, usd: '7.5', source: 'test' }],
      `DELETE FROM prices WHERE chain_id = ${chain_id} AND address = '${address}' AND epoch(ts) = ${old}`,
    );
    // 3. the unpriced numeraire gains prices for the world's every hour
    const hours: PriceRow[] = [];
    for (let ts = NOW - 40 * 24 * HOUR; ts <= NOW; ts += HOUR)
      hours.push({ chain_id: unpriced.chain_id, address: unpriced.address.toLowerCase(), ts, usd: '0.05', source: 'test' });
    await write(hours);
    expect(await engine.refresh()).not.toBeNull();
    const refreshed = engine.current()!;
    expect(refreshed.world.prices.get(key)!.usd[10]).toBe('7.5');
    expect(refreshed.details.get(vaultOfUnpriced.vault_id)!.metrics.tvl.usd).not.toBeNull();

    const full = await fullSnapshot();
    expect(pricesOf(refreshed)).toEqual(pricesOf(full));
    expect(tvlUsd(refreshed)).toEqual(tvlUsd(full));
    expect(refreshed.tvl.data.tvl.usd).toBe(full.tvl.data.tvl.usd);
    expect(itemsOf(refreshed)).toEqual(itemsOf(full));
  });

  it('a token whose rows were all deleted loses its price', async () => {
    const world = engine.world()!;
    const [key, p] = [...world.prices].find(([, s]) => s.ts.length > 0)!;
    await write([], `DELETE FROM prices WHERE chain_id = ${p.chain_id} AND address = '${p.address}'`);
    expect(await engine.refresh()).not.toBeNull();
    expect(engine.world()!.prices.has(key)).toBe(false);
    const full = await fullSnapshot();
    expect(pricesOf(engine.current()!)).toEqual(pricesOf(full));
    expect(itemsOf(engine.current()!)).toEqual(itemsOf(full));
  });

  it('a new external TVL reading alone publishes, and the failing source keeps its last good value', async () => {
    const before = engine.current()!;
    const sources = before.world.tvlSources;
    expect(sources.length).toBe(2);
    const [good] = sources;
    await access(async (store) => {
      const writer = await createRawWriter(store, 'dedupe');
      writer.sink.tvlSourceValue({ source_id: good!.id, ts: NOW + 60, usd: '123456789.123456', error: null });
      await store.transaction('test.tvl', () => writer.finish());
    });
    expect(await engine.refresh()).not.toBeNull();
    const after = engine.current()!;
    expect(after.generation).toBe(before.generation + 1);
    const row = after.tvl.data.totals.find((t) => t.id === good!.id)!;
    expect(row.tvl.usd).toBe('123456789.123456');
    const failing = after.world.tvlSources.find((s) => s.last_error !== null)!;
    expect(failing.last_good).not.toBeNull();
    expect(after.tvl.partial_errors.length).toBeGreaterThan(0);
  });

  it('new hours with new events: the position items equal a full recompute', async () => {
    const before = engine.current()!;
    const ext = await access((store) => extendDemoWorld(store, NOW + 30 * HOUR));
    expect(ext?.rows.events ?? 0).toBeGreaterThan(0);
    expect(await engine.refresh()).not.toBeNull();
    const after = engine.current()!;
    expect(after.world.walletIndex.positions).toBeGreaterThanOrEqual(before.world.walletIndex.positions);
    expect(itemsOf(after)).not.toEqual(itemsOf(before));
    const full = await fullSnapshot();
    expect(itemsOf(after)).toEqual(itemsOf(full));
    // the new hours' APYs, computed on read by the serving world, equal the kept columns of a full recompute
    expect([...after.world.series.values()].some(keepsApy)).toBe(false);
    expect([...full.world.series.values()].every(keepsApy)).toBe(true);
    expect(apysOf(after)).toEqual(apysOf(full));
  });
});
