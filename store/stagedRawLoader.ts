// Loads column batches (store/rawColumns.ts) into the raw tables:
// - snapshots (17 M of the benchmark world's 19.6 M rows) go straight into vault_snapshots
//   through an appender: their buffers are DuckDB's vector layout already, and a vault's rows
//   are contiguous, so a batch is cut at vault changes and each piece's vault_id is a constant
//   vector (one string per piece, none per row). DuckDB compresses the row groups on this
//   thread as they fill: measured on 17 M rows, 10.2 s of CPU against 13.5 s through a stage.
// - events and prices (string-heavy, with address columns) go in two steps, because their
//   strings cost DuckDB most on the appending thread:
//   1. the batch's bytes are copied into appender chunks of TEMP staging tables (no value is
//      converted; only hash strings cross one at a time), on the caller's thread;
//   2. `flush()` moves everything staged into the raw tables with one INSERT … SELECT per
//      table, which maps dictionary indexes back to strings and runs on DuckDB's threads, in
//      the staged order: a table scan feeding an insert keeps insertion order, the small
//      dictionary is one list value indexed per row (no join), and a table with address
//      columns (joined: a list of 100,000 addresses costs ~0.4 µs a lookup, the join ~0.03)
//      is put back in order by rowid.
// A caller flushes every ~1 M staged rows, so the stage stays small however large the world is.
import duckdb from '@duckdb/node-bindings';
import { BIGINT, DuckDBDataChunk, HUGEINT, INTEGER, TIMESTAMP, VARCHAR, type DuckDBAppender, type DuckDBType } from './duckdbApi.js';
import { VaultdError } from '../common/errors.js';
import { BATCH_ROWS, KIND_BYTES, STAGE_NAMES, STAGE_TABLES, type RawBatch, type StageKind, type StageName, type StageTable } from './rawColumns.js';
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
const STAGE_TYPE: Record<StageKind, DuckDBType> = { ts: TIMESTAMP, i64: BIGINT, i32: INTEGER, i128: HUGEINT, dict: INTEGER, addr: INTEGER, text: VARCHAR };
const STAGE_SQL: Record<StageKind, string> = {
  ts: 'TIMESTAMP',
  i64: 'BIGINT',
  i32: 'INTEGER',
  i128: 'HUGEINT',
  dict: 'INTEGER',
  addr: 'INTEGER',
  text: 'VARCHAR',
};
const DICT = '_bulk_dict';
const ADDR = '_bulk_addr';
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
  /** appends into the raw table itself (DIRECT_TABLES), not a staging table */
  direct: boolean;
  appender: DuckDBAppender;
  chunk: DuckDBDataChunk;
  rows: number;
}

/**
 * Tables appended straight into the raw table: no text or address column and no cast, and
 * their `dict` columns change rarely along the rows (each run of equal values is one or more
 * chunks with constant vectors). Any order of values stays correct, only slower.
 */
const DIRECT_TABLES: ReadonlySet<StageName> = new Set<StageName>(['snapshots']);
for (const name of DIRECT_TABLES) {
  const spec: StageTable = STAGE_TABLES[name];
  if (spec.casts || spec.columns.some(([, k]) => k === 'text' || k === 'addr')) {
    throw new VaultdError('INTERNAL', `raw table ${spec.table} cannot be appended directly: it has text, address or cast columns`);
  }
}

