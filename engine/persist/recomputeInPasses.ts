// `vaultd recompute --full` in passes (issue #39): the registry and prices are read once, then
// the vaults a few at a time — as many as `recompute.pass_memory_mb` holds of their series and
// events — and each pass reads its vaults' events and series, computes the series on the pool,
// writes their hourly metrics, their events' activity deltas and their positions, and lets them
// go. Every position and every event belongs to one vault, and nothing of one vault's rows reads
// another's, so the tables hold exactly the rows a recompute holding everything at once writes
// (the engine's recomputeFull, which a server still runs: it publishes what it computes); a
// position's id is the one a load of all events gives it, ranked in SQL once
// (store/vaultEvents.ts stagePositionIds). test/recomputeInPasses.test.ts holds the two equal.
// Held at once, the series (112 bytes a snapshot) and events were a full recompute's memory:
// 19 GB and 1.8 GB at 10,000 vaults.
import type { Common } from '../../common/common.js';
import type { World } from '../../model/world.js';
import type { Store } from '../../store/store.js';
import { clearActivityDeltas, clearPositions, clearVaultMetrics } from '../../store/derived.js';
import { dropPassTables, eventCountsByVault, positionIdsOf, stagePassEvents, stagePositionIds } from '../../store/vaultEvents.js';
import { snapshotLayout } from '../../store/vaultSnapshots.js';
import type { SeriesCompute, StageTimings } from '../engine.js';
import { loadVaultSeries, type SeriesLayoutCache } from '../load/loadSeries.js';
import { loadEventTable } from '../load/loadEvents.js';
import { loadWorld } from '../load/loadWorld.js';
import type { SharedArena } from '../../model/arena.js';
import { createEventTable, eventTableBytes } from '../../model/events.js';
import { buildWalletIndex } from '../publish/walletIndex.js';
import { positionsInput, positionsInTasks, positionsShared, type PositionsOutput } from '../positions/positionItems.js';
import { BYTES_PER_POINT } from '../series/vaultSeries.js';
import { appendActivity } from './activityWriter.js';
import { appendVaultMetrics } from './metricsWriter.js';
import { appendPositionRows } from './positionsWriter.js';

export interface PassesOptions {
  /** bytes of series and events one pass may hold (a vault larger than that is a pass alone) */
  passBytes: number;
  signal?: AbortSignal;
  /** once the registry and prices are read, the positions' ids ranked and the passes planned */
  afterLoad?: () => void;
  /** the part of the passes' work done, from 0 to 1 (by snapshots, a pass's steps in fixed shares) */
  onProgress?: (fraction: number) => void;
}

export interface PassesResult {
  vaults: number;
  passes: number;
  metricRows: number;
  positions: { rows: number; skippedRows: number };
  activityRows: number;
  timings: StageTimings;
}

/** A pass: its vaults (registry rows), their snapshots and events, and the bytes those take in memory. */
export interface Pass {
  vaults: World['registry']['vaults'];
  points: number;
  events: number;
  bytes: number;
}

/** Bytes a pass's series and event table take (each vault's series at least one point). */
export function passBytes(vaults: number, points: number, events: number): number {
  return (points + vaults) * BYTES_PER_POINT + eventTableBytes(events);
}

/**
 * The registry's vaults cut into passes of at most `budget` bytes of series and events, in the
 * snapshots table's order (each pass reads a compact range of rowids); a vault with no snapshot
 * goes in the first pass (its events still have activity rows), a vault past the budget alone
 * in one.
 */
export function planPasses(
  vaults: World['registry']['vaults'],
  layout: readonly { vault_id: string; lo: number; n: number }[],
  events: ReadonlyMap<string, number>,
  budget: number,
): Pass[] {
  const rows = new Map(layout.map((r) => [r.vault_id, r]));
  const order = [...vaults].sort((a, b) => (rows.get(a.vault_id)?.lo ?? -1) - (rows.get(b.vault_id)?.lo ?? -1));
  const passes: Pass[] = [];
  let pass: Pass = { vaults: [], points: 0, events: 0, bytes: 0 };
  for (const v of order) {
    const n = rows.get(v.vault_id)?.n ?? 0;
    const e = events.get(v.vault_id) ?? 0;
    const bytes = passBytes(pass.vaults.length + 1, pass.points + n, pass.events + e);
    if (pass.vaults.length > 0 && bytes > budget) {
      passes.push(pass);
      pass = { vaults: [], points: 0, events: 0, bytes: 0 };
    }
    pass.vaults.push(v);
    pass.points += n;
    pass.events += e;
    pass.bytes = passBytes(pass.vaults.length, pass.points, pass.events);
  }
  if (pass.vaults.length > 0) passes.push(pass);
  return passes;
}

/**
 * Replace vault_metrics_hourly, activity_deltas and positions with a full recompute's rows, in
 * passes. Call it inside one transaction (and with a small DuckDB memory limit: its reads and
 * sorts spill): a failure or a stop (`signal`, seen between chunks and passes) then leaves the
 * previous tables.
 */
