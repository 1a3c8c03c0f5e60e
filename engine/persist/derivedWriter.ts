// Writes the derived tables (DESIGN §3) from the computed world: hourly vault metrics and
// current positions and activity rows. Replaced whole on a full recompute; the hourly table
// only gains the new hours on an incremental one.
import { formatUnits, SHARE_DECIMALS, UNIT_PRICE_DECIMALS } from '../../model/format/numbers.js';
import { usdAt } from '../metrics/vaultPoint.js';
import { priceKey, type World } from '../../model/world.js';
import { toActivityRow } from '../activity/activityRows.js';
import { positionContext, type WalletIndex } from '../publish/walletIndex.js';
import { positionMetrics, positionNow } from '../positions/positionMetrics.js';
import { replayPosition } from '../positions/replayPosition.js';
import { createChunkLoader } from '../../store/chunkLoader.js';
import type { Store } from '../../store/store.js';

const nullable = (x: number) => (Number.isFinite(x) ? x : null);

/** Write vault_metrics_hourly rows with ts > afterTs (all rows when afterTs is -Infinity). */
export async function writeVaultMetrics(store: Store, world: World, afterTs = -Infinity): Promise<number> {
  await store.run(
    'derived.metrics.clear',
    Number.isFinite(afterTs) ? 'DELETE FROM vault_metrics_hourly WHERE ts > to_timestamp($1)::TIMESTAMP' : 'DELETE FROM vault_metrics_hourly',
    Number.isFinite(afterTs) ? [afterTs] : [],
  );
  const loader = await createChunkLoader(store, 'vault_metrics_hourly', [
    'varchar',
    'timestamp',
    'varchar',
    'varchar',
    'varchar',
    'varchar',
    'double',
    'double',
    'double',
  ]);
  const row: unknown[] = new Array(9);
  for (const v of world.registry.vaults) {
    const s = world.series.get(v.vault_id);
    if (!s) continue;
    const prices = world.prices.get(priceKey(v.chain_id, v.numeraire_address));
    for (let i = 0; i < s.length; i++) {
      const ts = s.ts[i]!;
      if (ts <= afterTs) continue;
      const assets = s.total_assets.get(i);
      row[0] = v.vault_id;
      row[1] = ts;
      row[2] = formatUnits(s.unit_price.get(i), UNIT_PRICE_DECIMALS);
      row[3] = formatUnits(assets, s.numeraire_decimals);
      row[4] = usdAt(assets, s.numeraire_decimals, prices, ts);
      row[5] = formatUnits(s.total_supply.get(i), SHARE_DECIMALS);
      row[6] = nullable(s.apy_7d[i]!);
      row[7] = nullable(s.apy_30d[i]!);
      row[8] = nullable(s.apy_90d[i]!);
      loader.push(row);
    }
  }
  loader.close();
  return loader.rows;
}

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

/** Replace the activity table with every raw row as an activity row (DESIGN §4.6). */
export async function writeActivity(store: Store, world: World): Promise<number> {
  await store.run('derived.activity.clear', 'DELETE FROM activity');
  const loader = await createChunkLoader(store, 'activity', [
    'varchar',
    'varchar',
    'varchar',
    'varchar',
    'bigint',
    'bigint',
    'bigint',
    'integer',
    'integer',
    'varchar',
    'varchar',
    'varchar',
    'varchar',
    'varchar',
  ]);
  const contexts = new Map<string, ReturnType<typeof positionContext>>();
  for (const e of world.events) {
    let ctx = contexts.get(e.vault_id);
    if (ctx === undefined) contexts.set(e.vault_id, (ctx = positionContext(world, e.vault_id)));
    if (!ctx) continue;
    const a = toActivityRow(e, ctx);
    loader.push([e.wallet, e.vault_id, a.id, a.type, a.block_timestamp, e.chain_id, a.block_number, a.log_index, e.sub_index, a.block_hash, a.tx_hash, a.request_hash, a.shares_delta, a.assets_delta.native]);
  }
  loader.close();
  return loader.rows;
}
