// Loads column batches (store/rawColumns.ts) into the raw tables in two steps, because
// DuckDB's own per-row storage work (string heaps, compression analysis of HUGEINT columns)
// runs on the appending thread — ~1 µs a snapshot row here, more than the simulation costs:
// 1. the batch's bytes are copied into appender chunks of TEMP staging tables (no value is
//    converted; only hash and price strings cross one at a time), on the caller's thread;
// 2. `flush()` moves everything staged into the raw tables with one INSERT … SELECT per table,
//    which maps dictionary indexes back to strings and runs on DuckDB's threads, in the staged
//    order (a table scan feeding an insert keeps insertion order).
// A caller flushes every ~2 M rows, so the stage stays small however large the world is.
import duckdb from '@duckdb/node-bindings';
import { BIGINT, DuckDBDataChunk, HUGEINT, INTEGER, TIMESTAMP, VARCHAR, type DuckDBAppender, type DuckDBType } from '@duckdb/node-api';
import { VaultdError } from '../common/errors.js';
import { BATCH_ROWS, KIND_BYTES, STAGE_NAMES, STAGE_TABLES, type RawBatch, type StageKind, type StageName } from './rawColumns.js';
import type { Store } from './store.js';

/** The raw copy functions of @duckdb/node-bindings that its typings leave out (node-api's vectors flush through them). */
interface RawCopy {
  copy_data_to_vector(vector: duckdb.Vector, targetByteOffset: number, source: ArrayBuffer, sourceByteOffset: number, byteLength: number): void;
  copy_data_to_vector_validity(vector: duckdb.Vector, targetByteOffset: number, source: ArrayBuffer, sourceByteOffset: number, byteLength: number): void;
}
const raw = duckdb as unknown as typeof duckdb & RawCopy;
if (typeof raw.copy_data_to_vector !== 'function' || typeof raw.copy_data_to_vector_validity !== 'function') {
  throw new VaultdError('INTERNAL', '@duckdb/node-bindings has no copy_data_to_vector: the staged raw loader needs updating for this library version');
}

const VECTOR = 2048;
const STAGE_TYPE: Record<StageKind, DuckDBType> = { ts: TIMESTAMP, i64: BIGINT, i32: INTEGER, i128: HUGEINT, dict: INTEGER, text: VARCHAR };
const STAGE_SQL: Record<StageKind, string> = { ts: 'TIMESTAMP', i64: 'BIGINT', i32: 'INTEGER', i128: 'HUGEINT', dict: 'INTEGER', text: 'VARCHAR' };
const DICT = '_bulk_dict';
const stageOf = (name: StageName) => `_bulk_${STAGE_TABLES[name].table}`;

export interface StagedRawLoader {
  /** Stage one batch (synchronous: the bytes are in DuckDB when it returns). */
  append(batch: RawBatch): void;
  /** rows staged since the last flush */
  readonly staged: number;
  /** Move every staged row into the raw tables, in staged order; rows added per table. */
  flush(): Promise<Record<StageName, number>>;
  /** Drop the staging tables (after a last flush, or to abandon what is staged). */
  close(): Promise<void>;
}

interface Stage {
  name: StageName;
  kinds: StageKind[];
  appender: DuckDBAppender;
  chunk: DuckDBDataChunk;
  rows: number;
}

