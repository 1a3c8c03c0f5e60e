// Writes the positions table (DESIGN §3): every position's replayed state valued at its
// vault's latest snapshot, replaced whole on every recompute.
import type { World } from '../../model/world.js';
import { positionContext, positionRows, type WalletIndex } from '../publish/walletIndex.js';
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
  const vaults = world.events.dict.vaults.values;
  const wallets = world.events.dict.wallets.values;
  for (let p = 0; p < index.positions; p++) {
    {
      const vaultId = vaults[index.posVault[p]!]!;
      const ctx = positionContext(world, vaultId);
      const now = ctx ? positionNow(ctx) : null;
      if (!ctx || now === null) continue;
      const state = replayPosition(positionRows(world, p), ctx);
      skippedRows += state.skipped;
      const m = positionMetrics(state, ctx, now);
      loader.push([
        p + 1,
        wallets[index.posWallet[p]!]!,
        vaultId,
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

