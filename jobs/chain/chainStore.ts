// The chain indexer's SQL, every statement labelled: per-vault checkpoints, recent block hashes,
// stored Provisioner requests, the one-transaction commit of a block range, the rollback past a
// fork point, and the per-chain status row. The caller serializes access (common/mutex.ts).
import { createRawWriter } from '../../store/rawWriter.js';
import { getSetting, setSetting } from '../../store/settings.js';
import type { EventRow, SnapshotRow } from '../../model/rows.js';
import type { Store } from '../../store/store.js';
import { requestKey, type RequestRecord } from './eventRows.js';

export interface Checkpoint {
  block: number;
  hash: string | null;
}

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
        await store.run('ingest.checkpoint.reset', 'DELETE FROM ingest_checkpoints WHERE chain_id = $1 AND stream = $2', [chainId, vaultStream(v.address)]);
        cps.delete(vaultStream(v.address));
        reset.push(v.address);
      }
      await setSetting(store, key, String(v.start_block));
    });
  }
  return reset;
}

export interface StoredHash {
  block: number;
  hash: string;
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

export async function loadCheckpoints(store: Store, chainId: number): Promise<Map<string, Checkpoint>> {
  const rows = await store.rows<{ stream: string; block_number: bigint; block_hash: string | null }>(
    'ingest.checkpoints.read',
    'SELECT stream, block_number, block_hash FROM ingest_checkpoints WHERE chain_id = $1',
    [chainId],
  );
  return new Map(rows.map((r) => [r.stream, { block: Number(r.block_number), hash: r.block_hash }]));
}

/** Stored hashes at or below `atOrBelow`, newest first. */
export async function loadRecentHashes(store: Store, chainId: number, atOrBelow: number, limit: number): Promise<StoredHash[]> {
  const rows = await store.rows<{ block_number: bigint; block_hash: string }>(
    'ingest.hashes.read',
    'SELECT block_number, block_hash FROM block_hashes WHERE chain_id = $1 AND block_number <= $2 ORDER BY block_number DESC LIMIT $3',
    [chainId, atOrBelow, limit],
  );
  return rows.map((r) => ({ block: Number(r.block_number), hash: r.block_hash }));
}

export async function loadRequests(store: Store, chainId: number, keys: readonly { provisioner: string; hash: string }[]): Promise<Map<string, RequestRecord>> {
  const out = new Map<string, RequestRecord>();
  if (keys.length === 0) return out;
  const rows = await store.rows<Record<string, unknown>>(
    'ingest.requests.read',
    `SELECT r.* FROM chain_requests r
       JOIN (SELECT unnest(from_json($2, '[{"provisioner":"VARCHAR","hash":"VARCHAR"}]'), recursive := true)) k
         ON r.provisioner = k.provisioner AND r.request_hash = k.hash
      WHERE r.chain_id = $1`,
    [chainId, JSON.stringify(keys)],
  );
  for (const r of rows) {
    const rec: RequestRecord = {
      chain_id: Number(r.chain_id),
      provisioner: r.provisioner as string,
      request_hash: r.request_hash as string,
      kind: r.kind as 'deposit' | 'redeem',
      vault_id: r.vault_id as string,
      user: r.user_address as string,
      receiver: r.receiver as string,
      token: r.token as string,
      tokens: BigInt(r.tokens as bigint),
      units: BigInt(r.units as bigint),
      block_number: Number(r.block_number),
      log_index: Number(r.log_index),
    };
    out.set(requestKey(rec.provisioner, rec.request_hash), rec);
  }
  return out;
}

const REQUEST_JSON_TYPE = JSON.stringify([
  {
    provisioner: 'VARCHAR',
    request_hash: 'VARCHAR',
    kind: 'VARCHAR',
    vault_id: 'VARCHAR',
    user_address: 'VARCHAR',
    receiver: 'VARCHAR',
    token: 'VARCHAR',
    tokens: 'VARCHAR',
    units: 'VARCHAR',
    block_number: 'BIGINT',
    log_index: 'INTEGER',
  },
]);

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
    if (c.requests.length > 0) {
      const json = JSON.stringify(
        c.requests.map((r) => ({
          provisioner: r.provisioner,
          request_hash: r.request_hash,
          kind: r.kind,
          vault_id: r.vault_id,
          user_address: r.user,
          receiver: r.receiver,
          token: r.token,
          tokens: r.tokens.toString(),
          units: r.units.toString(),
          block_number: r.block_number,
          log_index: r.log_index,
        })),
      );
      await store.run(
        'ingest.requests.insert',
        `INSERT INTO chain_requests
         SELECT $1, provisioner, request_hash, kind, vault_id, user_address, receiver, token,
                tokens::HUGEINT, units::HUGEINT, block_number, log_index
           FROM (SELECT unnest(from_json($2, '${REQUEST_JSON_TYPE}'), recursive := true)) s
          WHERE NOT EXISTS (SELECT 1 FROM chain_requests r
                             WHERE r.chain_id = $1 AND r.provisioner = s.provisioner AND r.request_hash = s.request_hash)`,
        [c.chainId, json],
      );
    }
    if (c.hashes.length > 0) {
      await store.run(
        'ingest.hashes.upsert',
        `INSERT OR REPLACE INTO block_hashes
         SELECT $1, block, hash, make_timestamp(ts * 1000000)
           FROM (SELECT unnest(from_json($2, '[{"block":"BIGINT","hash":"VARCHAR","ts":"BIGINT"}]'), recursive := true))`,
        [c.chainId, JSON.stringify(c.hashes)],
      );
    }
    for (const cp of c.checkpoints) {
      await store.run('ingest.checkpoint.upsert', 'INSERT OR REPLACE INTO ingest_checkpoints VALUES ($1, $2, $3, $4, now()::TIMESTAMP)', [
        c.chainId,
        cp.stream,
        cp.block,
        cp.hash,
      ]);
    }
    await store.run('ingest.hashes.prune', 'DELETE FROM block_hashes WHERE chain_id = $1 AND block_number < $2', [c.chainId, c.pruneBelow]);
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
    const count = async (label: string, sql: string, params: (number | string)[]) => Number((await store.one<{ n: bigint }>(label, sql, params))?.n ?? 0n);
    const prefix = `${chainId}:`;
    const events = await count('ingest.rollback.count_events', 'SELECT count(*) AS n FROM vault_events WHERE chain_id = $1 AND block_number > $2', [
      chainId,
      ancestor.block,
    ]);
    const snapshots = await count(
      'ingest.rollback.count_snapshots',
      'SELECT count(*) AS n FROM vault_snapshots WHERE starts_with(vault_id, $1) AND (block_number > $2 OR ts > make_timestamp($3::BIGINT * 1000000))',
      [prefix, ancestor.block, ancestor.ts],
    );
    await store.run('ingest.rollback.events', 'DELETE FROM vault_events WHERE chain_id = $1 AND block_number > $2', [chainId, ancestor.block]);
    await store.run(
      'ingest.rollback.snapshots',
      'DELETE FROM vault_snapshots WHERE starts_with(vault_id, $1) AND (block_number > $2 OR ts > make_timestamp($3::BIGINT * 1000000))',
      [prefix, ancestor.block, ancestor.ts],
    );
    await store.run('ingest.rollback.requests', 'DELETE FROM chain_requests WHERE chain_id = $1 AND block_number > $2', [chainId, ancestor.block]);
    await store.run('ingest.rollback.hashes', 'DELETE FROM block_hashes WHERE chain_id = $1 AND block_number > $2', [chainId, ancestor.block]);
    await store.run(
      'ingest.rollback.checkpoints',
      'UPDATE ingest_checkpoints SET block_number = $2, block_hash = $3, updated_at = now()::TIMESTAMP WHERE chain_id = $1 AND block_number > $2',
      [chainId, ancestor.block, ancestor.hash],
    );
    return { events, snapshots };
  });
}

