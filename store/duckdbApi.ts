// @duckdb/node-api, loaded with require(). It is a CommonJS package: an ESM `import` of it makes
// Node run its export-detection lexer over the whole library first (~0.3 s on this machine
// against ~0.11 s for require()), and every vaultd command and every server start paid that.
// The binary's bundler sees a plain require here (scripts/buildBinary.mjs rewrites the line).
import { createRequire } from 'node:module';
import type * as DuckDB from '@duckdb/node-api';

const api = createRequire(import.meta.url)('@duckdb/node-api') as typeof DuckDB;

export const {
  DuckDBInstance,
  DuckDBTableFunction,
  DuckDBDataChunk,
  DuckDBBigIntVector,
  DuckDBDecimal128Vector,
  DuckDBDoubleVector,
  DuckDBHugeIntVector,
  DuckDBIntegerVector,
  DuckDBUBigIntVector,
  DuckDBUTinyIntVector,
  BIGINT,
  BOOLEAN,
  DECIMAL,
  DOUBLE,
  HUGEINT,
  INTEGER,
  TIMESTAMP,
  VARCHAR,
} = api;

// the classes' instance types, under the same names as the values
export type DuckDBInstance = DuckDB.DuckDBInstance;
export type DuckDBTableFunction = DuckDB.DuckDBTableFunction;
export type DuckDBDataChunk = DuckDB.DuckDBDataChunk;
export type DuckDBBigIntVector = DuckDB.DuckDBBigIntVector;
export type DuckDBDecimal128Vector = DuckDB.DuckDBDecimal128Vector;
export type DuckDBDoubleVector = DuckDB.DuckDBDoubleVector;
export type DuckDBHugeIntVector = DuckDB.DuckDBHugeIntVector;
export type DuckDBIntegerVector = DuckDB.DuckDBIntegerVector;
export type DuckDBUBigIntVector = DuckDB.DuckDBUBigIntVector;
export type DuckDBUTinyIntVector = DuckDB.DuckDBUTinyIntVector;
export type { DuckDBAppender, DuckDBConnection, DuckDBResult, DuckDBType, DuckDBValue, DuckDBVector } from '@duckdb/node-api';
