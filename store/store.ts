// The DuckDB store: opens the one database file, applies migrations, and runs labelled
// queries (the label shows in logs and in the query-duration metric). No extension is ever
// auto-installed (no network) and memory is bounded explicitly (DESIGN §8).
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DuckDBInstance, type DuckDBAppender, type DuckDBConnection, type DuckDBResult, type DuckDBTableFunction, type DuckDBValue } from './duckdbApi.js';
import { Histogram } from 'prom-client';
import type { Common } from '../common/common.js';
import { ensureDir } from '../common/ensureDir.js';
import { fileDescriptors } from '../common/fds.js';
import { VaultdError } from '../common/errors.js';
import { MIGRATIONS, type Migration } from './migrations.js';
import { PUBLISH_INPUT_TABLES } from './publishInputs.js';
import { fileState, tableName, writtenTable } from './fileState.js';
import { backupBeforeMigration } from './migrationBackup.js';
import { VERSION } from '../common/version.js';

export type Params = DuckDBValue[] | Record<string, DuckDBValue>;

export interface StoreOptions {
  /** database file, or ':memory:' */
  path: string;
  /** DuckDB worker threads; lower it while the compute pool runs (DESIGN §8) */
  threads?: number;
  memoryLimit?: string;
  migrations?: readonly Migration[];
  /** Refuse to create the file: commands that only read or manage an existing world. */
  mustExist?: boolean;
  /**
   * Open the file read-only (DuckDB's READ_ONLY access: nothing is written, not even a
   * checkpoint): a server starting on a full disk. A file that needs a migration is refused.
   */
  readOnly?: boolean;
}

export interface Store {
  readonly path: string;
  /**
   * A labelled streaming read: the result is fetched chunk by chunk (`fetchChunk()`), for
   * loads too large to materialize as row objects. The label times the query's start.
   */
  stream(label: string, sql: string, params?: Params): Promise<DuckDBResult>;
  /** An appender on `table` for bulk loads through data chunks (store/chunkLoader.ts). */
  appender(table: string): Promise<DuckDBAppender>;
  /** Make a table function callable from this connection's SQL (store/vectorScan.ts). */
  registerTableFunction(fn: DuckDBTableFunction): void;
  /**
   * Run `work` with DuckDB's preserve_insertion_order off, so an INSERT from a source without
   * an order runs on every thread (store/vectorScan.ts). The setting is global and not
   * transactional: it is restored after `work`, or — when `work` failed inside a transaction,
   * which DuckDB then refuses statements in — right after that transaction rolls back.
   */
  withoutInsertionOrder<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Run `work` with DuckDB's buffer pool held to `limit` (e.g. '256MB'), then back to the
   * store's own limit; restored like withoutInsertionOrder's setting. For bulk writes only:
   * the blocks a transaction writes are evicted to the file instead of kept in memory, but a
   * large sort or join under a small limit fails (it cannot always spill).
   */
  withMemoryLimit<T>(limit: string, work: () => Promise<T>): Promise<T>;
  run(label: string, sql: string, params?: Params): Promise<void>;
  /** Rows as plain JS objects (TIMESTAMP → Date, HUGEINT → bigint). For small results only. */
  rows<T = Record<string, unknown>>(label: string, sql: string, params?: Params): Promise<T[]>;
  /** The first row, or null. */
  one<T = Record<string, unknown>>(label: string, sql: string, params?: Params): Promise<T | null>;
  /** Run `fn` in one transaction; rolls back on error. Not re-entrant. */
  transaction<T>(label: string, fn: () => Promise<T>): Promise<T>;
  /** Current schema version. */
  schemaVersion(): Promise<number>;
  /**
   * Statements run on this store so far that may have changed a table a snapshot is built
   * from (PUBLISH_INPUT_TABLES; a statement it cannot read counts too).
   */
  inputWrites(): number;
  /** The file's state (store/fileState.ts) before this store opened it; null for ':memory:' or a file with a log to replay. */
  readonly openedState: string | null;
  /** Run `fn` once the file is closed (publishIdentity saves its stamp then). */
  afterClose(fn: () => void): void;
  /**
   * A second connection to the same open database, for reads that run beside this store's
   * (DuckDB runs one statement per connection at a time; a load of independent tables on two
   * connections overlaps one table's JavaScript with another's query). Its close() closes only
   * that connection; temp tables and transactions are per connection.
   */
  sibling(): Promise<Store>;
  close(): Promise<void>;
}

