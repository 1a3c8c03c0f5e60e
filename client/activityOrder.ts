// The wallet-wide order of activity rows (DESIGN §4.6): (block_timestamp, chain_id,
// block_number, log_index, sub_index); chain and sub-index come from the row id
// `{chain_id}:{block_number}:{log_index}:{sub_index}`.

/** The fields of an activity row the helpers read (the generated ActivityRow satisfies it). */
export interface FlowRow {
  id?: string;
  type: string;
  vault_id: string;
  block_timestamp: number;
  block_number: number;
  log_index: number;
  request_hash: string | null;
  shares_delta: string;
  assets_delta: { native: string; token: unknown };
}

function idParts(row: FlowRow): [number, number] {
  const parts = row.id?.split(':');
  const chain = Number(parts?.[0] ?? row.vault_id.split(':')[0]);
  return [Number.isFinite(chain) ? chain : 0, Number(parts?.[3] ?? 0) || 0];
}

/** Ascending wallet-wide order; sort a copy with it (`[...rows].sort(compareActivity)`). */
export function compareActivity(a: FlowRow, b: FlowRow): number {
  if (a.block_timestamp !== b.block_timestamp) return a.block_timestamp - b.block_timestamp;
  const [ca, sa] = idParts(a);
  const [cb, sb] = idParts(b);
  return ca - cb || a.block_number - b.block_number || a.log_index - b.log_index || sa - sb;
}
