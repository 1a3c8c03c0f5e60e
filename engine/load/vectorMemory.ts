// Direct views of a DuckDB result chunk's vector memory, so the loader copies whole vectors
// into typed arrays instead of converting 17 M values one getItem at a time (DESIGN §8).
// @duckdb/node-api keeps these views in private fields; we read them through a checked cast
// and fail loudly if a library upgrade renames them.
import { endianness } from 'node:os';
import {
  DuckDBBigIntVector,
  DuckDBDecimal128Vector,
  DuckDBDoubleVector,
  DuckDBHugeIntVector,
  DuckDBIntegerVector,
  DuckDBUBigIntVector,
  DuckDBUTinyIntVector,
  type DuckDBVector,
} from '../../store/duckdbApi.js';
import { VaultdError } from '../../common/errors.js';

// I128Array and DuckDB's hugeint_t {uint64 lower; int64 upper} agree only on little-endian hosts.
if (endianness() !== 'LE') {
  throw new VaultdError('INTERNAL', 'vaultd needs a little-endian host (128-bit columns are copied as raw bytes)');
}

function internal(vector: DuckDBVector, field: string, what: string): never {
  throw new VaultdError(
    'INTERNAL',
    `@duckdb/node-api ${vector.constructor.name} has no ${what} in "${field}": the vector-copy loader needs updating for this library version`,
  );
}

/** The DOUBLE column's values (a view on the vector memory, valid until the chunk is released). */
export function float64Items(vector: DuckDBVector): Float64Array {
  if (!(vector instanceof DuckDBDoubleVector)) return internal(vector, 'items', 'DOUBLE column');
  const items = (vector as unknown as { items: unknown }).items;
  return items instanceof Float64Array ? items : internal(vector, 'items', 'Float64Array');
}

/** The BIGINT column's values. */
export function int64Items(vector: DuckDBVector): BigInt64Array {
  if (!(vector instanceof DuckDBBigIntVector)) return internal(vector, 'items', 'BIGINT column');
  const items = (vector as unknown as { items: unknown }).items;
  return items instanceof BigInt64Array ? items : internal(vector, 'items', 'BigInt64Array');
}

/** The INTEGER column's values. */
export function int32Items(vector: DuckDBVector): Int32Array {
  if (!(vector instanceof DuckDBIntegerVector)) return internal(vector, 'items', 'INTEGER column');
  const items = (vector as unknown as { items: unknown }).items;
  return items instanceof Int32Array ? items : internal(vector, 'items', 'Int32Array');
}

/** The UTINYINT column's values. */
export function uint8Items(vector: DuckDBVector): Uint8Array {
  if (!(vector instanceof DuckDBUTinyIntVector)) return internal(vector, 'items', 'UTINYINT column');
  const items = (vector as unknown as { items: unknown }).items;
  return items instanceof Uint8Array ? items : internal(vector, 'items', 'Uint8Array');
}

/** The UBIGINT column's values. */
export function uint64Items(vector: DuckDBVector): BigUint64Array {
  if (!(vector instanceof DuckDBUBigIntVector)) return internal(vector, 'items', 'UBIGINT column');
  const items = (vector as unknown as { items: unknown }).items;
  return items instanceof BigUint64Array ? items : internal(vector, 'items', 'BigUint64Array');
}

/** The HUGEINT column's raw bytes: 16 per row, (lo u64, hi i64) little-endian — I128Array's layout. */
export function hugeintBytes(vector: DuckDBVector): Uint8Array {
  if (!(vector instanceof DuckDBHugeIntVector)) return internal(vector, 'dataView', 'HUGEINT column');
  const view = (vector as unknown as { dataView: unknown }).dataView;
  if (!(view instanceof DataView)) return internal(vector, 'dataView', 'DataView');
  return new Uint8Array(view.buffer, view.byteOffset, vector.itemCount * 16);
}

/**
 * The DECIMAL(w, scale) column's unscaled values as 128-bit two's-complement words (lo, hi per
 * row): DuckDB stores a decimal wider than 18 digits as a hugeint.
 */
export function decimal128Words(vector: DuckDBVector, scale: number): BigUint64Array {
  if (!(vector instanceof DuckDBDecimal128Vector)) return internal(vector, 'dataView', 'DECIMAL(38, s) column');
  if (vector.type.scale !== scale) return internal(vector, 'decimalType', `scale ${scale}`);
  const view = (vector as unknown as { dataView: unknown }).dataView;
  if (!(view instanceof DataView)) return internal(vector, 'dataView', 'DataView');
  return new BigUint64Array(view.buffer, view.byteOffset, vector.itemCount * 2);
}