const INPUTS: ReadonlySet<string> = new Set(PUBLISH_INPUT_TABLES);

/** DuckDB's buffer pool unless a command asks for another. */
const DEFAULT_MEMORY_LIMIT = '4GB';

const queryHistograms = new WeakMap<object, Histogram<'label'>>();

function queryHistogram(common: Common): Histogram<'label'> {
  let h = queryHistograms.get(common.metrics);
  if (!h) {
    h = new Histogram({
      name: 'vaultd_store_query_seconds',
      help: 'DuckDB query duration by label',
      labelNames: ['label'],
      buckets: [0.001, 0.005, 0.02, 0.1, 0.5, 2, 10],
      registers: [common.metrics],
    });
    queryHistograms.set(common.metrics, h);
  }
  return h;
}

export async function createStore(common: Common, options: StoreOptions): Promise<Store> {
  const path = options.path === ':memory:' ? ':memory:' : resolve(options.path);
  if (options.mustExist && path !== ':memory:' && !existsSync(path)) {
    throw new VaultdError('DB_UNAVAILABLE', `no database at "${options.path}"; check --db, or create one with \`vaultd demo --db ${options.path}\``);
  }
  if (path !== ':memory:') ensureDir(dirname(path));
  // DuckDB aborts the process when it cannot open a file mid-way (EMFILE): near the descriptor
  // limit (e.g. a connection flood) the database is not opened, and the caller's round retries.
  const fds = fileDescriptors();
  const free = fds ? fds.limit - fds.open() : Infinity;
  if (fds && free < 2 * fds.reserve) {
    throw new VaultdError(
      'DB_UNAVAILABLE',
      `only ${free} of ${fds.limit} file descriptors are free, so "${options.path}" is not opened now; raise the limit (ulimit -n) or wait for connections to close`,
    );
  }
  const memoryLimit = options.memoryLimit ?? DEFAULT_MEMORY_LIMIT;
  const migrations = options.migrations ?? MIGRATIONS;
  let openedState = fileState(path);
  let instance = await openInstance(path, { ...options, memoryLimit });
  // a file from another release: a newer one is refused, an older one is copied before it migrates
  const pending = await checkSchema(instance, options, migrations);
  if (pending !== null && pending.from > 0 && path !== ':memory:') {
    instance.closeSync(); // closing checkpoints: the copy is the whole database
    const copy = backupBeforeMigration(path, pending.from);
    common.logger.warn(
      { component: 'store', db: options.path, from: pending.from, to: pending.to, backup: copy },
      'migrating the database; a copy of the file as it was is kept',
    );
    openedState = fileState(path);
    instance = await openInstance(path, { ...options, memoryLimit });
  }
  const histogram = queryHistogram(common);
  const logger = common.logger.child({ component: 'store' });

  let inputWrites = 0;
  const closeHooks: (() => void)[] = [];
  const noteWrite = (table: string | null) => {
    if (table !== null && (table === '*' || INPUTS.has(table))) inputWrites++;
  };
  const siblings = new Set<DuckDBConnection>();
  const connect = async (): Promise<Store> => {
    const connection = await instance.connect();
    siblings.add(connection);
    return bind(connection, async () => void siblings.delete(connection));
  };
  const store = bind(await instance.connect(), async () => {
    for (const c of siblings) c.closeSync();
    siblings.clear();
    instance.closeSync();
    for (const fn of closeHooks.splice(0)) fn();
  });
  if (!options.readOnly) await migrate(store, migrations);
  return store;

  /** The store on one connection; `closeThis` runs after that connection is closed. */
  function bind(connection: DuckDBConnection, closeThis: () => Promise<void>): Store {
    async function timed<T>(label: string, sql: string, work: () => Promise<T>): Promise<T> {
      noteWrite(writtenTable(sql));
      const end = histogram.startTimer({ label });
      try {
        return await work();
      } catch (cause) {
        throw new VaultdError('STORE_QUERY_FAILED', `query "${label}" failed: ${(cause as Error).message.split('\n')[0]}`, {
          cause,
          details: { label },
        });
      } finally {
        const seconds = end();
        if (seconds > 1) logger.debug({ label, seconds }, 'slow query');
      }
    }

    let inTransaction = false;
    /** settings to restore once the transaction ends (an aborted one refuses SET) */
    let afterTransaction: (() => Promise<void>)[] = [];
    const runAfterTransaction = async () => {
      const pending = afterTransaction;
      afterTransaction = [];
      for (const restore of pending) await restore();
    };
    /** Run `work` with `SET set`, then `SET restore` (after the transaction when `work` failed inside one). */
    async function withSetting<T>(name: string, set: string, restore: string, work: () => Promise<T>): Promise<T> {
      const undo = () => store.run(`settings.${name}`, `SET ${restore}`);
      await store.run(`settings.${name}`, `SET ${set}`);
      let result: T;
      try {
        result = await work();
      } catch (err) {
        // the work's own error is the one to see; the setting is restored after the transaction when it cannot be now
        await undo().catch(() => void (inTransaction && afterTransaction.push(undo)));
        throw err;
      }
      try {
        await undo();
      } catch (err) {
        if (!inTransaction) throw err;
        afterTransaction.push(undo);
      }
      return result;
    }

    const store: Store = {
      path,
      stream: (label, sql, params) => timed(label, sql, () => connection.stream(sql, params)),
      appender: (table) => {
        noteWrite(tableName(table));
        return connection.createAppender(table);
      },
      registerTableFunction: (fn) => connection.registerTableFunction(fn),
      run: (label, sql, params) => timed(label, sql, async () => void (await connection.run(sql, params))),
      rows: (label, sql, params) => timed(label, sql, async () => (await connection.runAndReadAll(sql, params)).getRowObjectsJS() as never),
      async one(label, sql, params) {
        const rows = await store.rows(label, sql, params);
        return (rows[0] as never) ?? null;
      },
      async transaction(label, fn) {
        if (inTransaction) throw new VaultdError('STORE_QUERY_FAILED', `nested transaction "${label}"`);
        inTransaction = true;
        await connection.run('BEGIN TRANSACTION');
        try {
          const result = await fn();
          await connection.run('COMMIT');
          return result;
        } catch (err) {
          await connection.run('ROLLBACK').catch(() => undefined);
          throw err;
        } finally {
          inTransaction = false;
          await runAfterTransaction();
        }
      },
      async withoutInsertionOrder(work) {
        const before = await store.one<{ v: string }>('settings.insertion_order', "SELECT current_setting('preserve_insertion_order')::VARCHAR AS v");
        return withSetting(
          'insertion_order',
          'preserve_insertion_order = false',
          `preserve_insertion_order = ${before?.v === 'false' ? 'false' : 'true'}`,
          work,
        );
      },
      withMemoryLimit: (limit, work) => withSetting('memory_limit', `memory_limit = '${limit}'`, `memory_limit = '${memoryLimit}'`, work),
      async schemaVersion() {
        const row = await store.one<{ v: number | null }>('schema.version', 'SELECT max(version)::INTEGER AS v FROM schema_migrations');
        return row?.v ?? 0;
      },
      inputWrites: () => inputWrites,
      openedState,
      afterClose: (fn) => void closeHooks.push(fn),
      sibling: connect,
      async close() {
        connection.closeSync();
        await closeThis();
      },
    };
    return store;
  }
}