export interface IngestStatusRow {
  chain_id: number;
  status: 'ok' | 'stalled';
  consecutive_failures: number;
  last_error: string | null;
  head_block: number | null;
  checkpoint_block: number | null;
  checkpoint_ts: number | null;
}

export async function readIngestStatus(store: Store, chainId?: number): Promise<IngestStatusRow[]> {
  const rows = await store.rows<Record<string, unknown>>(
    'ingest.status.read',
    `SELECT chain_id, status, consecutive_failures, last_error, head_block, checkpoint_block, epoch(checkpoint_ts)::BIGINT AS checkpoint_ts
       FROM ingest_status WHERE $1::BIGINT IS NULL OR chain_id = $1 ORDER BY chain_id`,
    [chainId ?? null],
  );
  const n = (x: unknown) => (x === null || x === undefined ? null : Number(x));
  return rows.map((r) => ({
    chain_id: Number(r.chain_id),
    status: r.status as 'ok' | 'stalled',
    consecutive_failures: Number(r.consecutive_failures),
    last_error: (r.last_error as string | null) ?? null,
    head_block: n(r.head_block),
    checkpoint_block: n(r.checkpoint_block),
    checkpoint_ts: n(r.checkpoint_ts),
  }));
}

export async function writeIngestStatus(store: Store, s: IngestStatusRow): Promise<void> {
  await store.run(
    'ingest.status.upsert',
    `INSERT OR REPLACE INTO ingest_status VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7::BIGINT IS NULL THEN NULL ELSE make_timestamp($7::BIGINT * 1000000) END, now()::TIMESTAMP)`,
    [s.chain_id, s.status, s.consecutive_failures, s.last_error, s.head_block, s.checkpoint_block, s.checkpoint_ts],
  );
}
