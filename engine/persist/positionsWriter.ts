// Writes the positions table (DESIGN §3): every position's replayed state valued at its vault's
// latest snapshot — the columns the position items computed at publish (on the compute pool,
// engine/positions/positionItems.ts) carry — replaced whole on every recompute.
import type { World } from '../../model/world.js';
import { positionItemsInThread, type PositionItems } from '../positions/positionItems.js';
import { positionNow } from '../positions/positionMetrics.js';
import { positionContext } from '../publish/walletIndex.js';
import { createChunkLoader } from '../../store/chunkLoader.js';
import { clearPositions } from '../../store/derived.js';
import type { Store } from '../../store/store.js';

/** Replace the positions table with every valued position of `world`. */
export async function writePositions(store: Store, world: World): Promise<{ rows: number; skippedRows: number }> {
  const items = world.positionItems as PositionItems | null;
  const rows = items?.rows ?? positionItemsInThread(world, true).rows!;
  await clearPositions(store);
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
  const x = world.walletIndex;
  const vaults = world.events.dict.vaults.values;
  const wallets = world.events.dict.wallets.values;
  const now = new Map<string, number | null>();
  let skippedRows = 0;
  for (let p = 0; p < x.positions; p++) {
    const r = rows[p];
    if (!r) continue;
    const vaultId = vaults[x.posVault[p]!]!;
    if (!now.has(vaultId)) {
      const ctx = positionContext(world, vaultId);
      now.set(vaultId, ctx ? positionNow(ctx) : null);
    }
    loader.push([p + 1, wallets[x.posWallet[p]!]!, vaultId, ...r, now.get(vaultId)!]);
  }
  loader.close();
  for (const s of items?.skipped.values() ?? []) skippedRows += s.rows;
  return { rows: loader.rows, skippedRows };
}
