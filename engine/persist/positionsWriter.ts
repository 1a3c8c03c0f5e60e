// Writes the positions table (DESIGN §3): every position's replayed state valued at its vault's
// latest snapshot — the columns the position items computed at publish (on the compute pool,
// engine/positions/positionItems.ts) carry — replaced whole on every recompute.
import type { World } from '../../model/world.js';
import { positionItemsInThread, unpackRows, type PositionItems, type PositionRow, type PositionsOutput } from '../positions/positionItems.js';
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
  const out = await positionRows(store, world, (p) => p + 1);
  for (let p = 0; p < world.walletIndex.positions; p++) {
    const r = rows[p];
    if (r) out.push(p, r);
  }
  let skippedRows = 0;
  for (const s of items?.skipped.values() ?? []) skippedRows += s.rows;
  return { rows: out.close(), skippedRows };
}

/**
 * writePositions without the clear, for the positions `outputs` computed (with the table's
 * columns) over `world`: a recompute in passes writes each pass's, whose world holds the pass's
 * events alone, and names position p by `id(p)` (its id among all events' positions).
 */
export async function appendPositionRows(
  store: Store,
  world: World,
  outputs: readonly PositionsOutput[],
  id: (p: number) => number,
): Promise<{ rows: number; skippedRows: number }> {
  const out = await positionRows(store, world, id);
  let skippedRows = 0;
  for (const o of outputs) {
    if (o.rows === null) throw new Error('appendPositionRows: the positions were computed without the table');
    const rows = unpackRows(o.rows);
    o.list.forEach((p, j) => {
      const r = rows[j];
      if (r) out.push(p, r);
    });
    for (const [, s] of o.skipped) skippedRows += s.rows;
  }
  return { rows: out.close(), skippedRows };
}

/** Rows into the positions table: position p's id (`id(p)`), wallet, vault, its columns and its vault's latest snapshot time. */
async function positionRows(
  store: Store,
  world: World,
  id: (p: number) => number,
): Promise<{ push(p: number, r: NonNullable<PositionRow>): void; close(): number }> {
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
  return {
    push(p, r) {
      const vaultId = vaults[x.posVault[p]!]!;
      if (!now.has(vaultId)) {
        const ctx = positionContext(world, vaultId);
        now.set(vaultId, ctx ? positionNow(ctx) : null);
      }
      loader.push([id(p), wallets[x.posWallet[p]!]!, vaultId, ...r, now.get(vaultId)!]);
    },
    close() {
      loader.close();
      return loader.rows;
    },
  };
}