/** Open the file once; storeHandle's openStoreWithRetry waits out another process's lock. */
async function openInstance(path: string, options: StoreOptions): Promise<DuckDBInstance> {
  try {
    return await DuckDBInstance.create(path, {
      threads: String(options.threads ?? 2),
      memory_limit: options.memoryLimit ?? DEFAULT_MEMORY_LIMIT,
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      ...(options.readOnly ? { access_mode: 'READ_ONLY' } : {}),
    });
  } catch (cause) {
    const message = (cause as Error).message;
    throw new VaultdError('DB_UNAVAILABLE', openFailure(options.path, message, lockHolder(message)), { cause });
  }
}

/** DuckDB's lock conflict names the holder: "Conflicting lock is held in /usr/bin/node (PID 123)". */
export function lockHolder(message: string): string | undefined {
  if (!/Could not set lock on file/i.test(message)) return undefined;
  const m = /held in (.+?) \(PID (\d+)\)/.exec(message);
  return m ? `PID ${m[2]} (${m[1]})` : 'another process';
}

function openFailure(given: string, message: string, holder: string | undefined): string {
  const first = message.split('\n')[0]!;
  if (holder !== undefined) return `database "${given}" is in use by ${holder}; stop that process or pass another --db`;
  if (/not a valid DuckDB database|file is not a DuckDB|Invalid Input Error: The file/i.test(first)) {
    return `"${given}" is not a DuckDB database or is damaged; restore it from a backup, or move it away and create a world with \`vaultd demo --db ${given}\``;
  }
  if (/permission denied|read-only/i.test(first)) return `cannot open database "${given}": ${first}; check the file and its folder are writable`;
  return `cannot open database "${given}": ${first}`;
}

