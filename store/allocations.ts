// Vault allocations (table allocations, DESIGN §3): each vault's latest breakdown, and every
// snapshot of them (the history views of the past read, streamed as columns).
import { forEachChunk, type OnChunk } from './chunkStream.js';
import type { Store } from './store.js';

export interface AllocationRow {
  vault_id: string;
  /** unix s */
  as_of: number;
  category: string;
  /** JSON text */
  target: string;
  allocation: number;
  amount: number;
  amount_usd: number | null;
}

/** Every vault's newest allocation rows, by vault and position. */
export function latestAllocations(store: Store): Promise<AllocationRow[]> {
  return store.rows<AllocationRow>(
    'load.allocations',
    `SELECT vault_id, epoch(as_of)::DOUBLE AS as_of, category, target::VARCHAR AS target, allocation, amount, amount_usd
       FROM allocations a
      WHERE as_of = (SELECT max(as_of) FROM allocations b WHERE b.vault_id = a.vault_id)
      ORDER BY vault_id, position`,
  );
}

/**
 * Every allocation row, per vault oldest snapshot first, then by position (views of the past
 * pick the one at or before their instant), as chunks of the columns (0) `vault` INTEGER — the
 * vault's number in vault_id order —, (1) `vault_id` VARCHAR, (2) `as_of` DOUBLE (unix s), (3)
 * `category_id` INTEGER, (4) `category` VARCHAR, (5) `target_id` INTEGER — the target's number
 * in the order of its JSON text —, (6) `target` VARCHAR (JSON text), (7) `allocation` DOUBLE,
 * (8) `amount` DOUBLE, (9) `amount_usd` DOUBLE (or NULL). The numbers let a reader
 * take each distinct string once: a demo world's 30 k rows hold 25 vaults, 5 categories and
 * 249 targets.
 */
export function streamAllocationHistory(store: Store, onChunk: OnChunk, signal?: AbortSignal): Promise<void> {
  return forEachChunk(
    store,
    'load.allocations.history',
    // the numbers from small joined dictionaries (dense_rank windows over every row cost DuckDB several times as much)
    `WITH v AS (SELECT vault_id, (row_number() OVER (ORDER BY vault_id) - 1)::INTEGER AS vault FROM (SELECT DISTINCT vault_id FROM allocations)),
          c AS (SELECT category, (row_number() OVER (ORDER BY category) - 1)::INTEGER AS category_id FROM (SELECT DISTINCT category FROM allocations)),
          g AS (SELECT target, (row_number() OVER (ORDER BY target) - 1)::INTEGER AS target_id FROM (SELECT DISTINCT target::VARCHAR AS target FROM allocations))
     SELECT v.vault, a.vault_id, epoch(a.as_of)::DOUBLE AS as_of, c.category_id, a.category, g.target_id, g.target, a.allocation, a.amount, a.amount_usd
       FROM allocations a JOIN v USING (vault_id) JOIN c USING (category) JOIN g ON g.target = a.target::VARCHAR
      ORDER BY a.vault_id, a.as_of, a.position`,
    onChunk,
    [],
    signal,
  );
}
