// `vaultd recompute --full` in passes (issue #39): the events, prices and wallet index are read
// once, then the vaults' series a few at a time — as many as `recompute.series_memory_mb` holds —
// and each pass computes its vaults' series on the pool, writes their hourly metrics, their
// events' activity deltas and their positions, and lets them go. Every position and every event
// belongs to one vault, and nothing of one vault's rows reads another's series, so the tables
// hold exactly the rows a recompute holding every series at once writes (the engine's
// recomputeFull, which a server still runs: it publishes what it computes);
// test/recomputeInPasses.test.ts holds the two equal. The series were most of a full
// recompute's memory: 112 bytes a snapshot, 19 GB at 10,000 vaults.
import type { Common } from '../../common/common.js';
import type { World } from '../../model/world.js';
import type { Store } from '../../store/store.js';
import { clearActivityDeltas, clearPositions, clearVaultMetrics } from '../../store/derived.js';
import { snapshotLayout } from '../../store/vaultSnapshots.js';
import type { SeriesCompute, StageTimings } from '../engine.js';
import { loadVaultSeries, type SeriesLayoutCache } from '../load/loadSeries.js';
import { loadWorld } from '../load/loadWorld.js';
import { computePositions, positionsInput, positionsShared, type PositionsOutput } from '../positions/positionItems.js';
import { BYTES_PER_POINT, type SeriesArena } from '../series/vaultSeries.js';
import { appendActivity } from './activityWriter.js';
import { appendVaultMetrics } from './metricsWriter.js';
import { appendPositionRows } from './positionsWriter.js';

/** Positions per pool task at least (fewer are not worth a worker's round trip), in at most 8 tasks. */
const TASK_POSITIONS = 20_000;

