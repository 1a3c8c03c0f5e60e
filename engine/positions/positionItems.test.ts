// Position items (computed at publish) are exactly what a request used to build: for every
// position, replay + positionMetrics valued at its vault's latest snapshot, serialized as the
// API item (oracle: that computation, position by position); the same bytes in-thread and on
// the real piscina pool, whatever the split into ranges.
import { afterAll, describe, expect, it } from 'vitest';
import { demoWorld } from '../../test/helpers/demoSnapshot.js';
import { testCommon } from '../../test/helpers/common.js';
import { createComputePool } from '../pool/computePool.js';
import { positionContext, positionRows } from '../publish/walletIndex.js';
import { positionMetrics, positionNow } from './positionMetrics.js';
import { isPositionOpen, replayPosition } from './replayPosition.js';
import {
  computePositions,
  ENABLED,
  HIDDEN,
  itemBytes,
  mergePositions,
  OPEN,
  positionItemsInThread,
  positionsInput,
  positionsShared,
  SKIPPED,
  VALUED,
} from './positionItems.js';

const world = demoWorld({ seed: 3, now: Date.UTC(2026, 0, 15) / 1000, vaults: null, wallets: 60, days: 30 });
const pool = createComputePool(testCommon(), { threads: 2 });
afterAll(() => pool.close());

describe('position items', () => {
  it('equal replaying and valuing each position (oracle), flags included', () => {
    const items = positionItemsInThread(world, true);
    const x = world.walletIndex;
    expect(items.positions).toBe(x.positions);
    expect(x.positions).toBeGreaterThan(50);
    let open = 0;
    for (let p = 0; p < x.positions; p++) {
      const vaultId = world.events.dict.vaults.values[x.posVault[p]!]!;
      const v = world.vaults.get(vaultId)!;
      const ctx = positionContext(world, vaultId)!;
      const now = positionNow(ctx);
      const f = items.flags[p]!;
      expect(Boolean(f & ENABLED), `p${p}`).toBe(v.visibility !== 'disabled');
      expect(Boolean(f & HIDDEN)).toBe(v.visibility === 'hidden');
      expect(Boolean(f & VALUED)).toBe(now !== null);
      if (now === null) continue;
      const st = replayPosition(positionRows(world, p), ctx);
      const wallet = world.events.dict.wallets.values[x.posWallet[p]!]!;
      const item = {
        vault_id: vaultId,
        wallet_address: wallet,
        numeraire_token: { address: v.numeraire_address, decimals: v.numeraire_decimals, symbol: v.numeraire_symbol },
        metrics: positionMetrics(st, ctx, now),
      };
      expect(itemBytes(items, p).toString()).toBe(JSON.stringify(item));
      expect(Boolean(f & OPEN)).toBe(isPositionOpen(st));
      expect(Boolean(f & SKIPPED)).toBe(st.skipped > 0);
      const m = item.metrics;
      expect(items.rows![p]).toEqual([
        m.shares_owned,
        m.cost_basis.native,
        m.cost_basis.usd,
        m.pnl.realized.native,
        m.pnl.realized.usd,
        m.pending_deposit_assets.native,
        m.pending_redeem_shares,
      ]);
      if (f & OPEN) open++;
    }
    expect(open).toBeGreaterThan(10);
  });

  it('the pool and any split into ranges give the same bytes as one in-thread run', async () => {
    const one = positionItemsInThread(world);
    const n = world.walletIndex.positions;
    const range = (a: number, b: number) => Int32Array.from({ length: b - a }, (_, k) => a + k);
    for (const cuts of [
      [0, n],
      [0, 1, n],
      [0, Math.floor(n / 3), Math.floor((2 * n) / 3), n],
    ]) {
      const outputs = await Promise.all(cuts.slice(0, -1).map((from, k) => pool.positions(positionsInput(world, range(from, cuts[k + 1]!), false))));
      const merged = mergePositions(n, outputs.reverse());
      expect(Buffer.from(merged.json).equals(Buffer.from(one.json))).toBe(true);
      expect(merged.offsets).toEqual(one.offsets);
      expect(merged.flags).toEqual(one.flags);
      expect([...merged.skipped]).toEqual([...one.skipped]);
      // the table's columns, packed by the workers and unpacked here, equal the in-thread ones
      const shared = positionsShared(world, false);
      const tables = await Promise.all(
        cuts.slice(0, -1).map((from, k) => pool.positions(positionsInput(world, range(from, cuts[k + 1]!), true, false, shared))),
      );
      expect(mergePositions(n, tables).rows).toEqual(positionItemsInThread(world, true).rows);
    }
    // and a partial computation merged over the previous items: the odd positions recomputed
    const odd = Int32Array.from({ length: Math.floor(n / 2) }, (_, k) => 2 * k + 1);
    const over = mergePositions(n, [computePositions(positionsInput(world, odd, false))], one);
    expect(Buffer.from(over.json).equals(Buffer.from(one.json))).toBe(true);
    expect(over.flags).toEqual(one.flags);
  });
});