export async function createStagedRawLoader(store: Store): Promise<StagedRawLoader> {
  const dict = await createDictionaryStage(store, DICT);
  const addr = await createDictionaryStage(store, ADDR);
  // the small dictionary on this side too, for direct tables' constant vectors
  const words: string[] = [];
  const wordValues: (duckdb.Value | undefined)[] = [];
  const wordValue = (i: number): duckdb.Value => {
    const word = words[i];
    if (word === undefined) throw new VaultdError('INTERNAL', `raw batch refers to dictionary entry ${i}, which no batch brought`);
    return (wordValues[i] ??= duckdb.create_varchar(word));
  };

  const stages = {} as Record<StageName, Stage>;
  async function openStage(name: StageName): Promise<void> {
    const spec = STAGE_TABLES[name];
    const kinds = spec.columns.map(([, k]) => k);
    const direct = DIRECT_TABLES.has(name);
    if (!direct) {
      const cols = spec.columns.map(([c, k]) => `${c} ${STAGE_SQL[k]}`).join(', ');
      await store.run('bulk.stage.create', `CREATE OR REPLACE TEMP TABLE ${stageOf(name)} (${cols})`);
    }
    const types = kinds.map((k) => (direct && k === 'dict' ? VARCHAR : STAGE_TYPE[k]));
    const appender = await store.appender(direct ? spec.table : stageOf(name));
    stages[name] = { name, kinds, direct, appender, chunk: DuckDBDataChunk.create(types), rows: 0 };
  }
  for (const name of STAGE_NAMES) await openStage(name);
  let staged = 0;
  const mask = new Uint32Array(VECTOR / 32);

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
      } else if (kind === 'dict' && stage.direct) {
        // the run's one value (appendRuns cut the batch where any dict column changes)
        duckdb.vector_reference_value(vector, wordValue(new Int32Array(data as ArrayBuffer, from * 4, 1)[0]!));
        continue;
      } else {
        const width = KIND_BYTES[kind];
        raw.copy_data_to_vector(vector, 0, data as ArrayBuffer, from * width, n * width);
      }
      if (validity) {
        duckdb.vector_ensure_validity_writable(vector);
        if (from % 64 === 0) {
          raw.copy_data_to_vector_validity(vector, 0, validity, from / 8, Math.ceil(n / 64) * 8);
        } else {
          sliceBits(new Uint32Array(validity), from, n, mask);
          raw.copy_data_to_vector_validity(vector, 0, mask.buffer as ArrayBuffer, 0, Math.ceil(n / 64) * 8);
        }
      }
    }
    duckdb.data_chunk_set_size(chunk, n);
    stage.appender.appendDataChunk(stage.chunk);
  }

  /** A direct table's batch, cut into chunks of at most VECTOR rows with equal dict columns. */
  function appendRuns(stage: Stage, batch: RawBatch): void {
    const dictCols: Int32Array[] = [];
    stage.kinds.forEach((k, c) => {
      if (k === 'dict') dictCols.push(new Int32Array(batch.columns[c] as ArrayBuffer, 0, batch.rows));
    });
    let from = 0;
    while (from < batch.rows) {
      const limit = Math.min(batch.rows, from + VECTOR);
      let to = from + 1;
      while (to < limit && dictCols.every((col) => col[to] === col[from])) to++;
      appendSlice(stage, batch, from, to - from);
      from = to;
    }
  }

  return {
    append(batch) {
      if (batch.rows < 0 || batch.rows > BATCH_ROWS) throw new VaultdError('INTERNAL', `a raw batch holds at most ${BATCH_ROWS} rows, got ${batch.rows}`);
      dict.append(batch.dictionary);
      addr.append(batch.addresses);
      for (const word of batch.dictionary) words.push(word);
      const stage = stages[batch.table];
      if (!stage) throw new VaultdError('INTERNAL', `no staging table for raw batch "${String(batch.table)}"`);
      stage.rows += batch.rows;
      if (stage.direct) return appendRuns(stage, batch);
      for (let from = 0; from < batch.rows; from += VECTOR) appendSlice(stage, batch, from, Math.min(VECTOR, batch.rows - from));
      staged += batch.rows;
    },
    get staged() {
      return staged;
    },
    async flush() {
      const added = {} as Record<StageName, number>;
      dict.flush();
      addr.flush();
      for (const name of STAGE_NAMES) {
        const stage = stages[name];
        added[name] = stage.rows;
        if (stage.direct) {
          // already in the raw table, or in its appender until close() (a crash drops the file)
          stage.rows = 0;
          continue;
        }
        if (stage.rows === 0) continue;
        stage.appender.closeSync();
        const spec = STAGE_TABLES[name];
        await store.run(`bulk.insert.${spec.table}`, insertSql(name));
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
        if (!stages[name].direct) await store.run('bulk.stage.drop', `DROP TABLE IF EXISTS ${stageOf(name)}`);
      }
      await dict.close();
      await addr.close();
    },
  };
}

/** INSERT … SELECT of one staged table into its raw table, dictionary columns mapped back. */
export function insertSql(name: StageName): string {
  const spec: { table: string; columns: readonly (readonly [string, StageKind, boolean])[]; casts?: Readonly<Record<string, string>> } = STAGE_TABLES[name];
  const joins: string[] = [];
  const select = spec.columns.map(([c, k]) => {
    if (k === 'dict') return `d.a[s.${c} + 1]`;
    if (k === 'addr') {
      joins.push(`LEFT JOIN ${ADDR} a_${c} ON a_${c}.i = s.${c}`);
      return `a_${c}.v`;
    }
    return spec.casts?.[c] ?? `s.${c}`;
  });
  const from = `${stageOf(name)} s${joins.map((j) => ` ${j}`).join('')}, (SELECT list(v ORDER BY i) AS a FROM ${DICT}) d`;
  return `INSERT INTO ${spec.table} SELECT ${select.join(', ')} FROM ${from}${joins.length > 0 ? ' ORDER BY s.rowid' : ''}`;
}

/** A dictionary table (i, v) filled by appender as batches bring new entries. */
async function createDictionaryStage(store: Store, table: string) {
  await store.run('bulk.dict.create', `CREATE OR REPLACE TEMP TABLE ${table} (i INTEGER, v VARCHAR)`);
  const appender = await store.appender(table);
  const chunk = DuckDBDataChunk.create([INTEGER, VARCHAR]);
  let size = 0;
  let flushed = 0;
  return {
    append(entries: readonly string[]): void {
      for (let off = 0; off < entries.length; off += VECTOR) {
        const n = Math.min(VECTOR, entries.length - off);
        duckdb.data_chunk_reset(chunk.chunk);
        const ids = new Int32Array(n);
        for (let k = 0; k < n; k++) ids[k] = size + k;
        raw.copy_data_to_vector(duckdb.data_chunk_get_vector(chunk.chunk, 0), 0, ids.buffer, 0, n * 4);
        const strings = duckdb.data_chunk_get_vector(chunk.chunk, 1);
        for (let k = 0; k < n; k++) duckdb.vector_assign_string_element(strings, k, entries[off + k]!);
        duckdb.data_chunk_set_size(chunk.chunk, n);
        appender.appendDataChunk(chunk);
        size += n;
      }
    },
    /** make appended entries visible to queries */
    flush(): void {
      if (size === flushed) return;
      appender.flushSync();
      flushed = size;
    },
    async close(): Promise<void> {
      appender.closeSync();
      await store.run('bulk.dict.drop', `DROP TABLE IF EXISTS ${table}`);
    },
  };
}

/** Bits [from, from + n) of `src` into `out` from bit 0 (n ≤ 32 · out.length). */
export function sliceBits(src: Uint32Array, from: number, n: number, out: Uint32Array): void {
  const shift = from & 31;
  let w = from >>> 5;
  for (let i = 0; i < Math.ceil(n / 32); i++, w++) {
    const lo = src[w] ?? 0;
    out[i] = shift === 0 ? lo : (lo >>> shift) | ((src[w + 1] ?? 0) << (32 - shift));
  }
}