/**
 * The schema version of the file against the code's migrations: null when none is pending, else
 * the version it is at and the one it will reach. A version newer than every migration is a
 * file a newer release wrote: refused (its tables may mean something this code does not know).
 */
async function checkSchema(instance: DuckDBInstance, options: StoreOptions, migrations: readonly Migration[]): Promise<{ from: number; to: number } | null> {
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const connection = await instance.connect();
  let current = 0;
  try {
    const table = await connection.runAndReadAll(
      "SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'schema_migrations' AND schema_name = 'main'",
    );
    if ((table.getRowObjectsJS()[0]?.n as number) > 0) {
      const row = await connection.runAndReadAll('SELECT coalesce(max(version), 0)::INTEGER AS v FROM schema_migrations');
      current = row.getRowObjectsJS()[0]?.v as number;
    }
  } finally {
    connection.closeSync();
  }
  if (current > latest) {
    instance.closeSync();
    throw new VaultdError(
      'DB_UNAVAILABLE',
      `database "${options.path}" has schema version ${current}, newer than this vaultd ${VERSION} knows (${latest}): a newer release wrote it; run that release, or restore the copy kept before its upgrade (${options.path}.schema-v<N>.bak)`,
    );
  }
  if (current === latest) return null;
  if (options.readOnly) {
    instance.closeSync();
    throw new VaultdError(
      'DB_UNAVAILABLE',
      `database "${options.path}" needs a migration (schema version ${current} → ${latest}), which a read-only start cannot run; free some disk space and start again`,
    );
  }
  return { from: current, to: latest };
}

/** Apply every migration newer than the database, each in its own transaction. Idempotent. */
export async function migrate(store: Store, migrations: readonly Migration[]): Promise<number[]> {
  await store.run(
    'schema.init',
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)',
  );
  const current = await store.schemaVersion();
  const applied: number[] = [];
  for (const m of migrations) {
    if (m.version <= current) continue;
    await store.transaction(`migrate.${m.version}`, async () => {
      await store.run(`migrate.${m.version}`, m.sql);
      await store.run('schema.record', 'INSERT INTO schema_migrations VALUES ($1, $2, now()::TIMESTAMP)', [m.version, m.name]);
    });
    applied.push(m.version);
  }
  return applied;
}
