// Bulk loading through DuckDB's Appender with whole data chunks whose vectors are filled
// directly: ~3.7 M rows/s to a file vs 1.4 M/s row-at-a-time and 4 k/s for INSERTs (DESIGN §8).
import {
  BIGINT,
  BOOLEAN,
  DOUBLE,
  DuckDBDataChunk,
  HUGEINT,
  INTEGER,
  TIMESTAMP,
  VARCHAR,
  type DuckDBAppender,
  type DuckDBType,
  type DuckDBVector,
} from './duckdbApi.js';
import type { Store } from './store.js';

/** Column kinds the loader can fill; `timestamp` takes Unix seconds, `json` any value. */
export type ColumnKind = 'varchar' | 'bigint' | 'integer' | 'hugeint' | 'double' | 'boolean' | 'timestamp' | 'json';

const DUCK_TYPES: Record<ColumnKind, DuckDBType> = {
  varchar: VARCHAR,
  bigint: BIGINT,
  integer: INTEGER,
  hugeint: HUGEINT,
  double: DOUBLE,
  boolean: BOOLEAN,
  timestamp: TIMESTAMP,
  json: VARCHAR,
};

const CHUNK_ROWS = 2048;

export interface ChunkLoader {
  /** Append one row; values in column order. `null` for NULL. */
  push(values: readonly unknown[]): void;
  /** Write buffered rows to the appender and flush it. */
  flush(): void;
  close(): void;
  readonly rows: number;
}

type Setter = (vector: DuckDBVector, row: number, value: unknown) => void;

function setterFor(kind: ColumnKind): Setter {
  switch (kind) {
    case 'timestamp':
      // The vector only reads `.micros`; skip constructing a value object per row.
      return (vec, i, v) => vec.setItem(i, v === null || v === undefined ? null : ({ micros: BigInt(v as number) * 1_000_000n } as never));
    case 'bigint':
      return (vec, i, v) => vec.setItem(i, v === null || v === undefined ? null : (BigInt(v as number | bigint) as never));
    case 'json':
      return (vec, i, v) => vec.setItem(i, v === null || v === undefined ? null : (JSON.stringify(v) as never));
    default:
      return (vec, i, v) => vec.setItem(i, (v ?? null) as never);
  }
}

export async function createChunkLoader(store: Store, table: string, kinds: readonly ColumnKind[]): Promise<ChunkLoader> {
  const appender: DuckDBAppender = await store.appender(table);
  const types = kinds.map((k) => DUCK_TYPES[k]);
  const setters = kinds.map(setterFor);
  let chunk = DuckDBDataChunk.create(types, CHUNK_ROWS);
  let vectors = kinds.map((_, c) => chunk.getColumnVector(c));
  let filled = 0;
  let total = 0;

  function writeChunk(): void {
    if (filled === 0) return;
    for (const vec of vectors) vec.flush();
    chunk.rowCount = filled;
    appender.appendDataChunk(chunk);
    chunk = DuckDBDataChunk.create(types, CHUNK_ROWS);
    vectors = kinds.map((_, c) => chunk.getColumnVector(c));
    filled = 0;
  }

  return {
    push(values) {
      for (let c = 0; c < setters.length; c++) setters[c]!(vectors[c]!, filled, values[c]);
      filled++;
      total++;
      if (filled === CHUNK_ROWS) writeChunk();
    },
    flush() {
      writeChunk();
      appender.flushSync();
    },
    close() {
      writeChunk();
      appender.closeSync();
    },
    get rows() {
      return total;
    },
  };
}
