// How two tables differ as multisets of rows (EXCEPT ALL both ways): the scale bench's check that
// a SQL-only baseline and vaultd wrote the same derived table.
import type { Store } from '../../store/store.js';

export interface TableDiff {
  rows_a: number;
  rows_b: number;
  /** rows of a not in b, and of b not in a, counted with multiplicity (EXCEPT ALL) */
  only_a: number;
  only_b: number;
}

/** Rows of `a` and `b` over `columns`, and the rows only in each (EXCEPT ALL both ways). */
export async function diffTables(store: Store, a: string, b: string, columns: string): Promise<TableDiff> {
  const row = await store.one<{ rows_a: bigint; rows_b: bigint; only_a: bigint; only_b: bigint }>(
    'bench.sql_diff',
    `SELECT (SELECT count(*) FROM ${a}) AS rows_a, (SELECT count(*) FROM ${b}) AS rows_b,
            (SELECT count(*) FROM (SELECT ${columns} FROM ${a} EXCEPT ALL SELECT ${columns} FROM ${b})) AS only_a,
            (SELECT count(*) FROM (SELECT ${columns} FROM ${b} EXCEPT ALL SELECT ${columns} FROM ${a})) AS only_b`,
  );
  return { rows_a: Number(row!.rows_a), rows_b: Number(row!.rows_b), only_a: Number(row!.only_a), only_b: Number(row!.only_b) };
}
