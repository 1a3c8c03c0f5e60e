// Writes the derived tables (DESIGN §3) from the computed world: hourly vault metrics and
// current positions and activity rows. Replaced whole on a full recompute; the hourly table
// only gains the new hours on an incremental one.
import { SHARE_DECIMALS, UNIT_PRICE_DECIMALS, USD_DECIMALS } from '../../model/format/numbers.js';
import type { I128Array } from '../../model/int128.js';
import { usdUnitsAt } from '../metrics/vaultPoint.js';
import { COLUMN_CHUNK_ROWS, createColumnAppender } from '../../store/columnAppender.js';
import { priceKey, type World } from '../../model/world.js';
import { activityDeltas } from '../activity/activityRows.js';
import { positionContext, type WalletIndex } from '../publish/walletIndex.js';
import { positionMetrics, positionNow } from '../positions/positionMetrics.js';
import { replayPosition } from '../positions/replayPosition.js';
import { createChunkLoader } from '../../store/chunkLoader.js';
import type { Store } from '../../store/store.js';

const STAGE = 'vaultd_stage_metrics';

/** A base-unit HUGEINT column of a query and its decimals (a number or an INTEGER SQL expression). */
export interface UnitsColumn {
  /** the HUGEINT expression */
  expr: string;
  decimals: number | string;
  as: string;
}

/**
 * A SELECT that formats base-unit HUGEINT columns as the decimal strings of DESIGN §4.7 (no
 * exponent, no trailing zeros, "0" for zero, a sign only on non-zero negatives) — exactly
 * formatUnits (model/format/numbers.ts), on DuckDB's threads; the test beside this file holds
 * them equal. Each step is its own projection so every intermediate string is made once
 * (the same rules as one macro measured 3× slower). `keep` columns pass through unchanged.
 */
export function unitsSelect(from: string, keep: string[], cols: UnitsColumn[]): string {
  const k = keep.join(', ');
  const step = (exprs: (c: UnitsColumn, i: number) => string[]) => cols.flatMap(exprs).join(', ');
  const s0 = `SELECT ${k}, ${step((c, i) => [`${c.expr} < 0 AS n${i}`, `abs(${c.expr})::VARCHAR AS s${i}`, `${c.decimals} AS d${i}`])} FROM ${from}`;
  const s1 = `SELECT ${k}, ${step((_, i) => [`n${i}`, `d${i}`, `CASE WHEN length(s${i}) <= d${i} THEN lpad(s${i}, d${i} + 1, '0') ELSE s${i} END AS p${i}`])} FROM (${s0})`;
  const s2 = `SELECT ${k}, ${step((_, i) => [`n${i}`, `left(p${i}, length(p${i}) - d${i}) AS i${i}`, `rtrim(right(p${i}, d${i}), '0') AS f${i}`])} FROM (${s1})`;
  return `SELECT ${k}, ${step((c, i) => [
    `CASE WHEN n${i} IS NULL THEN NULL ELSE (CASE WHEN n${i} THEN '-' ELSE '' END) || i${i} || CASE WHEN f${i} = '' THEN '' ELSE '.' || f${i} END END AS ${c.as}`,
  ])} FROM (${s2})`;
}

const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;
/** The rows [at, at + n) of a 128-bit column as raw bytes (HUGEINT's layout). */
const i128Bytes = (col: I128Array, at: number, n: number) => new Uint8Array(col.words.buffer, col.words.byteOffset + at * 16, n * 16);
const MASK64 = (1n << 64n) - 1n;

/**
 * Write vault_metrics_hourly rows with ts > afterTs (all rows when afterTs is -Infinity).
 * Columnar: every vault's series is staged as numbers — timestamps and APYs as doubles, unit
 * price, TVL and supply as raw 128-bit words copied straight from the series, USD TVL as exact
 * 6-decimal integers — and one INSERT … SELECT has DuckDB format the decimal strings. Staging
 * strings row by row through the bindings cost ~6.5 µs a row (110 s for the benchmark world);
 * this path ~4.3 µs (73 s), most of it DuckDB's own formatting and VARCHAR writes.
 */
