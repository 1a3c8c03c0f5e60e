// The chain indexer's checkpoints (table ingest_checkpoints): per chain and stream (one per
// vault), the last block committed and its hash. Written in the transaction of the range they
// close (jobs/chain/chainStore.ts), so a checkpoint never runs ahead of its rows.
import type { Store } from './store.js';

export interface Checkpoint {
  block: number;
  hash: string | null;
}

/** Every stream's checkpoint on a chain. */
export async function readCheckpoints(store: Store, chainId: number): Promise<Map<string, Checkpoint>> {
  const rows = await store.rows<{ stream: string; block_number: bigint; block_hash: string | null }>(
    'ingest.checkpoints.read',
    'SELECT stream, block_number, block_hash FROM ingest_checkpoints WHERE chain_id = $1',
    [chainId],
  );
  return new Map(rows.map((r) => [r.stream, { block: Number(r.block_number), hash: r.block_hash }]));
}

export async function writeCheckpoint(store: Store, chainId: number, cp: { stream: string; block: number; hash: string }): Promise<void> {
  await store.run('ingest.checkpoint.upsert', 'INSERT OR REPLACE INTO ingest_checkpoints VALUES ($1, $2, $3, $4, now()::TIMESTAMP)', [
    chainId,
    cp.stream,
    cp.block,
    cp.hash,
  ]);
}

/** Forget a stream's checkpoint: it is indexed again from its start. */
export async function deleteCheckpoint(store: Store, chainId: number, stream: string): Promise<void> {
  await store.run('ingest.checkpoint.reset', 'DELETE FROM ingest_checkpoints WHERE chain_id = $1 AND stream = $2', [chainId, stream]);
}

/** Bring every checkpoint past `block` back to it (a reorg's common ancestor). */
export async function rewindCheckpoints(store: Store, chainId: number, block: number, hash: string): Promise<void> {
  await store.run(
    'ingest.rollback.checkpoints',
    'UPDATE ingest_checkpoints SET block_number = $2, block_hash = $3, updated_at = now()::TIMESTAMP WHERE chain_id = $1 AND block_number > $2',
    [chainId, block, hash],
  );
}