export async function createStagedRawLoader(store: Store): Promise<StagedRawLoader> {
  await store.run('bulk.dict.create', `CREATE OR REPLACE TEMP TABLE ${DICT} (i INTEGER, v VARCHAR)`);
  const dictAppender = await store.appender(DICT);
  const dictChunk = DuckDBDataChunk.create([INTEGER, VARCHAR]);
  let dictSize = 0;
  let dictFlushed = 0;

  const stages = {} as Record<StageName, Stage>;
  async function openStage(name: StageName): Promise<void> {
    const spec = STAGE_TABLES[name];
    const kinds = spec.columns.map(([, k]) => k);
    const cols = spec.columns.map(([c, k]) => `${c} ${STAGE_SQL[k]}`).join(', ');
    await store.run('bulk.stage.create', `CREATE OR REPLACE TEMP TABLE ${stageOf(name)} (${cols})`);
    stages[name] = { name, kinds, appender: await store.appender(stageOf(name)), chunk: DuckDBDataChunk.create(kinds.map((k) => STAGE_TYPE[k])), rows: 0 };
  }
  for (const name of STAGE_NAMES) await openStage(name);
  let staged = 0;

  function appendDictionary(entries: readonly string[]): void {
    for (let off = 0; off < entries.length; off += VECTOR) {
      const n = Math.min(VECTOR, entries.length - off);
      const chunk = dictChunk.chunk;
      duckdb.data_chunk_reset(chunk);
      const ids = new Int32Array(n);
      for (let k = 0; k < n; k++) ids[k] = dictSize + k;
      raw.copy_data_to_vector(duckdb.data_chunk_get_vector(chunk, 0), 0, ids.buffer, 0, n * 4);
      const strings = duckdb.data_chunk_get_vector(chunk, 1);
      for (let k = 0; k < n; k++) duckdb.vector_assign_string_element(strings, k, entries[off + k]!);
      duckdb.data_chunk_set_size(chunk, n);
      dictAppender.appendDataChunk(dictChunk);
      dictSize += n;
    }
  }

  function appendSlice(stage: Stage, batch: RawBatch, from: number, n: number): void {
    const chunk = stage.chunk.chunk;
    duckdb.data_chunk_reset(chunk);
    for (let c = 0; c < stage.kinds.length; c++) {
      const kind = stage.kinds[c]!;
      const vector = duckdb.data_chunk_get_vector(chunk, c);
      const data = batch.columns[c]!;
      const validity = batch.validity[c];
      if (kind === 'text') {
        const strings = data as (string | null)[];
        for (let k = 0; k < n; k++) {
          const s = strings[from + k];
          if (s !== null && s !== undefined) duckdb.vector_assign_string_element(vector, k, s);
        }
      } else {
        const width = KIND_BYTES[kind];
        raw.copy_data_to_vector(vector, 0, data as ArrayBuffer, from * width, n * width);
      }
      if (validity) {
        // `from` is a multiple of 2,048, so the slice's mask starts on a 64-bit word
        duckdb.vector_ensure_validity_writable(vector);
        raw.copy_data_to_vector_validity(vector, 0, validity, from / 8, Math.ceil(n / 64) * 8);
      }
    }
    duckdb.data_chunk_set_size(chunk, n);
    stage.appender.appendDataChunk(stage.chunk);
  }

  return {
    append(batch) {
      if (batch.rows < 0 || batch.rows > BATCH_ROWS) throw new VaultdError('INTERNAL', `a raw batch holds at most ${BATCH_ROWS} rows, got ${batch.rows}`);
      if (batch.dictionary.length > 0) appendDictionary(batch.dictionary);
      const stage = stages[batch.table];
      if (!stage) throw new VaultdError('INTERNAL', `no staging table for raw batch "${String(batch.table)}"`);
      for (let from = 0; from < batch.rows; from += VECTOR) appendSlice(stage, batch, from, Math.min(VECTOR, batch.rows - from));
      stage.rows += batch.rows;
      staged += batch.rows;
    },
    get staged() {
      return staged;
    },
    async flush() {
      const added = {} as Record<StageName, number>;
      if (dictSize > dictFlushed) {
        dictAppender.flushSync();
        dictFlushed = dictSize;
      }
      for (const name of STAGE_NAMES) {
        const stage = stages[name];
        added[name] = stage.rows;
        if (stage.rows === 0) continue;
        stage.appender.closeSync();
        const spec = STAGE_TABLES[name];
        const select = spec.columns
          .map(([c, k]) => (k === 'dict' ? `d.a[s.${c} + 1]` : ((spec as { casts?: Record<string, string> }).casts?.[c] ?? `s.${c}`)))
          .join(', ');
        // the dictionary is one list value, so every lookup is an index (no join to reorder rows)
        await store.run(
          `bulk.insert.${spec.table}`,
          `INSERT INTO ${spec.table} SELECT ${select} FROM ${stageOf(name)} s, (SELECT list(v ORDER BY i) AS a FROM ${DICT}) d`,
        );
        await openStage(name);
      }
      staged = 0;
      return added;
    },
    async close() {
      for (const name of STAGE_NAMES) {
        try {
          stages[name].appender.closeSync();
        } catch {
          // already closed by a flush that failed half-way
        }
        await store.run('bulk.stage.drop', `DROP TABLE IF EXISTS ${stageOf(name)}`);
      }
      dictAppender.closeSync();
      await store.run('bulk.dict.drop', `DROP TABLE IF EXISTS ${DICT}`);
    },
  };
}
