// The derived tables a batch recompute writes (DESIGN §3: vault_metrics_hourly, positions,
// activity_deltas under the activity view): cleared here, filled by the engine's writers
// (engine/persist/) through appenders and table functions.
import type { Store } from './store.js';

/** Clear vault_metrics_hourly: every row, or only hours after `afterTs` (unix s) when it is finite. */
export async function clearVaultMetrics(store: Store, afterTs = -Infinity): Promise<void> {
  const partial = Number.isFinite(afterTs);
  await store.run(
    'derived.metrics.clear',
    partial ? 'DELETE FROM vault_metrics_hourly WHERE ts > to_timestamp($1)::TIMESTAMP' : 'DELETE FROM vault_metrics_hourly',
    partial ? [afterTs] : [],
  );
}

/** The newest hour written to vault_metrics_hourly (unix s), or null when empty. */
export async function lastMetricHour(store: Store): Promise<number | null> {
  const row = await store.one<{ t: number | null }>('recompute.last', 'SELECT epoch(max(ts))::DOUBLE AS t FROM vault_metrics_hourly');
  return row?.t ?? null;
}

export async function clearActivityDeltas(store: Store): Promise<void> {
  await store.run('derived.activity.clear', 'DELETE FROM activity_deltas');
}

export async function clearPositions(store: Store): Promise<void> {
  await store.run('derived.positions.clear', 'DELETE FROM positions');
}
