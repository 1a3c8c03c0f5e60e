// Writes the activity table (DESIGN §3, §4.6): every raw row as an activity row, replaced
// whole on every recompute.
import { SHARE_DECIMALS } from '../../model/format/numbers.js';
import type { World } from '../../model/world.js';
import { rowDeltas } from '../activity/activityRows.js';
import { vaultIdOf } from '../../model/events.js';
import { positionContext } from '../publish/walletIndex.js';
import { COLUMN_CHUNK_ROWS, createColumnAppender } from '../../store/columnAppender.js';
import type { Store } from '../../store/store.js';
import { MASK64, unitsSelect } from './metricsWriter.js';

const ACTIVITY_STAGE = 'vaultd_stage_activity';

/**
 * Replace the activity table with every raw row as an activity row (DESIGN §4.6). Columnar:
 * only what the engine computes — each row's signed share and asset deltas (transfers and
 * foreign tokens valued at the unit price of their hour) — is staged, as 128-bit words with
 * the row's key; DuckDB joins the raw columns (hashes, wallet, kind) back from vault_events by
 * that key, formats the deltas and writes the rows in world order.
 */
export async function writeActivity(store: Store, world: World): Promise<number> {
  await store.run('derived.activity.clear', 'DELETE FROM activity');
  await store.run(
    'derived.activity.stage',
    `CREATE OR REPLACE TEMP TABLE ${ACTIVITY_STAGE} (k INTEGER, chain_id DOUBLE, block_number DOUBLE, log_index INTEGER, sub_index INTEGER, dec INTEGER, shares HUGEINT, assets HUGEINT)`,
  );
  const stage = await createColumnAppender(store, ACTIVITY_STAGE, ['integer', 'double', 'double', 'integer', 'integer', 'integer', 'hugeint', 'hugeint']);
  const contexts: (ReturnType<typeof positionContext> | undefined)[] = [];
  const events = world.events;
  let next = 0;
  try {
    while (next < events.length) {
      stage.batch(Math.min(COLUMN_CHUNK_ROWS, events.length - next), (b) => {
        const [k, chain, block, log, sub, dec] = [b.int32(0), b.float64(1), b.float64(2), b.int32(3), b.int32(4), b.int32(5)];
        const shares = b.hugeint(6);
        const assets = b.hugeint(7);
        const sw = new DataView(shares.buffer, shares.byteOffset, shares.byteLength);
        const aw = new DataView(assets.buffer, assets.byteOffset, assets.byteLength);
        let n = 0;
        // a batch takes up to COLUMN_CHUNK_ROWS events that have a context (the rest are skipped)
        for (; next < events.length && n < COLUMN_CHUNK_ROWS; next++) {
          const v = events.vault[next]!;
          let ctx = contexts[v];
          if (ctx === undefined) contexts[v] = ctx = positionContext(world, vaultIdOf(events, next));
          if (!ctx) continue;
          const d = rowDeltas(events, next, ctx);
          k[n] = next;
          chain[n] = events.chain_id[next]!;
          block[n] = events.block_number[next]!;
          log[n] = events.log_index[next]!;
          sub[n] = events.sub_index[next]!;
          dec[n] = ctx.numeraire.decimals;
          sw.setBigUint64(n * 16, d.shares & MASK64, true);
          sw.setBigInt64(n * 16 + 8, d.shares >> 64n, true);
          aw.setBigUint64(n * 16, d.assets & MASK64, true);
          aw.setBigInt64(n * 16 + 8, d.assets >> 64n, true);
          n++;
        }
        return n;
      });
    }
  } finally {
    stage.close();
  }
  if (stage.rows > 0) {
    const deltas = unitsSelect(ACTIVITY_STAGE, ['k', 'chain_id', 'block_number', 'log_index', 'sub_index'], [
      { expr: 'shares', decimals: SHARE_DECIMALS, as: 'shares_delta' },
      { expr: 'assets', decimals: 'dec', as: 'assets_delta' },
    ]);
    await store.run(
      'derived.activity.insert',
      `INSERT INTO activity
       SELECT e.wallet, e.vault_id, e.chain_id::VARCHAR || ':' || e.block_number::VARCHAR || ':' || e.log_index::VARCHAR || ':' || e.sub_index::VARCHAR,
              e.kind, epoch(e.ts)::BIGINT, e.chain_id, e.block_number, e.log_index, e.sub_index, e.block_hash, e.tx_hash,
              CASE WHEN e.kind IN ('transfer_in', 'transfer_out') THEN NULL ELSE e.request_hash END, s.shares_delta, s.assets_delta
       FROM (${deltas}) s
       JOIN vault_events e ON e.chain_id = s.chain_id AND e.block_number = s.block_number AND e.log_index = s.log_index AND e.sub_index = s.sub_index
       ORDER BY s.k`,
    );
  }
  await store.run('derived.activity.unstage', `DROP TABLE ${ACTIVITY_STAGE}`);
  return stage.rows;
}
