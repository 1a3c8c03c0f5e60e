// Decimal-string formatting in SQL: base-unit HUGEINT columns as the exact strings of DESIGN
// §4.7, on DuckDB's threads (the activity view formats its deltas with a macro of the same rules, store/migrations.ts).

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
 * formatUnits (model/format/numbers.ts), on DuckDB's threads; engine/persist/metricsWriter.test.ts
 * holds them equal. Each step is its own projection so every intermediate string is made once
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
