// Series recompute on the 1,000-vault × 730-day world (DESIGN §8): the JS kernels on the
// compute pool against the same computation written as DuckDB SQL, in one run, with equal
// outputs asserted; and the incremental recompute after one new hour of every vault.
// Targets: full ≤ 3 s on 2 cores and ≥ 3× faster than SQL; incremental ≤ 100 ms.
// World: $VAULTD_BENCH_DB (kept), or built (~60 s) in a temp folder removed after the run.
// Runnable alone (`node dist/bench/seriesRecompute.bench.js`) and through bench/run.ts.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Bench, type Task } from 'tinybench';
import { createCommon, type Common } from '../common/common.js';
import { loadConfig } from '../common/config.js';
import { VAULT_TYPES } from '../families/index.js';
import { createLogger } from '../common/logger.js';
import { createDemoWorld } from '../jobs/demo/createDemoWorld.js';
import { loadVaultSeries, type LoadSeriesStats } from '../engine/load/loadSeries.js';
import type { VaultSeries } from '../model/world.js';
import { createComputePool, type ComputePool } from '../engine/pool/computePool.js';
import { recomputeSeries } from '../engine/pool/recomputeSeries.js';
import { APY_WINDOW_DAYS, apyColumn, computeApy } from '../engine/series/apyWindows.js';
import { windowPoints, type GridGranularity } from '../engine/series/rollups.js';
import { dropSqlTwin, readTwinRollup, readTwinSeries, runSqlTwin, type SqlTwinTimings } from './series/sqlTwin.js';
import { computeUnitPrices } from '../engine/series/unitPrices.js';
import { appendSnapshot, type SeriesSnapshot } from '../engine/series/vaultSeries.js';
import { createStore, type Store } from '../store/store.js';
import type { BenchOutput } from './run.js';

export const TARGET_FULL_MS = 3000;
export const TARGET_SQL_RATIO = 3;
export const TARGET_INCREMENTAL_MS = 100;
const THREADS = 2;
const GRIDS: GridGranularity[] = ['day', 'week', 'month'];

type Vaults = { vault_id: string; numeraire_decimals: number; vault_type: string }[];
type Rollups = Map<string, Record<GridGranularity, number[]>>;

interface Generation {
  series: Map<string, VaultSeries>;
  rollups: Rollups;
}

/** DESIGN §8 "full recompute": read raw rows, unit price + APY at every point, day/week/month rollups. */
async function fullRecompute(store: Store, pool: ComputePool, vaults: Vaults, reuse?: Generation, phases?: Record<string, number>): Promise<Generation> {
  const t0 = performance.now();
  let load: LoadSeriesStats | undefined;
  const series = await loadVaultSeries(store, vaults, { reuse: reuse?.series, onStats: (s) => (load = s) });
  const t1 = performance.now();
  const kernels = await recomputeSeries(pool, series.values());
  const t2 = performance.now();
  const rollups: Rollups = new Map();
  for (const s of series.values()) {
    rollups.set(s.vault_id, { day: windowPoints(s, 'day').indices, week: windowPoints(s, 'week').indices, month: windowPoints(s, 'month').indices });
  }
  const t3 = performance.now();
  if (phases) {
    phases.load_ms = t1 - t0;
    phases.load_positional_rows = load?.positionalRows ?? 0;
    phases.load_mixed_rows = load?.mixedRows ?? 0;
    phases.kernels_ms = t2 - t1;
    phases.kernels_cpu_ms = kernels.kernelMs;
    phases.kernel_tasks = kernels.tasks;
    phases.rollups_ms = t3 - t2;
  }
  return { series, rollups };
}

/** The next hour of a vault: same supply, a little yield; Aera publishes a slightly higher price. */
function nextHour(s: VaultSeries): SeriesSnapshot {
  const i = s.length - 1;
  const assets = s.total_assets.get(i);
  const published = s.published_price.get(i);
  return {
    ts: s.ts[i]! + 3600,
    total_assets: assets + assets / 200_000n,
    total_supply: s.total_supply.get(i),
    unit_price: s.publishes_unit_price ? published + published / 200_000n : null,
  };
}

/** Append one hour to every series and recompute only the new points (in-thread). */
function incremental(gen: Generation, rows: Map<string, SeriesSnapshot>): number {
  let latest = 0;
  for (const s of gen.series.values()) {
    const from = appendSnapshot(s, rows.get(s.vault_id)!);
    if (from < 0) continue;
    computeUnitPrices(s, from);
    computeApy(s, from);
    // the newest day/week/month points are index lookups: refresh them like a publish would
    for (const g of GRIDS) latest += windowPoints(s, g, { order: 'desc', limit: 1 }).indices[0] ?? 0;
  }
  return latest;
}

