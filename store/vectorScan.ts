// Bulk inserts of rows whose column values are already DuckDB vector bytes (a TIMESTAMP as int64
// microseconds, a DECIMAL(38, s) as an int128 word, a DOUBLE): a table function hands DuckDB one
// chunk per call — one memory copy per column, validity masks only where a column has a NULL,
// a VARCHAR that holds one value for the whole chunk as a constant vector (one string, not one
// per row) — and `INSERT INTO t SELECT * FROM` it runs on DuckDB's threads. Compression and
// the optimistic writes to the file are most of the cost of such an insert (~1.2–1.4 µs a row
// for the hourly metrics on this 2-core machine); through an appender they all run on the
// calling thread, here on every DuckDB thread at once (1.5–1.8× faster on 3.4 M metrics rows).
// Rows of different calls may land in any order, so insertion order is not kept: the caller's
// rows must not depend on it. Raw bindings: @duckdb/node-bindings, the version node-api pins.
import duckdb from '@duckdb/node-bindings';
import { DECIMAL, DOUBLE, DuckDBTableFunction, TIMESTAMP, VARCHAR, type DuckDBType } from './duckdbApi.js';
import { endianness } from 'node:os';
import { VaultdError } from '../common/errors.js';
import type { Store } from './store.js';

export const VECTOR_ROWS = 2048;

export type VectorColumn =
  /** one string per chunk (vector_reference_value) */
  | { name: string; kind: 'varchar-constant' }
  /** bytes per row at `offset` of a chunk's buffer; `validity` is the offset of its mask (VECTOR_ROWS bits), or −1 */
  | { name: string; kind: 'timestamp' | 'double'; offset: number; validity: number }
  | { name: string; kind: 'decimal'; width: number; scale: number; offset: number; validity: number };

/** One chunk: `rows` ≤ VECTOR_ROWS, the constant columns' strings in column order, the others' bytes. */
export interface VectorChunk {
  rows: number;
  constants: readonly string[];
  buffer: ArrayBuffer;
  /** offset of the chunk's bytes in `buffer` (column offsets are relative to it) */
  base: number;
  /** bit k set: the k-th non-constant column has a NULL (its mask is copied) */
  nulls: number;
}

/**
 * Called on this thread whenever a DuckDB thread wants the next chunk; null when there are no
 * more. The chunk's bytes are copied out before the next call, so one buffer can be reused.
 */
export type VectorChunkSource = () => VectorChunk | null;

export interface VectorScanOptions {
  /** DuckDB threads pulling chunks (default 2) */
  threads?: number;
}

if (endianness() !== 'LE') throw new VaultdError('INTERNAL', 'vaultd needs a little-endian host (vector bytes are written as they lie in memory)');

interface Scan {
  columns: readonly VectorColumn[];
  source: VectorChunkSource;
  rows: number;
  failure: unknown;
}

/**
 * A fresh function name per scan: registering a table function is a catalog change, so inside a
 * transaction that rolls back the function is gone again (one registration per write costs a
 * catalog entry, never shared state between scans).
 */
let scans = 0;

function duckdbType(c: VectorColumn): DuckDBType {
  switch (c.kind) {
    case 'varchar-constant':
      return VARCHAR;
    case 'timestamp':
      return TIMESTAMP;
    case 'double':
      return DOUBLE;
    case 'decimal':
      if (c.width !== 38) throw new VaultdError('INTERNAL', `vector scan: DECIMAL(${c.width}, ${c.scale}) is not an int128 column`);
      return DECIMAL(c.width, c.scale);
  }
}

const BYTES = { timestamp: 8, double: 8, decimal: 16 } as const;

/** Write chunk `c` into DuckDB's output chunk. */
function emit(scan: Scan, c: VectorChunk, out: duckdb.DataChunk): void {
  if (!Number.isInteger(c.rows) || c.rows <= 0 || c.rows > VECTOR_ROWS)
    throw new VaultdError('INTERNAL', `a vector chunk holds 1–${VECTOR_ROWS} rows, not ${c.rows}`);
  let constant = 0;
  let value = 0;
  scan.columns.forEach((col, i) => {
    const vector = duckdb.data_chunk_get_vector(out, i);
    if (col.kind === 'varchar-constant') {
      const s = c.constants[constant++];
      if (s === undefined) throw new VaultdError('INTERNAL', `vector scan: no value for constant column "${col.name}"`);
      duckdb.vector_reference_value(vector, duckdb.create_varchar(s));
      return;
    }
    duckdb.copy_data_to_vector(vector, 0, c.buffer, c.base + col.offset, c.rows * BYTES[col.kind]);
    if ((c.nulls & (1 << value++)) !== 0) {
      if (col.validity < 0) throw new VaultdError('INTERNAL', `vector scan: column "${col.name}" is never NULL but the chunk says it has one`);
      duckdb.vector_ensure_validity_writable(vector);
      duckdb.copy_data_to_vector_validity(vector, 0, c.buffer, c.base + col.validity, VECTOR_ROWS / 8);
    }
  });
  duckdb.data_chunk_set_size(out, c.rows);
  scan.rows += c.rows;
}

/**
 * INSERT INTO `table` every chunk `source` yields, on `threads` DuckDB threads; resolves with the
 * row count. The columns must be the table's, in its order.
 */
export async function insertVectorChunks(
  store: Store,
  table: string,
  columns: readonly VectorColumn[],
  source: VectorChunkSource,
  options: VectorScanOptions = {},
): Promise<number> {
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new VaultdError('INTERNAL', `vector scan: not a table name: "${table}"`);
  const threads = options.threads ?? 2;
  const scan: Scan = { columns, source, rows: 0, failure: undefined };
  const name = `vaultd_vector_scan_${++scans}`;
  store.registerTableFunction(
    DuckDBTableFunction.create({
      name,
      bindFunction: (bind) => {
        for (const c of columns) bind.addResultColumn(c.name, duckdbType(c));
      },
      initFunction: (init) => init.setMaxThreads(threads),
      mainFunction: (info, output) => {
        try {
          const c = scan.failure === undefined ? scan.source() : null;
          if (c === null) duckdb.data_chunk_set_size(output.chunk, 0);
          else emit(scan, c, output.chunk);
        } catch (err) {
          // DuckDB ends the query with this message; the caller rethrows the original error
          scan.failure = err;
          info.setError(err instanceof Error ? err.message : String(err));
        }
      },
    }),
  );
  try {
    await store.withoutInsertionOrder(() =>
      store.run(`vector_scan.${table}`, `INSERT INTO ${table} (${columns.map((c) => c.name).join(', ')}) SELECT * FROM ${name}()`),
    );
  } catch (err) {
    throw scan.failure ?? err;
  }
  return scan.rows;
}
