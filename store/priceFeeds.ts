// The Chainlink feeds' scan state between rounds (table price_feeds): through which block each
// aggregator was scanned, its newest answer and the newest hour a row was considered for.
import type { Store } from './store.js';

/** What the store keeps per feed between rounds. */
export interface FeedState {
  chain_id: number;
  aggregator: string;
  token_chain_id: number;
  token: string;
  decimals: number;
  /** scanned through this block */
  block: number;
  hash: string | null;
  answer: bigint | null;
  answer_updated_at: number | null;
  /** newest hour a row was considered for */
  last_hour: number;
}

export async function readFeedState(store: Store, chainId: number, aggregator: string): Promise<FeedState | null> {
  const r = await store.one<Record<string, unknown>>(
    'prices.feed.read',
    `SELECT chain_id::DOUBLE AS chain_id, aggregator, token_chain_id::DOUBLE AS token_chain_id, token, decimals, block_number::DOUBLE AS block,
            block_hash, answer::VARCHAR AS answer, answer_updated_at::DOUBLE AS answer_updated_at, last_hour::DOUBLE AS last_hour
       FROM price_feeds WHERE chain_id = $1 AND aggregator = $2`,
    [chainId, aggregator],
  );
  if (!r) return null;
  return {
    chain_id: r.chain_id as number,
    aggregator: r.aggregator as string,
    token_chain_id: r.token_chain_id as number,
    token: r.token as string,
    decimals: r.decimals as number,
    block: r.block as number,
    hash: (r.block_hash as string | null) ?? null,
    answer: r.answer === null ? null : BigInt(r.answer as string),
    answer_updated_at: (r.answer_updated_at as number | null) ?? null,
    last_hour: r.last_hour as number,
  };
}

export async function saveFeedState(store: Store, s: FeedState): Promise<void> {
  await store.run('prices.feed.save', `INSERT OR REPLACE INTO price_feeds VALUES ($1, $2, $3, $4, $5, $6, $7, $8::HUGEINT, $9, $10, now()::TIMESTAMP)`, [
    s.chain_id,
    s.aggregator,
    s.token_chain_id,
    s.token,
    s.decimals,
    s.block,
    s.hash,
    s.answer === null ? null : s.answer.toString(),
    s.answer_updated_at,
    s.last_hour,
  ]);
}

export async function deleteFeedState(store: Store, chainId: number, aggregator: string): Promise<void> {
  await store.run('prices.feed.delete', 'DELETE FROM price_feeds WHERE chain_id = $1 AND aggregator = $2', [chainId, aggregator]);
}
