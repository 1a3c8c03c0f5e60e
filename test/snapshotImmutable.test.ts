// A published snapshot is immutable (issue #9): a refresh that appends new hours and new
// events to the live world must not change what a request of the previous generation reads —
// its series lengths, its wallets' rows and activity, or the positions replayed from them,
// even when the old generation replays a wallet only after the refresh.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../engine/engine.js';
import type { Snapshot } from '../engine/publish/buildSnapshot.js';
import { walletPositionList } from '../engine/publish/walletViews.js';
import { itemBytes } from '../engine/positions/positionItems.js';
import { createDemoWorld } from '../jobs/demo/createDemoWorld.js';
import { extendDemoWorld } from '../jobs/demo/extendDemoWorld.js';
import type { Store } from '../store/store.js';
import { withStore } from '../store/storeHandle.js';
import { tempDir, testCommon } from './helpers/common.js';

const common = testCommon();
const NOW = Date.parse('2026-03-01T00:00:00Z') / 1000;
let path: string;
let now = NOW;
let engine: Engine;
const access = <T>(work: (store: Store) => Promise<T>) => withStore(common, { path }, work);

beforeAll(async () => {
  path = join(tempDir('vaultd-immutable-'), 'world.duckdb');
  await createDemoWorld(common, { path, params: { seed: 11, now: NOW, vaults: null, wallets: 40, days: 20 }, force: true });
  engine = createEngine(common, access, { clock: () => now });
  await engine.recomputeFull();
});

/** What a request of this snapshot can read: lengths, last hours, rows, activity. */
function view(s: Snapshot) {
  const series = [...s.world.series].map(([id, v]) => [id, v.length, v.ts[v.length - 1], String(v.unit_price.get(v.length - 1))]);
  const wallets = s.world.events.dict.wallets.values.slice(0, s.wallets.wallets);
  const positions = wallets.map((w) => [w, walletPositionList(s.world, w).map((p) => [p.position_id, p.vault_id, p.rows.to - p.rows.from])]);
  const activity = wallets.map((w, k) => [w, s.wallets.activityStart[k + 1]! - s.wallets.activityStart[k]!]);
  return JSON.stringify({ series, positions, activity, events: s.world.events.length });
}
const replayed = (s: Snapshot, wallet: string) =>
  JSON.stringify(
    walletPositionList(s.world, wallet).map((p) => [
      p.vault_id,
      p.rows.to - p.rows.from,
      s.world.positionItems!.flags[p.position_id - 1],
      itemBytes(s.world.positionItems!, p.position_id - 1).toString(),
    ]),
  );

describe('published snapshots are immutable', () => {
  it('a refresh with new hours and events leaves the previous generation as it was', async () => {
    const old = engine.current()!;
    const before = view(old);
    const eventsBefore = old.world.events.length;
    const wallets = old.world.events.dict.wallets.values.slice(0, old.wallets.wallets);
    const early = wallets.slice(0, 5).map((w) => replayed(old, w));

    now = NOW + 72 * 3600;
    const ext = await access((store) => extendDemoWorld(store, now));
    expect(Object.values(ext?.rows ?? {}).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    await engine.refresh();
    const next = engine.current()!;
    expect(next.generation).toBe(old.generation + 1);
    // the new generation did get new hours and new events (so the check below can fail)
    expect(view(next)).not.toBe(before);
    expect(next.world.events.length).toBeGreaterThan(eventsBefore);

    expect(view(old)).toBe(before);
    expect(wallets.slice(0, 5).map((w) => replayed(old, w))).toEqual(early);
    // a wallet the old generation replays only now sees the old rows, as a fresh engine at that time would
    const late = wallets.slice(5);
    const oldRows = (s: Snapshot, w: string) => JSON.stringify(walletPositionList(s.world, w).map((p) => p.rows.to - p.rows.from));
    const lateOld = late.map((w) => oldRows(old, w));
    const lateNew = late.map((w) => oldRows(next, w));
    expect(lateNew).not.toEqual(lateOld);
    for (const [i, w] of late.entries()) {
      for (const p of walletPositionList(old.world, w)) {
        const { table, idx, from, to } = p.rows;
        for (let k = from; k < to; k++) expect(table.ts[idx[k]!]!).toBeLessThanOrEqual(NOW);
      }
      expect(lateOld[i]).toBe(oldRows(old, w));
    }
  });
});