export async function writeVaultMetrics(store: Store, world: World, afterTs = -Infinity): Promise<number> {
  await store.run(
    'derived.metrics.clear',
    Number.isFinite(afterTs) ? 'DELETE FROM vault_metrics_hourly WHERE ts > to_timestamp($1)::TIMESTAMP' : 'DELETE FROM vault_metrics_hourly',
    Number.isFinite(afterTs) ? [afterTs] : [],
  );
  await store.run(
    'derived.metrics.stage',
    `CREATE OR REPLACE TEMP TABLE ${STAGE} (vid INTEGER, ts DOUBLE, unit_price HUGEINT, tvl HUGEINT, tvl_usd HUGEINT, supply HUGEINT, apy_7d DOUBLE, apy_30d DOUBLE, apy_90d DOUBLE)`,
  );
  const stage = await createColumnAppender(store, STAGE, ['integer', 'double', 'hugeint', 'hugeint', 'hugeint', 'hugeint', 'double', 'double', 'double']);
  const ids: string[] = [];
  const decimals: number[] = [];
  try {
    for (const v of world.registry.vaults) {
      const s = world.series.get(v.vault_id);
      if (!s) continue;
      const vid = ids.length;
      ids.push(v.vault_id);
      decimals.push(s.numeraire_decimals);
      const prices = world.prices.get(priceKey(v.chain_id, v.numeraire_address));
      let from = s.length;
      while (from > 0 && s.ts[from - 1]! > afterTs) from--;
      for (let at = from; at < s.length; at += COLUMN_CHUNK_ROWS) {
        const n = Math.min(COLUMN_CHUNK_ROWS, s.length - at);
        stage.batch(n, (b) => {
          b.int32(0).fill(vid, 0, n);
          b.float64(1).set(s.ts.subarray(at, at + n));
          b.hugeint(2).set(i128Bytes(s.unit_price, at, n));
          b.hugeint(3).set(i128Bytes(s.total_assets, at, n));
          const usd = b.hugeint(4);
          const words = new DataView(usd.buffer, usd.byteOffset, n * 16);
          for (let k = 0; k < n; k++) {
            const u = usdUnitsAt(s.total_assets.get(at + k), s.numeraire_decimals, prices, s.ts[at + k]!);
            if (u === null) b.setNull(4, k);
            else {
              words.setBigUint64(k * 16, u & MASK64, true);
              words.setBigInt64(k * 16 + 8, u >> 64n, true);
            }
          }
          b.hugeint(5).set(i128Bytes(s.total_supply, at, n));
          for (const [c, apy] of [[6, s.apy_7d], [7, s.apy_30d], [8, s.apy_90d]] as const) {
            const out = b.float64(c);
            out.set(apy.subarray(at, at + n));
            for (let k = 0; k < n; k++) if (!Number.isFinite(out[k]!)) b.setNull(c, k);
          }
        });
      }
    }
  } finally {
    stage.close();
  }
  if (stage.rows > 0) {
    const idList = `[${ids.map(sqlString).join(', ')}]`;
    const decList = `([${decimals.join(', ')}]::INTEGER[])`;
    const staged = `(SELECT ${idList}[vid + 1] AS vault_id, make_timestamp((ts * 1000000)::BIGINT) AS ts, ${decList}[vid + 1] AS dec,
                            unit_price, tvl, tvl_usd, supply, apy_7d, apy_30d, apy_90d FROM ${STAGE})`;
    // one scan of the stage and projections only: the rows keep the stage's order
    const select = unitsSelect(staged, ['vault_id', 'ts', 'apy_7d', 'apy_30d', 'apy_90d'], [
      { expr: 'unit_price', decimals: UNIT_PRICE_DECIMALS, as: 'unit_price' },
      { expr: 'tvl', decimals: 'dec', as: 'tvl_native' },
      { expr: 'tvl_usd', decimals: USD_DECIMALS, as: 'tvl_usd' },
      { expr: 'supply', decimals: SHARE_DECIMALS, as: 'total_supply' },
    ]);
    await store.run(
      'derived.metrics.insert',
      `INSERT INTO vault_metrics_hourly SELECT vault_id, ts, unit_price, tvl_native, tvl_usd, total_supply, apy_7d, apy_30d, apy_90d FROM (${select})`,
    );
  }
  await store.run('derived.metrics.unstage', `DROP TABLE ${STAGE}`);
  return stage.rows;
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
  const contexts = new Map<string, ReturnType<typeof positionContext>>();
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
          const e = events[next]!;
          let ctx = contexts.get(e.vault_id);
          if (ctx === undefined) contexts.set(e.vault_id, (ctx = positionContext(world, e.vault_id)));
          if (!ctx) continue;
          const d = activityDeltas(e, ctx);
          k[n] = next;
          chain[n] = e.chain_id;
          block[n] = e.block_number;
          log[n] = e.log_index;
          sub[n] = e.sub_index;
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