export async function recomputeInPasses(common: Common, store: Store, compute: SeriesCompute, opts: PassesOptions): Promise<PassesResult> {
  const timings: StageTimings = { load: 0, series: 0, positions: 0, write_metrics: 0, write_activity: 0, write_positions: 0 };
  let stage = 'load';
  let passNo = 0;
  const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    stage = name;
    try {
      return await work();
    } finally {
      timings[name] = Math.round((timings[name]! + performance.now() - t0) * 10) / 10;
    }
  };
  const { signal } = opts;
  try {
    return await inPasses();
  } catch (err) {
    // the caller's transaction rolls back: the previous tables stay; a stop says where it cut the work
    if (signal?.aborted) common.logger.info({ stage, pass: passNo, timings }, 'recompute stopped');
    throw err;
  }

  async function inPasses(): Promise<PassesResult> {
    // the registry, prices and what else every pass shares; no series, no events (each pass reads its own)
    const world = await timed('load', () => loadWorld(common, store, { eventHashes: false, series: false, events: false, views: false, signal }));
    const layout: SeriesLayoutCache = { perVault: await timed('load', () => snapshotLayout(store)) };
    // every position's id as a load of all events numbers them (a pass's own index numbers only its own)
    await timed('load', () => stagePositionIds(store));
    const passes = planPasses(world.registry.vaults, layout.perVault!, await timed('load', () => eventCountsByVault(store)), opts.passBytes);
    const total = passes.reduce((n, p) => n + p.points, 0);
    // every pass's events and series in one memory of the largest pass's size (a vault alone past the budget may make it larger)
    const arena: SharedArena = { buffer: new SharedArrayBuffer(Math.max(8, ...passes.map((p) => p.bytes))), used: 0 };
    opts.afterLoad?.();
    common.logger.debug({ passes: passes.length, arena_bytes: arena.buffer.byteLength, memory: process.memoryUsage() }, 'recompute loaded');

    await clearVaultMetrics(store);
    await clearActivityDeltas(store);
    await clearPositions(store);
    const result: PassesResult = {
      vaults: world.registry.vaults.length,
      passes: passes.length,
      metricRows: 0,
      positions: { rows: 0, skippedRows: 0 },
      activityRows: 0,
      timings,
    };
    let done = 0;
    // a pass's steps in shares of its time (measured on the benchmark world)
    const step = (pass: Pass, share: number) => opts.onProgress?.(total === 0 ? share : (done + share * pass.points) / total);
    for (const pass of passes) {
      passNo++;
      signal?.throwIfAborted();
      arena.used = 0; // the last pass's events and series are done with: written, and their positions valued
      const ids = pass.vaults.map((v) => v.vault_id);
      world.events = await timed('load', async () => {
        await stagePassEvents(store, ids);
        return loadEventTable(store, null, { pass: true }, { hashes: false, arena, signal });
      });
      world.walletIndex = buildWalletIndex(world.events);
      const id = await timed('load', () => globalIds(store, world, ids));
      world.series = await timed('load', () => loadVaultSeries(store, pass.vaults, { apy: true, capacityHours: 0, layout, arena, signal }));
      step(pass, 0.25);
      signal?.throwIfAborted();
      await timed('series', () => compute.run([...world.series.values()].map((series) => ({ series, from: 0 }))));
      step(pass, 0.35);
      signal?.throwIfAborted();
      // the positions on the pool while DuckDB writes the metrics and the activity
      const all = Int32Array.from({ length: world.walletIndex.positions }, (_, p) => p);
      const positions = timed('positions', () => passPositions(world, all, compute));
      positions.catch(() => undefined); // awaited below
      result.metricRows += await timed('write_metrics', () => appendVaultMetrics(store, world, -Infinity, signal));
      step(pass, 0.75);
      result.activityRows += await timed('write_activity', () => appendActivity(store, world, null, signal));
      step(pass, 0.9);
      const outputs = await positions;
      signal?.throwIfAborted();
      const written = await timed('write_positions', () => appendPositionRows(store, world, outputs, id));
      result.positions.rows += written.rows;
      result.positions.skippedRows += written.skippedRows;
      // the pass's series (their arena is reused), events and index go
      world.series = new Map();
      world.events = createEventTable(0);
      world.walletIndex = buildWalletIndex(world.events);
      common.logger.debug({ pass: passNo, vaults: pass.vaults.length, snapshots: pass.points, memory: process.memoryUsage() }, 'recompute pass');
      step(pass, 1);
      done += pass.points;
    }
    await dropPassTables(store);
    common.logger.info({ passes: passes.length, pass_bytes: opts.passBytes, snapshots: total }, 'recomputed in passes');
    return result;
  }
}

/** Each of the pass's positions' id in the positions table (1 + its id among all events' positions). */
async function globalIds(store: Store, world: World, vaults: readonly string[]): Promise<(p: number) => number> {
  const staged = new Map<string, number>();
  for (const r of await positionIdsOf(store, vaults)) staged.set(`${r.vault_id}\n${r.wallet}`, r.p);
  const x = world.walletIndex;
  const dict = world.events.dict;
  const ids = new Int32Array(x.positions);
  for (let p = 0; p < x.positions; p++) {
    const g = staged.get(`${dict.vaults.values[x.posVault[p]!]!}\n${dict.wallets.values[x.posWallet[p]!]!}`);
    if (g === undefined) throw new Error(`recompute pass: position ${p} has no staged id`);
    ids[p] = g + 1;
  }
  return (p) => ids[p]!;
}

/** The positions table's columns of `list` (positions of the pass's vaults), on the pool when there are many. */
function passPositions(world: World, list: Int32Array, compute: SeriesCompute): Promise<PositionsOutput[]> {
  return positionsInTasks(
    list,
    compute.positions,
    (sub, shared) => positionsInput(world, sub, true, false, shared),
    () => positionsShared(world, false),
  );
}
