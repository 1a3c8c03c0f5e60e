// Aera Provisioner requests (table chain_requests): kept until a later range settles or refunds
// them, so their amounts are known when it does.
import type { RequestRecord } from '../model/rows.js';
import type { Store } from './store.js';

/** The stored requests among `keys` (provisioner and request hash). */
export async function readRequests(store: Store, chainId: number, keys: readonly { provisioner: string; hash: string }[]): Promise<RequestRecord[]> {
  if (keys.length === 0) return [];
  const rows = await store.rows<Record<string, unknown>>(
    'ingest.requests.read',
    `SELECT r.* FROM chain_requests r
       JOIN (SELECT unnest(from_json($2, '[{"provisioner":"VARCHAR","hash":"VARCHAR"}]'), recursive := true)) k
         ON r.provisioner = k.provisioner AND r.request_hash = k.hash
      WHERE r.chain_id = $1`,
    [chainId, JSON.stringify(keys)],
  );
  return rows.map((r) => ({
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
  }));
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

/** Add the requests not stored yet (a retried range adds nothing twice). */
export async function insertRequests(store: Store, chainId: number, requests: readonly RequestRecord[]): Promise<void> {
  if (requests.length === 0) return;
  const json = JSON.stringify(
    requests.map((r) => ({
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
    [chainId, json],
  );
}

export async function deleteRequestsAfter(store: Store, chainId: number, block: number): Promise<void> {
  await store.run('ingest.rollback.requests', 'DELETE FROM chain_requests WHERE chain_id = $1 AND block_number > $2', [chainId, block]);
}
