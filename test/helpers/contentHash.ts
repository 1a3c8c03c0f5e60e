// Content hashes of tables, independent of physical row order: the equality check used by
// determinism, crash-recovery and fault-injection tests ("end state identical").
import { RAW_AND_REGISTRY_TABLES } from '../../store/publishInputs.js';
import type { Store } from '../../store/store.js';

export async function tableHash(store: Store, table: string): Promise<{ rows: number; md5: string }> {
  const row = await store.one<{ n: bigint; h: string | null }>(
    `hash.${table}`,
    `SELECT count(*) AS n, md5(coalesce(string_agg(t::VARCHAR, chr(10) ORDER BY t::VARCHAR), '')) AS h FROM ${table} t`,
  );
  return { rows: Number(row?.n ?? 0n), md5: row?.h ?? '' };
}

export async function tableHashes(store: Store, tables: readonly string[] = RAW_AND_REGISTRY_TABLES) {
  const out: Record<string, { rows: number; md5: string }> = {};
  for (const t of tables) out[t] = await tableHash(store, t);
  return out;
}