/** CPU time of the whole process (every thread: DuckDB's, the pool's, the main one) per task run. */
const cpu = new Map<string, { ms: number; runs: number }>();
function withCpu<T>(name: string, fn: () => Promise<T>): () => Promise<T> {
  return async () => {
    const c0 = process.cpuUsage();
    try {
      return await fn();
    } finally {
      const c = process.cpuUsage(c0);
      const e = cpu.get(name) ?? { ms: 0, runs: 0 };
      e.ms += (c.user + c.system) / 1000;
      e.runs++;
      cpu.set(name, e);
    }
  };
}
const cpuMs = (name: string): number => {
  const e = cpu.get(name);
  return e ? Math.round(e.ms / e.runs) : Number.NaN;
};

function taskMs(task: Task | undefined): { mean: number; p50: number; min: number; samples: number } {
  const r = task?.result;
  if (!r || r.state !== 'completed') throw new Error(`bench task "${task?.name}" ended ${r?.state}`);
  const round = (x: number) => Math.round(x * 10) / 10;
  return { mean: round(r.latency.mean), p50: round(r.latency.p50), min: round(r.latency.min), samples: task!.runs };
}

/** Spot check (DESIGN §8 "equal outputs asserted"): a few vaults of every kind, every point. */
async function assertEqualOutputs(store: Store, gen: Generation, vaults: Vaults): Promise<number> {
  const pick = new Set<string>();
  for (const type of ['aera_v3', 'morpho_v1', 'morpho_v2', 'symbiotic']) {
    for (const dec of [6, 8, 18]) {
      const v = vaults.find((x) => x.vault_type === type && x.numeraire_decimals === dec);
      if (v) pick.add(v.vault_id);
    }
  }
  pick.add(vaults[vaults.length - 1]!.vault_id);
  let points = 0;
  for (const id of pick) {
    const s = gen.series.get(id)!;
    const twin = await readTwinSeries(store, id);
    const fail = (what: string): never => {
      throw new Error(`JS and SQL disagree on ${id}: ${what}`);
    };
    if (twin.ts.length !== s.length) fail(`${s.length} vs ${twin.ts.length} points`);
    for (let i = 0; i < s.length; i++) {
      if (s.ts[i] !== twin.ts[i]) fail(`ts[${i}]`);
      if (s.unit_price.get(i) !== twin.unit_price[i]) fail(`unit_price[${i}] ${s.unit_price.get(i)} vs ${twin.unit_price[i]}`);
      for (const d of APY_WINDOW_DAYS) {
        const js = apyColumn(s, d)[i]!;
        const sql = (d === 7 ? twin.apy_7d : d === 30 ? twin.apy_30d : twin.apy_90d)[i] ?? Number.NaN;
        const same = Number.isNaN(js) ? Number.isNaN(sql) : Math.abs(js - sql) <= 1e-12 + 1e-12 * Math.abs(sql);
        if (!same) fail(`apy_${d}d[${i}] ${js} vs ${sql}`);
      }
    }
    for (const g of GRIDS) {
      const r = await readTwinRollup(store, id, g);
      if (JSON.stringify(r.indices) !== JSON.stringify(gen.rollups.get(id)![g])) fail(`${g} rollup`);
    }
    points += s.length;
  }
  return points;
}

function round1(o: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v * 10) / 10]));
}

function memory(gen: Generation): Record<string, number> {
  const m = process.memoryUsage();
  const buffers = new Set<ArrayBufferLike>();
  for (const s of gen.series.values()) {
    for (const a of [
      s.ts,
      s.unit_price_f,
      s.apy_7d,
      s.apy_30d,
      s.apy_90d,
      s.total_assets.words,
      s.total_supply.words,
      s.published_price.words,
      s.unit_price.words,
    ])
      buffers.add(a.buffer);
  }
  let shared = 0;
  for (const b of buffers) shared += b.byteLength;
  const mib = (x: number) => Math.round(x / 2 ** 20);
  return { rss_mib: mib(m.rss), heap_used_mib: mib(m.heapUsed), external_mib: mib(m.external), shared_array_buffer_mib: mib(shared) };
}

