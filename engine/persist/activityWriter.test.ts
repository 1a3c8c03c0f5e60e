// The activity view (activity_deltas ⋈ vault_events, store/migrations.ts v5) reads back every
// row exactly as the API's activity row says it (engine/activity/activityRows.ts): same deltas,
// type, hashes and request hash; and its SQL formatting macro is formatUnits for any value.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../engine.js';
import { activityRowAt } from '../activity/activityRows.js';
import { positionContext } from '../publish/walletIndex.js';
import { eventRowId, vaultIdOf } from '../../model/events.js';
import { formatUnits } from '../../model/format/numbers.js';
import { createStore, type Store } from '../../store/store.js';
import { createDemoWorld } from '../../jobs/demo/createDemoWorld.js';
import { tempDir, testCommon } from '../../test/helpers/common.js';
import { writeActivity } from './activityWriter.js';
import { join } from 'node:path';

let store: Store;
const common = testCommon();
beforeAll(async () => {
  const path = join(tempDir(), 'activity.duckdb');
  await createDemoWorld(common, { path, params: { seed: 5, now: Date.UTC(2026, 0, 10) / 1000, vaults: null, wallets: 30, days: 20 }, force: false });
  store = await createStore(common, { path });
});
afterAll(async () => {
  await store?.close();
});

describe('activity view', () => {
  it('vaultd_units(x, d) is formatUnits(x, d) (oracle), NULL stays NULL', async () => {
    await fc.assert(
      // the ends of HUGEINT are named: -2^127 has no absolute value in HUGEINT
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.option(fc.oneof(fc.constantFrom(-(1n << 127n), (1n << 127n) - 1n), fc.bigInt({ min: -(1n << 127n), max: (1n << 127n) - 1n })), { nil: null }),
            fc.integer({ min: 0, max: 36 }),
          ),
          { minLength: 1, maxLength: 50 },
        ),
        async (cases) => {
          // a quoted literal: SQL reads -170…728::HUGEINT as -(170…728::HUGEINT), past HUGEINT
          const sql = cases.map(([x, d], i) => `SELECT ${i} AS i, vaultd_units(${x === null ? 'NULL' : `'${x}'`}::HUGEINT, ${d}) AS s`).join(' UNION ALL ');
          const rows = await store.rows<{ i: number; s: string | null }>('test.units', `SELECT i, s FROM (${sql}) ORDER BY i`);
          expect(rows.map((r) => r.s)).toEqual(cases.map(([x, d]) => (x === null ? null : formatUnits(x, d))));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('after a recompute, every row equals the API activity row of that event', async () => {
    const engine = createEngine(common, (work) => work(store));
    await engine.recomputeFull();
    const world = engine.world()!;
    const written = await writeActivity(store, world);
    const rows = await store.rows<Record<string, unknown>>('test.activity', 'SELECT * FROM activity');
    expect(rows.length).toBe(written);
    expect(written).toBeGreaterThan(100);
    const byId = new Map(rows.map((r) => [r.row_id as string, r]));
    let checked = 0;
    for (let i = 0; i < world.events.length; i++) {
      const ctx = positionContext(world, vaultIdOf(world.events, i));
      if (!ctx) continue;
      const api = activityRowAt(world.events, i, ctx);
      const r = byId.get(eventRowId(world.events, i))!;
      expect(r, api.id).toBeDefined();
      expect({
        type: r.type,
        vault_id: r.vault_id,
        block_timestamp: Number(r.block_timestamp),
        block_number: Number(r.block_number),
        block_hash: r.block_hash,
        tx_hash: r.tx_hash,
        log_index: r.log_index,
        request_hash: r.request_hash,
        shares_delta: r.shares_delta,
        assets_delta: r.assets_delta,
      }).toEqual({
        type: api.type,
        vault_id: api.vault_id,
        block_timestamp: api.block_timestamp,
        block_number: api.block_number,
        block_hash: api.block_hash,
        tx_hash: api.tx_hash,
        log_index: api.log_index,
        request_hash: api.request_hash,
        shares_delta: api.shares_delta,
        assets_delta: api.assets_delta.native,
      });
      checked++;
    }
    expect(checked).toBe(written);
  });
});
