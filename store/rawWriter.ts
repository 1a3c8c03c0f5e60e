// A RawSink that streams rows into the raw tables. `append` mode writes straight into the
// tables (a fresh database); `dedupe` mode loads staging tables and merges them with an
// anti-join on each table's natural key, so a retried or overlapping batch adds nothing twice.
import type { RawSink } from './rawSink.js';
import type { Store } from './store.js';
import { createChunkLoader, type ChunkLoader, type ColumnKind } from './chunkLoader.js';

interface TableSpec {
  table: string;
  columns: readonly [string, ColumnKind][];
  /** the natural key used to deduplicate */
  key: readonly string[];
  /** SQL casts from the loaded column to the table's column, where the types differ */
  casts?: Record<string, string>;
}

export const RAW_TABLES = {
  snapshots: {
    table: 'vault_snapshots',
    columns: [
      ['vault_id', 'varchar'],
      ['ts', 'timestamp'],
      ['block_number', 'bigint'],
      ['total_assets', 'hugeint'],
      ['total_supply', 'hugeint'],
      ['unit_price', 'hugeint'],
    ],
    key: ['vault_id', 'ts'],
  },
  events: {
    table: 'vault_events',
    columns: [
      ['chain_id', 'bigint'],
      ['block_number', 'bigint'],
      ['log_index', 'integer'],
      ['sub_index', 'integer'],
      ['block_hash', 'varchar'],
      ['tx_hash', 'varchar'],
      ['ts', 'timestamp'],
      ['vault_id', 'varchar'],
      ['kind', 'varchar'],
      ['wallet', 'varchar'],
      ['counterparty', 'varchar'],
      ['token', 'varchar'],
      ['assets', 'hugeint'],
      ['shares', 'hugeint'],
      ['request_hash', 'varchar'],
    ],
    key: ['chain_id', 'block_number', 'log_index', 'sub_index'],
  },
  prices: {
    table: 'prices',
    columns: [
      ['chain_id', 'bigint'],
      ['address', 'varchar'],
      ['ts', 'timestamp'],
      ['usd', 'varchar'],
      ['source', 'varchar'],
    ],
    key: ['chain_id', 'address', 'ts'],
    casts: { usd: 'CAST(usd AS DECIMAL(38, 18))' },
  },
  allocations: {
    table: 'allocations',
    columns: [
      ['vault_id', 'varchar'],
      ['as_of', 'timestamp'],
      ['position', 'integer'],
      ['category', 'varchar'],
      ['target', 'json'],
      ['allocation', 'double'],
      ['amount', 'double'],
      ['amount_usd', 'double'],
    ],
    key: ['vault_id', 'as_of', 'position'],
  },
  tvlSourceValues: {
    table: 'tvl_source_values',
    columns: [
      ['source_id', 'varchar'],
      ['ts', 'timestamp'],
      ['usd', 'varchar'],
      ['error', 'varchar'],
    ],
    key: ['source_id', 'ts'],
    casts: { usd: 'CAST(usd AS DECIMAL(38, 6))' },
  },
  requestTerms: {
    table: 'request_terms',
    columns: [
      ['chain_id', 'bigint'],
      ['vault_id', 'varchar'],
      ['request_hash', 'varchar'],
      ['block_number', 'bigint'],
      ['deadline', 'timestamp'],
      ['solver_tip', 'hugeint'],
    ],
    key: ['vault_id', 'request_hash'],
  },
} as const satisfies Record<string, TableSpec>;

type TableName = keyof typeof RAW_TABLES;

export interface RawWriter {
  readonly sink: RawSink;
  /** Flush everything; in dedupe mode merge the staging tables. Returns rows added per table. */
  finish(): Promise<Record<TableName, number>>;
}

