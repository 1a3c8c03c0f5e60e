// What the chain indexer keeps in the store, composed from the store's table modules: per-vault
// checkpoints, recent block hashes, stored Provisioner requests, the one-transaction commit of
// a block range, the rollback past a fork point, and the per-chain status row. The caller
// serializes access (common/mutex.ts).
import { deleteBlockHashesAfter, pruneBlockHashes, readRecentHashes, writeBlockHashes, type StoredHash } from '../../store/blockHashes.js';
import { readRequests, insertRequests, deleteRequestsAfter } from '../../store/chainRequests.js';
import { deleteRequestTermsAfter, insertRequestTerms } from '../../store/requestTerms.js';
import { deleteCheckpoint, readCheckpoints, rewindCheckpoints, writeCheckpoint, type Checkpoint } from '../../store/checkpoints.js';
import { createRawWriter } from '../../store/rawWriter.js';
import { getSetting, setSetting } from '../../store/settings.js';
import type { EventRow, SnapshotRow } from '../../model/rows.js';
import type { Store } from '../../store/store.js';
import { countEventsAfter, deleteEventsAfter } from '../../store/vaultEvents.js';
import { countSnapshotsAfter, deleteSnapshotsAfter } from '../../store/vaultSnapshots.js';
import { requestKey, type RequestRecord } from './eventRows.js';

export type { Checkpoint } from '../../store/checkpoints.js';
export type { StoredHash } from '../../store/blockHashes.js';
export { readIngestStatus, writeIngestStatus, type IngestStatusRow } from '../../store/ingestStatus.js';

/** One checkpoint stream per vault, so a vault added later is backfilled from its start block. */
export const vaultStream = (address: string) => `vault:${address}`;

/**
 * The start block each vault was first indexed from (kept in settings). A vault whose
 * configured `start_block` moved earlier loses its checkpoint, so the round backfills it from
 * the new start like a newly registered vault (blocks already stored dedupe on their keys).
 * Returns the addresses reset; `cps` loses their checkpoints.
 */
export async function reconcileStartBlocks(
  store: Store,
  chainId: number,
  vaults: readonly { address: string; start_block: number }[],
  cps: Map<string, Checkpoint>,
): Promise<string[]> {
  const reset: string[] = [];
  for (const v of vaults) {
    const key = `ingest.start_block:${chainId}:${v.address}`;
    const stored = await getSetting(store, key);
    if (stored !== null && v.start_block >= Number(stored)) continue;
    await store.transaction('ingest.start_block', async () => {
      if (stored !== null) {
        await deleteCheckpoint(store, chainId, vaultStream(v.address));
        cps.delete(vaultStream(v.address));
        reset.push(v.address);
      }
      await setSetting(store, key, String(v.start_block));
    });
  }
  return reset;
}

export interface RangeCommit {
  chainId: number;
  events: readonly EventRow[];
  snapshots: readonly SnapshotRow[];
  requests: readonly RequestRecord[];
  hashes: readonly { block: number; hash: string; ts: number }[];
  /** streams advanced by this range */
  checkpoints: readonly { stream: string; block: number; hash: string }[];
  /** block hashes below this are no longer needed for reorg detection */
  pruneBelow: number;
}

export function loadCheckpoints(store: Store, chainId: number): Promise<Map<string, Checkpoint>> {
  return readCheckpoints(store, chainId);
}

/** Stored hashes at or below `atOrBelow`, newest first. */
export function loadRecentHashes(store: Store, chainId: number, atOrBelow: number, limit: number): Promise<StoredHash[]> {
  return readRecentHashes(store, chainId, atOrBelow, limit);
}

export async function loadRequests(store: Store, chainId: number, keys: readonly { provisioner: string; hash: string }[]): Promise<Map<string, RequestRecord>> {
  const out = new Map<string, RequestRecord>();
  for (const rec of await readRequests(store, chainId, keys)) out.set(requestKey(rec.provisioner, rec.request_hash), rec);
  return out;
}

/**
 * Rows, requests, block hashes and checkpoints of one block range in ONE transaction: a crash
 * leaves the range wholly in or wholly out, and a retried range adds nothing twice (the raw
 * writer's dedupe mode anti-joins on natural keys; requests and hashes likewise).
 */
export async function commitRange(store: Store, c: RangeCommit): Promise<{ events: number; snapshots: number }> {
  // staging tables are filled before the transaction, as jobs/demo does; the merge is inside it
  const writer = await createRawWriter(store, 'dedupe');
  for (const e of c.events) writer.sink.event(e);
  for (const s of c.snapshots) writer.sink.snapshot(s);
  return store.transaction('ingest.commit', async () => {
    const added = await writer.finish();
    await insertRequests(store, c.chainId, c.requests);
    await insertRequestTerms(store, c.chainId, c.requests);
    await writeBlockHashes(store, c.chainId, c.hashes);
    for (const cp of c.checkpoints) await writeCheckpoint(store, c.chainId, cp);
    await pruneBlockHashes(store, c.chainId, c.pruneBelow);
    return { events: added.events, snapshots: added.snapshots };
  });
}

/**
 * Forget everything after the fork point `ancestor`: events and requests of later blocks,
 * snapshots read at later blocks or of hours after the ancestor's time (their at-or-before
 * block may change), later block hashes; checkpoints come back to the ancestor.
 */
export async function rollbackAfter(
  store: Store,
  chainId: number,
  ancestor: { block: number; hash: string; ts: number },
): Promise<{ events: number; snapshots: number }> {
  return store.transaction('ingest.rollback', async () => {
    const events = await countEventsAfter(store, chainId, ancestor.block);
    const snapshots = await countSnapshotsAfter(store, chainId, ancestor.block, ancestor.ts);
    await deleteEventsAfter(store, chainId, ancestor.block);
    await deleteSnapshotsAfter(store, chainId, ancestor.block, ancestor.ts);
    await deleteRequestsAfter(store, chainId, ancestor.block);
    await deleteRequestTermsAfter(store, chainId, ancestor.block);
    await deleteBlockHashesAfter(store, chainId, ancestor.block);
    await rewindCheckpoints(store, chainId, ancestor.block, ancestor.hash);
    return { events, snapshots };
  });
}
