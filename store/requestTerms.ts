// Async requests' terms (table request_terms, DESIGN §11.8): deadline and solver tip, one row per
// request, written by the chain indexer from the Provisioner's *Requested events (the demo writes
// them through the raw writer) and read whole into the engine's world (a row per request: small).
import type { RequestRecord } from '../model/rows.js';
import { forEachChunk, type OnChunk } from './chunkStream.js';
import type { Store } from './store.js';

const TERMS_JSON_TYPE = JSON.stringify([{ vault_id: 'VARCHAR', request_hash: 'VARCHAR', block_number: 'BIGINT', deadline: 'BIGINT', solver_tip: 'VARCHAR' }]);

/** Add the terms of `requests` not stored yet (a retried range adds nothing twice). */
export async function insertRequestTerms(store: Store, chainId: number, requests: readonly RequestRecord[]): Promise<void> {
  const rows = requests.filter((r) => r.deadline !== undefined || r.solver_tip !== undefined);
  if (rows.length === 0) return;
  const json = JSON.stringify(
    rows.map((r) => ({
      vault_id: r.vault_id,
      request_hash: r.request_hash,
      block_number: r.block_number,
      deadline: r.deadline ?? null,
      solver_tip: r.solver_tip?.toString() ?? null,
    })),
  );
  await store.run(
    'ingest.terms.insert',
    `INSERT INTO request_terms
     SELECT $1, vault_id, request_hash, block_number, to_timestamp(deadline)::TIMESTAMP, solver_tip::HUGEINT
       FROM (SELECT unnest(from_json($2, '${TERMS_JSON_TYPE}'), recursive := true)) s
      WHERE NOT EXISTS (SELECT 1 FROM request_terms t WHERE t.vault_id = s.vault_id AND t.request_hash = s.request_hash)`,
    [chainId, json],
  );
}

export async function deleteRequestTermsAfter(store: Store, chainId: number, block: number): Promise<void> {
  await store.run('ingest.rollback.terms', 'DELETE FROM request_terms WHERE chain_id = $1 AND block_number > $2', [chainId, block]);
}

/**
 * Every request's terms, in the table's order, as chunks of the columns (0) `vault_id`
 * VARCHAR, (1) `request_hash` VARCHAR, (2) `deadline` DOUBLE (unix s, or NULL), (3)
 * `solver_tip` VARCHAR (base units, or NULL). Streamed: no row object per request on a cold
 * start's path.
 */
export function streamRequestTerms(store: Store, onChunk: OnChunk, signal?: AbortSignal): Promise<void> {
  return forEachChunk(
    store,
    'load.requestTerms',
    'SELECT vault_id, request_hash, epoch(deadline)::DOUBLE AS deadline, solver_tip::VARCHAR AS solver_tip FROM request_terms',
    onChunk,
    [],
    signal,
  );
}