export interface PassesOptions {
  /** bytes of series one pass may hold (a vault larger than that is a pass alone) */
  seriesBytes: number;
  /** DuckDB's memory limit while the derived tables are written and the series read */
  writeMemory: string;
  signal?: AbortSignal;
  /** once the events, prices and index are read (the series not yet) */
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

/** A pass: its vaults (registry rows) and their snapshots. */
export interface Pass {
  vaults: World['registry']['vaults'];
  points: number;
}

/**
 * The registry's vaults cut into passes of at most `budget` bytes of series, in the table's
 * order (each pass reads a compact range of rowids); a vault with no snapshot goes in the
 * first pass (its events still have activity rows), a vault past the budget alone in one.
 */
export function planPasses(vaults: World['registry']['vaults'], layout: readonly { vault_id: string; lo: number; n: number }[], budget: number): Pass[] {
  const rows = new Map(layout.map((r) => [r.vault_id, r]));
  const order = [...vaults].sort((a, b) => (rows.get(a.vault_id)?.lo ?? -1) - (rows.get(b.vault_id)?.lo ?? -1));
  const passes: Pass[] = [];
  let pass: Pass = { vaults: [], points: 0 };
  for (const v of order) {
    const n = rows.get(v.vault_id)?.n ?? 0;
    if (pass.vaults.length > 0 && (pass.points + n) * BYTES_PER_POINT > budget) {
      passes.push(pass);
      pass = { vaults: [], points: 0 };
    }
    pass.vaults.push(v);
    pass.points += n;
  }
  if (pass.vaults.length > 0) passes.push(pass);
  return passes;
}

/** `items` grouped by `group(i)` in [0, groups): a counting sort, ascending within a group. */
function groupBy(count: number, groups: number, group: (i: number) => number): { start: Int32Array; items: Int32Array } {
  const start = new Int32Array(groups + 1);
  for (let i = 0; i < count; i++) start[group(i) + 1]!++;
  for (let g = 0; g < groups; g++) start[g + 1]! += start[g]!;
  const at = start.slice(0, groups);
  const items = new Int32Array(count);
  for (let i = 0; i < count; i++) items[at[group(i)]!++] = i;
  return { start, items };
}

/** The members of `groups` of a groupBy, ascending. */
function membersOf(g: { start: Int32Array; items: Int32Array }, groups: readonly number[]): Int32Array {
  let n = 0;
  for (const k of groups) n += g.start[k + 1]! - g.start[k]!;
  const out = new Int32Array(n);
  let at = 0;
  for (const k of groups) {
    out.set(g.items.subarray(g.start[k]!, g.start[k + 1]!), at);
    at += g.start[k + 1]! - g.start[k]!;
  }
  return out.sort();
}

/**
 * Replace vault_metrics_hourly, activity_deltas and positions with a full recompute's rows, in
 * passes. Call it inside one transaction: a failure or a stop (`signal`, seen between chunks
 * and passes) then leaves the previous tables.
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
    const world = await timed('load', () => loadWorld(common, store, { eventHashes: false, series: false, views: false, signal }));
    const layout: SeriesLayoutCache = { perVault: await timed('load', () => snapshotLayout(store)) };
    const passes = planPasses(world.registry.vaults, layout.perVault!, opts.seriesBytes);
    const total = passes.reduce((n, p) => n + p.points, 0);
    // every pass's series in one memory of the largest pass's size (a vault alone past the budget may make it larger)
    const arena: SeriesArena = { buffer: new SharedArrayBuffer(Math.max(8, ...passes.map((p) => (p.points + p.vaults.length) * BYTES_PER_POINT))), used: 0 };
    opts.afterLoad?.();
    common.logger.debug({ passes: passes.length, arena_bytes: arena.buffer.byteLength, memory: process.memoryUsage() }, 'recompute loaded');

    // each vault's events and positions, by the vault's index in the events' dictionary
    const t = world.events;
    const x = world.walletIndex;
    const dictVaults = t.dict.vaults.values;
    const vaultIndex = new Map(dictVaults.map((id, k) => [id, k]));
    const eventsByVault = groupBy(t.length, dictVaults.length, (i) => t.vault[i]!);
    const positionsByVault = groupBy(x.positions, dictVaults.length, (p) => x.posVault[p]!);

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
      arena.used = 0; // the last pass's series are done with: written, and their positions valued
      await store.withMemoryLimit(opts.writeMemory, async () => {
        world.series = await timed('load', () => loadVaultSeries(store, pass.vaults, { apy: true, capacityHours: 0, layout, arena, signal }));
        step(pass, 0.25);
        signal?.throwIfAborted();
        await timed('series', () => compute.run([...world.series.values()].map((series) => ({ series, from: 0 }))));
        step(pass, 0.35);
        signal?.throwIfAborted();
        const mine = pass.vaults.map((v) => vaultIndex.get(v.vault_id)).filter((k): k is number => k !== undefined);
        // the positions on the pool while DuckDB writes the metrics and the activity
        const positions = timed('positions', () => passPositions(world, membersOf(positionsByVault, mine), compute));
        positions.catch(() => undefined); // awaited below
        result.metricRows += await timed('write_metrics', () => appendVaultMetrics(store, world, -Infinity, signal));
        step(pass, 0.75);
        result.activityRows += await timed('write_activity', () => appendActivity(store, world, membersOf(eventsByVault, mine), signal));
        step(pass, 0.9);
        const outputs = await positions;
        signal?.throwIfAborted();
        const written = await timed('write_positions', () => appendPositionRows(store, world, outputs));
        result.positions.rows += written.rows;
        result.positions.skippedRows += written.skippedRows;
      });
      world.series = new Map(); // the pass's series go
      common.logger.debug({ pass: passNo, vaults: pass.vaults.length, snapshots: pass.points, memory: process.memoryUsage() }, 'recompute pass');
      step(pass, 1);
      done += pass.points;
    }
    common.logger.info({ passes: passes.length, series_bytes: opts.seriesBytes, snapshots: total }, 'recomputed in passes');
    return result;
  }
}

/** The positions table's columns of `list` (positions of the pass's vaults), on the pool when there are many. */
async function passPositions(world: World, list: Int32Array, compute: SeriesCompute): Promise<PositionsOutput[]> {
  if (list.length === 0) return [];
  if (compute.positions === null || list.length < TASK_POSITIONS) return [computePositions(positionsInput(world, list, true, false))];
  const shared = positionsShared(world, false);
  const run = compute.positions;
  const tasks = Math.min(8, Math.ceil(list.length / TASK_POSITIONS));
  const cut = (k: number) => Math.round((k * list.length) / tasks);
  return Promise.all(Array.from({ length: tasks }, (_, k) => run(positionsInput(world, list.slice(cut(k), cut(k + 1)), true, false, shared))));
}
