// Writes the hourly vault metrics table (DESIGN §3) from the computed world: replaced whole
// on a full recompute, only the new hours on an incremental one.
import { SHARE_DECIMALS, UNIT_PRICE_DECIMALS, USD_DECIMALS } from '../../model/format/numbers.js';
import type { I128Array } from '../../model/int128.js';
import { usdUnitsAt } from '../metrics/vaultPoint.js';
import { COLUMN_CHUNK_ROWS, createColumnAppender } from '../../store/columnAppender.js';
import { priceKey, type World } from '../../model/world.js';
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
export const MASK64 = (1n << 64n) - 1n;

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

