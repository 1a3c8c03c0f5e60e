// Disk space around the database file: what a batch recompute will write (checked before it
// starts, so a short disk fails in a second instead of after minutes, with the file grown to
// fill the disk), trimming what a failed write left past the database's last block, and
// whether a server can write at all (else it starts read-only).
import { statfsSync, statSync, truncateSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Store } from './store.js';

/** Bytes free to this process where `path` lives (null when the filesystem cannot be asked). */
export function freeBytes(path: string): number | null {
  try {
    const s = statfsSync(dirname(resolve(path)));
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

/**
 * Under this much free space a server starts read-only: DuckDB writes in blocks of 256 KiB and a
 * start writes a few (the cursor secret, the publish identity, a checkpoint); room for a few
 * dozen is room to start and to record some rounds.
 */
export const MIN_FREE_TO_WRITE = 16 * 1024 * 1024;

/**
 * Bytes a derived row takes in the file, rounded up from a full recompute of the demo world
 * (173,572 hourly rows, 22,461 activity rows and 1,101 positions grew it by 11.3 MB: ~56 bytes
 * an hourly row, most of it).
 */
const BYTES_PER = { metric: 60, activity: 56, position: 320 } as const;
/** what is asked for on top of the rows (DuckDB's headers, the WAL, a checkpoint's blocks) */
const SLACK = 4 * 1024 * 1024;

export interface SpaceNeed {
  /** bytes the run is expected to add to the file */
  needed: number;
  /** bytes it can use: free on the disk, plus free blocks inside the file */
  available: number | null;
}

/**
 * What a batch recompute will add: the hourly metric rows past `since` (Unix s; every hour
 * when null), every activity row, and about a position per wallet and vault, at the sizes
 * above with a fifth to spare.
 */
export async function recomputeSpace(store: Store, since: number | null): Promise<SpaceNeed> {
  const row = await store.one<{ metrics: bigint; events: bigint; positions: bigint; free_blocks: bigint; block_size: bigint }>(
    'recompute.space',
    `SELECT (SELECT count(*) FROM vault_snapshots WHERE $1::DOUBLE IS NULL OR epoch(ts) > $1::DOUBLE) AS metrics,
            (SELECT count(*) FROM vault_events) AS events,
            (SELECT count(*) FROM (SELECT DISTINCT wallet, vault_id FROM vault_events)) AS positions,
            d.free_blocks, d.block_size
       FROM pragma_database_size() d WHERE d.database_name = current_database()`,
    [since],
  );
  const n = (x: bigint | undefined) => Number(x ?? 0n);
  const rows = n(row?.metrics) * BYTES_PER.metric + n(row?.events) * BYTES_PER.activity + n(row?.positions) * BYTES_PER.position;
  const disk = freeBytes(store.path);
  return { needed: Math.ceil(rows * 1.2) + SLACK, available: disk === null ? null : disk + n(row?.free_blocks) * n(row?.block_size) };
}

/** DuckDB's main header and its two database headers come before the first block. */
const HEADERS = 3 * 4096;

/**
 * Cut what a failed write left past the database's last block (a transaction that ran out of
 * space extended the file, then rolled back: its blocks are no longer part of the database,
 * and DuckDB does not shrink the file). The store must be open on the file, so no other
 * process writes it meanwhile. Returns the bytes removed.
 */
export async function trimUnusedTail(store: Store): Promise<number> {
  await store.run('trim.checkpoint', 'CHECKPOINT');
  const row = await store.one<{ total_blocks: bigint; block_size: bigint }>(
    'trim.size',
    'SELECT total_blocks, block_size FROM pragma_database_size() WHERE database_name = current_database()',
  );
  if (!row) return 0;
  const used = HEADERS + Number(row.total_blocks) * Number(row.block_size);
  const size = statSync(store.path).size;
  if (size <= used) return 0;
  truncateSync(store.path, used);
  return size - used;
}
