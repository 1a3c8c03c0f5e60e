// Recent block hashes per chain (table block_hashes): the window a new round compares with the
// chain to find a reorg's fork point (jobs/chain/detectReorg.ts).
import type { Store } from './store.js';

export interface StoredHash {
  block: number;
  hash: string;
}

/** Stored hashes at or below `atOrBelow`, newest first. */
export async function readRecentHashes(store: Store, chainId: number, atOrBelow: number, limit: number): Promise<StoredHash[]> {
  const rows = await store.rows<{ block_number: bigint; block_hash: string }>(
    'ingest.hashes.read',
    'SELECT block_number, block_hash FROM block_hashes WHERE chain_id = $1 AND block_number <= $2 ORDER BY block_number DESC LIMIT $3',
    [chainId, atOrBelow, limit],
  );
  return rows.map((r) => ({ block: Number(r.block_number), hash: r.block_hash }));
}

export async function writeBlockHashes(store: Store, chainId: number, hashes: readonly { block: number; hash: string; ts: number }[]): Promise<void> {
  if (hashes.length === 0) return;
  await store.run(
    'ingest.hashes.upsert',
    `INSERT OR REPLACE INTO block_hashes
     SELECT $1, block, hash, make_timestamp(ts * 1000000)
       FROM (SELECT unnest(from_json($2, '[{"block":"BIGINT","hash":"VARCHAR","ts":"BIGINT"}]'), recursive := true))`,
    [chainId, JSON.stringify(hashes)],
  );
}

/** Drop the hashes below `block`: no longer needed for reorg detection. */
export async function pruneBlockHashes(store: Store, chainId: number, below: number): Promise<void> {
  await store.run('ingest.hashes.prune', 'DELETE FROM block_hashes WHERE chain_id = $1 AND block_number < $2', [chainId, below]);
}

export async function deleteBlockHashesAfter(store: Store, chainId: number, block: number): Promise<void> {
  await store.run('ingest.rollback.hashes', 'DELETE FROM block_hashes WHERE chain_id = $1 AND block_number > $2', [chainId, block]);
}
