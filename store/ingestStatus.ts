// One row per indexed chain (table ingest_status, DESIGN §9), written after every ingest round:
// failures accumulate across processes, so a chain that keeps failing shows as stalled.
import type { Store } from './store.js';

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

/** Per indexed chain, in chain order: its checkpoint block and time, and whether it stalled (what the served chain heads report). */
export function ingestHeads(store: Store): Promise<{ chain_id: number; block: number | null; ts: number | null; stalled: boolean }[]> {
  return store.rows<{ chain_id: number; block: number | null; ts: number | null; stalled: boolean }>(
    'load.ingest_status',
    `SELECT chain_id::DOUBLE AS chain_id, checkpoint_block::DOUBLE AS block, epoch(checkpoint_ts)::DOUBLE AS ts, status = 'stalled' AS stalled
       FROM ingest_status ORDER BY chain_id`,
  );
}
