// Writes the positions table (DESIGN §3): every position's replayed state valued at its
// vault's latest snapshot, replaced whole on every recompute.
import type { World } from '../../model/world.js';
import { positionContext, type WalletIndex } from '../publish/walletIndex.js';
import { positionMetrics, positionNow } from '../positions/positionMetrics.js';
import { replayPosition } from '../positions/replayPosition.js';
import { createChunkLoader } from '../../store/chunkLoader.js';
import type { Store } from '../../store/store.js';

/** Replace the positions table with every position's replayed state valued at its vault's latest snapshot. */
export async function writePositions(store: Store, world: World, index: WalletIndex): Promise<{ rows: number; skippedRows: number }> {
  await store.run('derived.positions.clear', 'DELETE FROM positions');
  const loader = await createChunkLoader(store, 'positions', [
    'bigint',
    'varchar',
    'varchar',
    'varchar',
    'varchar',
    'varchar',
    'varchar',
    'varchar',
    'varchar',
    'varchar',
    'timestamp',
  ]);
  let skippedRows = 0;
  for (const list of index.positions.values()) {
    for (const p of list) {
      const ctx = positionContext(world, p.vault_id);
      const now = ctx ? positionNow(ctx) : null;
      if (!ctx || now === null) continue;
      const state = replayPosition(p.rows, ctx);
      skippedRows += state.skipped;
      const m = positionMetrics(state, ctx, now);
      loader.push([
        p.position_id,
        p.wallet,
        p.vault_id,
        m.shares_owned,
        m.cost_basis.native,
        m.cost_basis.usd,
        m.pnl.realized.native,
        m.pnl.realized.usd,
        m.pending_deposit_assets.native,
        m.pending_redeem_shares,
        now,
      ]);
    }
  }
  loader.close();
  return { rows: loader.rows, skippedRows };
}

