// Vault allocations (table allocations, DESIGN §3): each vault's latest breakdown.
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

/** Every allocation row, oldest snapshot first (views of the past pick the one at or before their instant). */
export function allAllocations(store: Store): Promise<AllocationRow[]> {
  return store.rows<AllocationRow>(
    'load.allocations.history',
    `SELECT vault_id, epoch(as_of)::DOUBLE AS as_of, category, target::VARCHAR AS target, allocation, amount, amount_usd
       FROM allocations ORDER BY vault_id, as_of, position`,
  );
}
