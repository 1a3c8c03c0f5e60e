// Test helper: a small demo world simulated into arrays and published with buildSnapshot, without
// a database, so schema tests can validate what the engine really emits. The series carry no APY
// kernels (engine/positions/fixtures.ts builds them), so APYs are null here.
import { buildWalletIndex } from '../../engine/publish/walletIndex.js';
import { trimZeros } from '../../model/format/numbers.js';
import { compareActivity } from '../../engine/activity/activityRows.js';
import { seriesFromSnapshots, priceSeriesFromRows } from './positionFixtures.js';
import { buildSnapshot, type Snapshot } from '../../engine/publish/buildSnapshot.js';
import type { TvlSourceState, VaultSeries, World } from '../../model/world.js';
import { createArraySink } from '../../store/rawSink.js';
import type { SnapshotRow } from '../../model/rows.js';
import { eventTableOf } from '../../model/events.js';
import { positionItemsInThread } from '../../engine/positions/positionItems.js';
import { buildDemoRegistry, simulateDemo, type DemoParams } from '../../jobs/demo/index.js';

export const SMALL_DEMO: DemoParams = { seed: 7, now: Date.UTC(2026, 0, 15) / 1000, vaults: null, wallets: 40, days: 20 };

function groupBy<T>(rows: readonly T[], key: (r: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    let g = out.get(k);
    if (!g) out.set(k, (g = []));
    g.push(r);
  }
  return out;
}

/** The world of `params`, assembled the way engine/load/loadWorld.ts assembles it from DuckDB. */
export function demoWorld(params: DemoParams = SMALL_DEMO): World {
  const registry = buildDemoRegistry(params);
  const { sink, rows } = createArraySink();
  simulateDemo(params, registry, sink);
  const snaps = groupBy<SnapshotRow>(rows.snapshots, (s) => s.vault_id);
  const series = new Map<string, VaultSeries>();
  let end = 0;
  for (const v of registry.vaults) {
    const s = seriesFromSnapshots(
      v,
      (snaps.get(v.vault_id) ?? []).sort((a, b) => a.ts - b.ts),
    );
    series.set(v.vault_id, s);
    if (s.length > 0) end = Math.max(end, s.ts[s.length - 1]!);
  }
  const events = eventTableOf([...rows.events].sort(compareActivity));
  const allocations: World['allocations'] = new Map();
  for (const [vaultId, list] of groupBy(rows.allocations, (a) => a.vault_id)) {
    const asOf = Math.max(...list.map((a) => a.as_of));
    const latest = list.filter((a) => a.as_of === asOf).sort((a, b) => a.position - b.position);
    allocations.set(vaultId, {
      as_of: asOf,
      items: latest.map((a) => ({ category: a.category, target: a.target, allocation: a.allocation, amount: a.amount, amount_usd: a.amount_usd })),
    });
  }
  const tvlSources: TvlSourceState[] = registry.tvl_sources.map((s) => {
    const own = rows.tvlSourceValues.filter((r) => r.source_id === s.id).sort((a, b) => a.ts - b.ts);
    const good = own.filter((r) => r.usd !== null).at(-1);
    const newest = own.at(-1);
    return {
      id: s.id,
      label: s.label,
      last_good: good ? { usd: trimZeros(good.usd!), ts: good.ts } : null,
      last_error: newest?.error ? { message: newest.error, ts: newest.ts } : null,
    };
  });
  const world: World = {
    registry,
    vaults: new Map(registry.vaults.map((v) => [v.vault_id, v])),
    series,
    prices: priceSeriesFromRows(rows.prices.map((p) => ({ ...p, usd: trimZeros(p.usd) }))),
    events,
    allocations,
    tvlSources,
    priceProviderErrors: [],
    end,
    chainHeads: new Map(),
    walletIndex: buildWalletIndex(events),
    positionItems: null,
  };
  world.positionItems = positionItemsInThread(world);
  return world;
}

/** A published snapshot of the small demo world. */
export function demoSnapshot(params: DemoParams = SMALL_DEMO): Snapshot {
  const world = demoWorld(params);
  return buildSnapshot(world, { generation: 1, now: world.end });
}
