// Columnar bulk loading: appender data chunks whose vector memory is written directly from
// typed arrays (no value per row crosses into the bindings): INTEGER as Int32Array, DOUBLE as
// Float64Array, HUGEINT as raw little-endian (lo, hi) 16-byte words — model/int128.ts's
// I128Array layout, so a column of amounts is one byte copy. A caller fills a batch of up to
// COLUMN_CHUNK_ROWS rows through the views and marks NULLs; exact 128-bit values never pass
// through a float or a string. Used to stage numeric columns that DuckDB then formats and
// inserts itself (engine/persist/metricsWriter.ts).
import {
  BIGINT,
  DOUBLE,
  DuckDBBigIntVector,
  DuckDBDataChunk,
  DuckDBDoubleVector,
  DuckDBHugeIntVector,
  DuckDBIntegerVector,
  HUGEINT,
  INTEGER,
  type DuckDBType,
  type DuckDBVector,
} from './duckdbApi.js';
import { endianness } from 'node:os';
import { VaultdError } from '../common/errors.js';
import type { Store } from './store.js';

export type NumericKind = 'integer' | 'bigint' | 'double' | 'hugeint';

const TYPES: Record<NumericKind, DuckDBType> = { integer: INTEGER, bigint: BIGINT, double: DOUBLE, hugeint: HUGEINT };

export const COLUMN_CHUNK_ROWS = 2048;

/** The writable views of one batch, by column index. */
export interface ColumnBatch {
  int32(col: number): Int32Array;
  /** BIGINT as (lo, hi) 32-bit halves, 2 per row: setInt64(view, row, x) writes an integer-valued double */
  int64Halves(col: number): Int32Array;
  float64(col: number): Float64Array;
  /** 16 bytes per row: (lo u64, hi i64) little-endian */
  hugeint(col: number): Uint8Array;
  setNull(col: number, row: number): void;
}

export interface ColumnAppender {
  /**
   * Fills up to `rows` (≤ COLUMN_CHUNK_ROWS) rows through `fill` and appends them; `fill` may
   * return how many it filled when that is fewer.
   */
  batch(rows: number, fill: (b: ColumnBatch) => number | void): void;
  close(): void;
  readonly rows: number;
}

if (endianness() !== 'LE') throw new VaultdError('INTERNAL', 'vaultd needs a little-endian host (128-bit columns are copied as raw bytes)');

function field<T>(vector: DuckDBVector, name: string, check: (x: unknown) => x is T): T {
  const value = (vector as unknown as Record<string, unknown>)[name];
  if (!check(value))
    throw new VaultdError(
      'INTERNAL',
      `@duckdb/node-api ${vector.constructor.name} has no usable "${name}": the column appender needs updating for this library version`,
    );
  return value;
}

export async function createColumnAppender(store: Store, table: string, kinds: readonly NumericKind[]): Promise<ColumnAppender> {
  const appender = await store.appender(table);
  const types = kinds.map((k) => TYPES[k]);
  let total = 0;
  return {
    batch(rows, fill) {
      if (rows <= 0) return;
      if (rows > COLUMN_CHUNK_ROWS) throw new VaultdError('INTERNAL', `a column batch holds at most ${COLUMN_CHUNK_ROWS} rows`);
      const chunk = DuckDBDataChunk.create(types, COLUMN_CHUNK_ROWS);
      const vectors = kinds.map((_, c) => chunk.getColumnVector(c));
      const filled = fill({
        int32: (c) => {
          const v = vectors[c]!;
          if (!(v instanceof DuckDBIntegerVector)) throw new VaultdError('INTERNAL', `column ${c} is not INTEGER`);
          return field(v, 'items', (x): x is Int32Array => x instanceof Int32Array);
        },
        int64Halves: (c) => {
          const v = vectors[c]!;
          if (!(v instanceof DuckDBBigIntVector)) throw new VaultdError('INTERNAL', `column ${c} is not BIGINT`);
          const items = field(v, 'items', (x): x is BigInt64Array => x instanceof BigInt64Array);
          return new Int32Array(items.buffer, items.byteOffset, 2 * COLUMN_CHUNK_ROWS);
        },
        float64: (c) => {
          const v = vectors[c]!;
          if (!(v instanceof DuckDBDoubleVector)) throw new VaultdError('INTERNAL', `column ${c} is not DOUBLE`);
          return field(v, 'items', (x): x is Float64Array => x instanceof Float64Array);
        },
        hugeint: (c) => {
          const v = vectors[c]!;
          if (!(v instanceof DuckDBHugeIntVector)) throw new VaultdError('INTERNAL', `column ${c} is not HUGEINT`);
          const view = field(v, 'dataView', (x): x is DataView => x instanceof DataView);
          return new Uint8Array(view.buffer, view.byteOffset, COLUMN_CHUNK_ROWS * 16);
        },
        setNull: (c, row) =>
          field(
            vectors[c]!,
            'validity',
            (x): x is { setItemValid(i: number, ok: boolean): void } => typeof (x as { setItemValid?: unknown })?.setItemValid === 'function',
          ).setItemValid(row, false),
      });
      const n = typeof filled === 'number' ? filled : rows;
      if (n <= 0) return;
      for (const v of vectors) v.flush();
      chunk.rowCount = n;
      appender.appendDataChunk(chunk);
      total += n;
    },
    close() {
      appender.closeSync();
    },
    get rows() {
      return total;
    },
  };
}

/** Row `row` of an int64Halves view = `x` (an integer-valued double of magnitude < 2^53), with no BigInt. */
export function setInt64(view: Int32Array, row: number, x: number): void {
  const hi = Math.floor(x / 4294967296);
  view[2 * row] = x - hi * 4294967296;
  view[2 * row + 1] = hi;
}
