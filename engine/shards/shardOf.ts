// Which shard of a sharded recompute a key belongs to (issue #39, DESIGN §10): a stable hash
// (FNV-1a, 32 bits, of the key's UTF-8 bytes, lower-cased) modulo the shard count. Stable
// across runs, machines and releases, so every shard of one run agrees without talking.
import { VaultdError } from '../../common/errors.js';

export interface ShardSpec {
  /** 0 ≤ index < count */
  index: number;
  count: number;
}

/** Shards a run may be cut into (each shard's files are named with four digits). */
export const MAX_SHARDS = 9999;

export function shardOf(key: string, count: number): number {
  const bytes = Buffer.from(key.toLowerCase(), 'utf8');
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h % count;
}

/** `--shard i/n`: shard i (from 0) of n. */
export function parseShard(raw: string): ShardSpec {
  const m = /^(\d+)\/(\d+)$/.exec(raw);
  const index = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!m || !(count >= 1 && count <= MAX_SHARDS) || !(index < count)) {
    throw new VaultdError('USAGE', `--shard "${raw}": expected i/n with 1 ≤ n ≤ ${MAX_SHARDS} and 0 ≤ i < n (shard i of n, counted from 0), e.g. --shard 0/4`);
  }
  return { index, count };
}