export async function createRawWriter(store: Store, mode: 'append' | 'dedupe'): Promise<RawWriter> {
  const loaders = {} as Record<TableName, ChunkLoader>;
  const names = Object.keys(RAW_TABLES) as TableName[];
  for (const name of names) {
    const spec: TableSpec = RAW_TABLES[name];
    const kinds = spec.columns.map(([, k]) => k);
    // Values that need a cast (decimal strings) always go through a staging table.
    const staged = mode === 'dedupe' || spec.casts !== undefined;
    let target = spec.table;
    if (staged) {
      target = `_stage_${spec.table}`;
      const cols = spec.columns.map(([c, k]) => `${c} ${stageType(k)}`).join(', ');
      await store.run('raw.stage.create', `CREATE OR REPLACE TEMP TABLE ${target} (${cols})`);
    }
    loaders[name] = await createChunkLoader(store, target, kinds);
  }

  const row = <T>(values: T[]) => values;
  const sink: RawSink = {
    snapshot: (r) => loaders.snapshots.push(row([r.vault_id, r.ts, r.block_number, r.total_assets, r.total_supply, r.unit_price])),
    event: (r) =>
      loaders.events.push(
        row([
          r.chain_id,
          r.block_number,
          r.log_index,
          r.sub_index,
          r.block_hash,
          r.tx_hash,
          r.ts,
          r.vault_id,
          r.kind,
          r.wallet,
          r.counterparty,
          r.token,
          r.assets,
          r.shares,
          r.request_hash,
        ]),
      ),
    price: (r) => loaders.prices.push(row([r.chain_id, r.address, r.ts, r.usd, r.source])),
    allocation: (r) => loaders.allocations.push(row([r.vault_id, r.as_of, r.position, r.category, r.target, r.allocation, r.amount, r.amount_usd])),
    tvlSourceValue: (r) => loaders.tvlSourceValues.push(row([r.source_id, r.ts, r.usd, r.error])),
    requestTerms: (r) => loaders.requestTerms.push(row([r.chain_id, r.vault_id, r.request_hash, r.block_number, r.deadline, r.solver_tip])),
  };

  return {
    sink,
    async finish() {
      const added = {} as Record<TableName, number>;
      for (const name of names) {
        const spec: TableSpec = RAW_TABLES[name];
        const loader = loaders[name];
        loader.close();
        const staged = mode === 'dedupe' || spec.casts !== undefined;
        if (!staged) {
          added[name] = loader.rows;
          continue;
        }
        const stage = `_stage_${spec.table}`;
        const select = spec.columns.map(([c]) => spec.casts?.[c] ?? c).join(', ');
        const keys = spec.key.join(', ');
        const before = await count(store, spec.table);
        if (mode === 'dedupe') {
          // Deduplicate within the batch too (a retried page may repeat rows), then against the table.
          await store.run(
            `raw.merge.${spec.table}`,
            `INSERT INTO ${spec.table} SELECT ${select} FROM (
               SELECT * FROM ${stage} QUALIFY row_number() OVER (PARTITION BY ${keys}) = 1
             ) s ANTI JOIN ${spec.table} t USING (${keys})`,
          );
        } else {
          await store.run(`raw.copy.${spec.table}`, `INSERT INTO ${spec.table} SELECT ${select} FROM ${stage}`);
        }
        await store.run('raw.stage.drop', `DROP TABLE ${stage}`);
        added[name] = (await count(store, spec.table)) - before;
      }
      return added;
    },
  };
}

function stageType(kind: ColumnKind): string {
  return {
    varchar: 'VARCHAR',
    json: 'VARCHAR',
    bigint: 'BIGINT',
    integer: 'INTEGER',
    hugeint: 'HUGEINT',
    double: 'DOUBLE',
    boolean: 'BOOLEAN',
    timestamp: 'TIMESTAMP',
  }[kind];
}

async function count(store: Store, table: string): Promise<number> {
  const r = await store.one<{ n: bigint }>(`raw.count.${table}`, `SELECT count(*) AS n FROM ${table}`);
  return Number(r?.n ?? 0n);
}
