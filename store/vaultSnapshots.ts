// Hourly vault snapshots (table vault_snapshots, DESIGN §3): the engine's streamed read of every
// row into resident series (engine/load/loadSeries.ts) — a layout by rowid, then the rows by
// position or, where vaults interleave, with an integer vault index —, the rows a refresh
// appends, the chain heads they imply, and the indexer's rollback past a fork point.
import { forEachChunk, type OnChunk } from './chunkStream.js';
import type { Store } from './store.js';

/** Per vault: the smallest and largest rowid of its rows and their count. */
export function snapshotLayout(store: Store): Promise<{ vault_id: string; lo: number; hi: number; n: number }[]> {
  return store.rows<{ vault_id: string; lo: number; hi: number; n: number }>(
    'series.layout',
    'SELECT vault_id, min(rowid)::DOUBLE AS lo, max(rowid)::DOUBLE AS hi, count(*)::DOUBLE AS n FROM vault_snapshots GROUP BY vault_id',
  );
}

export interface SnapshotBlockLayout {
  /**
   * 'segment': a vault's rows [lo, hi] in a block where every vault's rows are contiguous;
   * 'mixed_rows': `n`, a vault's rows in the other blocks; 'mixed_block': such a block's rowids [lo, hi]
   */
  kind: 'segment' | 'mixed_rows' | 'mixed_block';
  vault_id: string | null;
  lo: number;
  hi: number;
  n: number;
}

/** The table cut into blocks of 2^blockBits rowids: which blocks hold each vault's rows contiguously, and which interleave vaults. */
export function snapshotBlockLayout(store: Store, blockBits: number): Promise<SnapshotBlockLayout[]> {
  return store.rows<SnapshotBlockLayout>(
    'series.layout.blocks',
    `WITH g AS (
       SELECT vault_id, rowid >> ${blockBits} AS blk, min(rowid) AS lo, max(rowid) AS hi, count(*) AS n
       FROM vault_snapshots GROUP BY ALL),
     b AS (SELECT blk, bool_and(n = hi - lo + 1) AS clean FROM g GROUP BY blk)
     SELECT 'segment' AS kind, g.vault_id, g.lo::DOUBLE AS lo, g.hi::DOUBLE AS hi, g.n::DOUBLE AS n
       FROM g JOIN b USING (blk) WHERE b.clean
     UNION ALL
     SELECT 'mixed_rows', g.vault_id, 0, 0, sum(g.n)::DOUBLE FROM g JOIN b USING (blk) WHERE NOT b.clean GROUP BY g.vault_id
     UNION ALL
     SELECT 'mixed_block', NULL, (blk << ${blockBits})::DOUBLE, ((blk << ${blockBits}) + ${(1 << blockBits) - 1})::DOUBLE, 0
       FROM b WHERE NOT b.clean`,
  );
}

const COLUMNS = 'epoch(ts) AS ts, total_assets, total_supply, coalesce(unit_price, 0::HUGEINT) AS unit_price, block_number::DOUBLE AS block';

/**
 * The rows in table order — all of them, or those with rowid in `span` — as chunks of the
 * columns (0) `rowid` BIGINT, (1) `ts` DOUBLE (unix s), (2) `total_assets`, (3) `total_supply`,
 * (4) `unit_price` HUGEINT (0 where none is published), (5) `block` DOUBLE (the block number).
 */
export function streamSnapshotsByRowid(store: Store, span: readonly [number, number] | null, onChunk: OnChunk, signal?: AbortSignal): Promise<void> {
  const where = span ? ` WHERE rowid BETWEEN ${Number(span[0])} AND ${Number(span[1])}` : '';
  return forEachChunk(store, 'series.load', `SELECT rowid, ${COLUMNS} FROM vault_snapshots${where}`, onChunk, undefined, signal);
}

/**
 * The rows of `vaults` with rowid in any of `ranges`, in no order, as chunks of the columns
 * (0) `k` DOUBLE — the vault's index in `vaults` —, (1) `rowid` BIGINT, (2) `ts` DOUBLE,
 * (3) `total_assets`, (4) `total_supply`, (5) `unit_price` HUGEINT, (6) `block` DOUBLE.
 */
export function streamSnapshotsOfRanges(
  store: Store,
  vaults: readonly { vault_id: string }[],
  ranges: readonly (readonly [number, number])[],
  onChunk: OnChunk,
  signal?: AbortSignal,
): Promise<void> {
  const values = vaults.map((v, k) => `('${v.vault_id.replaceAll("'", "''")}', ${k})`).join(', ');
  const where = ranges.map(([a, b]) => `s.rowid BETWEEN ${Number(a)} AND ${Number(b)}`).join(' OR ');
  const sql = `WITH idx(vault_id, k) AS (VALUES ${values})
    SELECT idx.k::DOUBLE AS k, s.rowid, epoch(s.ts) AS ts, s.total_assets, s.total_supply, coalesce(s.unit_price, 0::HUGEINT) AS unit_price, s.block_number::DOUBLE AS block
    FROM vault_snapshots s JOIN idx ON s.vault_id = idx.vault_id WHERE ${where}`;
  return forEachChunk(store, 'series.load.mixed', sql, onChunk, undefined, signal);
}

export interface NewSnapshotRow {
  vault_id: string;
  ts: number;
  block_number: number;
  total_assets: bigint;
  total_supply: bigint;
  unit_price: bigint | null;
}

/** Rows of hours after `ts` (unix s), by vault and hour: what a refresh appends. */
export function snapshotsAfter(store: Store, ts: number): Promise<NewSnapshotRow[]> {
  return store.rows<NewSnapshotRow>(
    'refresh.snapshots',
    `SELECT vault_id, epoch(ts)::DOUBLE AS ts, block_number::DOUBLE AS block_number, total_assets, total_supply, unit_price
       FROM vault_snapshots WHERE epoch(ts) > $1 ORDER BY vault_id, ts`,
    [ts],
  );
}

/** Per chain, in chain order: the newest snapshot's block and hour. */
export function snapshotChainHeads(store: Store): Promise<{ chain_id: number; block: number; ts: number }[]> {
  return store.rows<{ chain_id: number; block: number; ts: number }>(
    'load.chain_heads',
    `SELECT v.chain_id::DOUBLE AS chain_id, max(s.block_number)::DOUBLE AS block, epoch(max(s.ts))::DOUBLE AS ts
       FROM vault_snapshots s JOIN vaults v USING (vault_id) GROUP BY v.chain_id ORDER BY v.chain_id`,
  );
}

const AFTER_FORK = 'starts_with(vault_id, $1) AND (block_number > $2 OR ts > make_timestamp($3::BIGINT * 1000000))';

/** Snapshots of a chain's vaults (vault ids `{chain}:…`) read after `block` or of hours after `ts` (unix s). */
export async function countSnapshotsAfter(store: Store, chainId: number, block: number, ts: number): Promise<number> {
  const row = await store.one<{ n: bigint }>('ingest.rollback.count_snapshots', `SELECT count(*) AS n FROM vault_snapshots WHERE ${AFTER_FORK}`, [
    `${chainId}:`,
    block,
    ts,
  ]);
  return Number(row?.n ?? 0n);
}

export async function deleteSnapshotsAfter(store: Store, chainId: number, block: number, ts: number): Promise<void> {
  await store.run('ingest.rollback.snapshots', `DELETE FROM vault_snapshots WHERE ${AFTER_FORK}`, [`${chainId}:`, block, ts]);
}