async function openWorld(common: Common): Promise<{ store: Store; path: string; built: boolean }> {
  // a world given in VAULTD_BENCH_DB is kept for the next run; otherwise it is built in a temp folder and removed
  const path = process.env.VAULTD_BENCH_DB ?? join(mkdtempSync(join(tmpdir(), 'vaultd-series-bench-')), 'bench.duckdb');
  let built = false;
  if (!existsSync(path)) {
    console.log(`building the bench world at ${path} (~60 s)…`);
    await createDemoWorld(common, {
      path,
      params: { seed: 42, now: Date.UTC(2026, 10, 1) / 1000, vaults: 1000, wallets: 100_000, days: 730 },
      force: false,
    });
    built = true;
  }
  // the SQL twin's three ASOF joins over 17 M rows need room
  return { store: await createStore(common, { path, threads: THREADS, memoryLimit: '10GB' }), path, built };
}

export async function runSeriesRecomputeBench(): Promise<BenchOutput> {
  // ---- setup, outside the timed parts ----
  const common = createCommon(loadConfig(VAULT_TYPES, {}, {}), { logger: createLogger('warn') });
  const loadBefore = Math.round(loadavg()[0]! * 100) / 100;
  const { store, path, built } = await openWorld(common);
  try {
    const vaults = await store.rows<Vaults[number]>('bench.vaults', 'SELECT vault_id, numeraire_decimals, vault_type FROM vaults ORDER BY vault_id');
    const pool = createComputePool(common, { threads: THREADS });
    const phases: Record<string, number> = {};
    const first = await fullRecompute(store, pool, vaults, undefined, phases); // also warms DuckDB's cache
    const points = [...first.series.values()].reduce((n, s) => n + s.length, 0);
    const mem = memory(first);
    console.log(`world ${path}: ${vaults.length} vaults, ${points} snapshots; first full run: ${JSON.stringify(round1(phases))}`);
    // Double buffering as a running server would: recompute into the retired generation.
    const gens: Generation[] = [first, await fullRecompute(store, pool, vaults)];
    let flip = 0;
    let fresh: Generation | undefined;
    let sqlStages: SqlTwinTimings | undefined;

    const heavy = new Bench({ name: 'series recompute (full, js)', iterations: 7, time: 0, warmup: false, throws: true });
    const sqlBench = new Bench({ name: 'series recompute (full, sql)', iterations: 2, time: 0, warmup: false, throws: true });
    heavy
      .add(
        'js kernels, pool of 2 threads (fresh buffers)',
        withCpu('fresh', async () => {
          fresh = undefined; // let the previous generation go before allocating the next
          fresh = await fullRecompute(store, pool, vaults);
        }),
      )
      .add(
        'js kernels, pool of 2 threads (reused buffers)',
        withCpu('reused', async () => {
          flip ^= 1;
          gens[flip] = await fullRecompute(store, pool, vaults, gens[flip]);
        }),
      );
    sqlBench.add(
      'duckdb sql twin (ASOF joins, window functions)',
      withCpu('sql', async () => {
        sqlStages = await runSqlTwin(store);
      }),
    );
    await heavy.run();
    // where a steady-state run spends its time (before the SQL twin evicts DuckDB's cache)
    const steadyPhases: Record<string, number> = {};
    flip ^= 1;
    gens[flip] = await fullRecompute(store, pool, vaults, gens[flip], steadyPhases);
    await sqlBench.run();

    const resident = fresh!;
    const checked = await assertEqualOutputs(store, resident, vaults);
    await dropSqlTwin(store);

    // ---- incremental: +1 hour on every vault of a resident generation ----
    let rows = new Map<string, SeriesSnapshot>();
    let sink = 0;
    const light = new Bench({ name: 'series recompute (incremental)', iterations: 50, time: 500, warmupIterations: 5, throws: true });
    const prepare = () => {
      rows = new Map([...resident.series.values()].map((s) => [s.vault_id, nextHour(s)]));
    };
    light
      .add('incremental +1 h × all vaults, in-thread', () => void (sink += incremental(resident, rows)), { beforeEach: prepare })
      .add(
        'incremental +1 h × all vaults, via the pool',
        async () => {
          const from = new Map<string, number>();
          for (const s of resident.series.values()) from.set(s.vault_id, appendSnapshot(s, rows.get(s.vault_id)!));
          await recomputeSeries(pool, resident.series.values(), (s) => from.get(s.vault_id) ?? s.length);
        },
        { beforeEach: prepare },
      );
    await light.run();
    void sink;

    const cold = taskMs(heavy.getTask('js kernels, pool of 2 threads (fresh buffers)'));
    const full = taskMs(heavy.getTask('js kernels, pool of 2 threads (reused buffers)'));
    const sql = taskMs(sqlBench.getTask('duckdb sql twin (ASOF joins, window functions)'));
    const inc = taskMs(light.getTask('incremental +1 h × all vaults, in-thread'));
    const incPool = taskMs(light.getTask('incremental +1 h × all vaults, via the pool'));
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    const results = {
      world: { path, built, vaults: vaults.length, snapshots: points },
      threads: THREADS,
      // other work on the machine inflates wall times; CPU times below are less sensitive
      load_average_1m: { before: loadBefore, after: Math.round(loadavg()[0]! * 100) / 100 },
      cpu_ms_per_run: { full_recompute: cpuMs('reused'), full_recompute_fresh_buffers: cpuMs('fresh'), sql_twin: cpuMs('sql') },
      // steady state: a running server recomputes into its retired (unpublished) generation
      full_recompute_ms: full,
      // first recompute of a process: every page of the new generation is faulted in
      full_recompute_fresh_buffers_ms: cold,
      sql_twin_ms: sql,
      sql_twin_stages_ms_last_run: sqlStages && {
        prices: Math.round(sqlStages.prices),
        apy: Math.round(sqlStages.apy),
        rollups: Math.round(sqlStages.rollups),
      },
      sql_over_js: ratio(sql.p50, full.p50),
      sql_over_js_fresh_buffers: ratio(sql.p50, cold.p50),
      incremental_ms: inc,
      incremental_pool_ms: incPool,
      phases_first_run_fresh_memory: round1(phases),
      phases_steady_state: round1(steadyPhases),
      memory_after_load: mem,
      equal_outputs_checked_points: checked,
      // judged on medians: robust to a burst of other work on the machine, which inflates a mean
      targets: {
        full_ms: TARGET_FULL_MS,
        sql_ratio: TARGET_SQL_RATIO,
        incremental_ms: TARGET_INCREMENTAL_MS,
        full_met: full.p50 <= TARGET_FULL_MS,
        full_fresh_buffers_met: cold.p50 <= TARGET_FULL_MS,
        ratio_met: sql.p50 / full.p50 >= TARGET_SQL_RATIO,
        incremental_met: inc.p50 <= TARGET_INCREMENTAL_MS,
      },
    };
    const row = (
      figure: string,
      ms: { mean: number; p50: number; min: number },
      baseline: string,
      base: number | null,
      target: string,
      met: boolean | null,
      cpuPerRun?: number,
    ) => ({
      figure,
      'mean ms': ms.mean,
      'cpu ms': cpuPerRun ?? '',
      'p50 ms': ms.p50,
      'min ms': ms.min,
      baseline,
      ratio: base === null ? '' : `${ratio(base, ms.p50)}×`,
      target,
      met: met === null ? '' : met ? 'yes' : 'NO',
    });
    const table = [
      row(
        'full: js on pool(2), steady state',
        full,
        'sql twin',
        sql.p50,
        `≤ ${TARGET_FULL_MS} ms, ≥ ${TARGET_SQL_RATIO}× sql`,
        results.targets.full_met && results.targets.ratio_met,
        cpuMs('reused'),
      ),
      row('full: js on pool(2), fresh memory', cold, 'sql twin', sql.p50, `≤ ${TARGET_FULL_MS} ms`, results.targets.full_fresh_buffers_met, cpuMs('fresh')),
      row('full: duckdb sql twin', sql, '', null, '', null, cpuMs('sql')),
      row('incremental +1 h, in-thread', inc, '', null, `≤ ${TARGET_INCREMENTAL_MS} ms`, results.targets.incremental_met),
      row('incremental +1 h, via pool', incPool, '', null, `≤ ${TARGET_INCREMENTAL_MS} ms`, incPool.p50 <= TARGET_INCREMENTAL_MS),
    ];
    console.log(`steady-state phases: ${JSON.stringify(round1(steadyPhases))}`);
    console.log(`memory after one full load: ${JSON.stringify(mem)}; equal outputs checked on ${checked} points`);
    return { name: 'series_recompute', results, table };
  } finally {
    await common.shutdown.close('bench done');
    await store.close();
    if (process.env.VAULTD_BENCH_DB === undefined) rmSync(dirname(path), { recursive: true, force: true });
  }
}

/** The shared convention of bench/run.ts. */
export const run = runSeriesRecomputeBench;

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runSeriesRecomputeBench().then(
    (out) => console.table(out.table),
    (e) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
