// `vaultd recompute --full` in passes (issue #39): on real DuckDB files, the derived tables it
// writes — vault_metrics_hourly, activity_deltas, positions — hold exactly the rows the engine's
// recompute writes when it holds every series at once (its recomputeFull, which a server runs,
// with the writers the batch recompute used before passes), at budgets from one vault a pass to
// all of them in one, on the default demo world and on a world extended hour by hour (whose
// newest rows interleave the vaults in the table). And planPasses covers every vault once,
// within the budget.
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, inThreadCompute } from '../engine/engine.js';
import { writeActivity } from '../engine/persist/activityWriter.js';
import { writeVaultMetrics } from '../engine/persist/metricsWriter.js';
import { writePositions } from '../engine/persist/positionsWriter.js';
import { passBytes, planPasses, recomputeInPasses } from '../engine/persist/recomputeInPasses.js';
import { BYTES_PER_POINT } from '../engine/series/vaultSeries.js';
import type { VaultRow } from '../model/rows.js';
import { createDemoWorld } from '../jobs/demo/createDemoWorld.js';
import { extendDemoWorld } from '../jobs/demo/extendDemoWorld.js';
import { createStore, type Store } from '../store/store.js';
import { snapshotLayout } from '../store/vaultSnapshots.js';
import { vaultd } from './helpers/cli.js';
import { tempDir, testCommon } from './helpers/common.js';

const TABLES = ['vault_metrics_hourly', 'activity_deltas', 'positions'] as const;

let dir: string;
let world: string;
let oracle: string;

/** The batch recompute holding every series at once: the engine's recomputeFull and the writers, in one transaction. */
async function recomputeAtOnce(path: string): Promise<void> {
  const common = testCommon();
  const store = await createStore(common, { path, mustExist: true });
  try {
    const engine = createEngine(common, (work) => work(store), { compute: inThreadCompute, eventHashes: false, positionRows: true });
    await engine.recomputeFull({
      alongside: (w, published) =>
        store.transaction('test.derived', async () => {
          await writeVaultMetrics(store, w);
          await writeActivity(store, w);
          await writePositions(store, (await published).world);
        }),
    });
  } finally {
    await store.close();
    await common.shutdown.close('done');
  }
}

/** Rows of each derived table, and those in one file's table and not the other's (EXCEPT ALL, both ways). */
async function differences(a: string, b: string): Promise<Record<string, { rows: number; onlyA: number; onlyB: number }>> {
  const common = testCommon();
  const store: Store = await createStore(common, { path: a, mustExist: true, readOnly: true });
  try {
    await store.run('test.attach', `ATTACH '${b.replaceAll("'", "''")}' AS other (READ_ONLY)`);
    const out: Record<string, { rows: number; onlyA: number; onlyB: number }> = {};
    for (const t of TABLES) {
      const r = await store.one<{ rows: number; a: number; b: number }>(
        'test.diff',
        `SELECT (SELECT count(*) FROM ${t})::DOUBLE AS rows,
                (SELECT count(*) FROM (SELECT * FROM ${t} EXCEPT ALL SELECT * FROM other.${t}))::DOUBLE AS a,
                (SELECT count(*) FROM (SELECT * FROM other.${t} EXCEPT ALL SELECT * FROM ${t}))::DOUBLE AS b`,
      );
      out[t] = { rows: r!.rows, onlyA: r!.a, onlyB: r!.b };
    }
    return out;
  } finally {
    await store.close();
    await common.shutdown.close('done');
  }
}

beforeAll(async () => {
  dir = tempDir('vaultd-passes-');
  world = join(dir, 'world.duckdb');
  // the default demo world (every vault type; 1.8 M snapshots, ~200 MB of series)
  const r = vaultd(['demo', '--db', world, '--seed', '7', '--now', '2026-06-01T00:00:00Z']);
  expect(r.status, r.stderr).toBe(0);
  oracle = join(dir, 'oracle.duckdb');
  copyFileSync(world, oracle);
  await recomputeAtOnce(oracle);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('recompute --full in passes', () => {
  it.each([
    ['16 MiB of series a pass (many passes)', 16],
    ['the default (one pass holds the demo world)', null],
  ])('%s: the same derived tables as the recompute holding every series at once', async (_name, mb) => {
    const path = join(dir, `passes-${mb ?? 'default'}.duckdb`);
    copyFileSync(world, path);
    const args = ['recompute', '--full', '--db', path];
    if (mb !== null) {
      const config = join(dir, `passes-${mb}.json`);
      writeFileSync(config, JSON.stringify({ recompute: { pass_memory_mb: mb } }));
      args.push('--config', config);
    }
    const r = vaultd(args);
    expect(r.status, r.stderr).toBe(0);
    const passes = Number(/; (\d+) pass(?:es)? of at most/.exec(r.stdout)?.[1]);
    if (mb === null) expect(passes).toBe(1);
    else expect(passes).toBeGreaterThan(1);
    const diff = await differences(path, oracle);
    for (const t of TABLES) {
      expect(diff[t], t).toEqual({ rows: diff[t]!.rows, onlyA: 0, onlyB: 0 });
      expect(diff[t]!.rows, t).toBeGreaterThan(0);
    }
    // the summary counts what the tables hold
    expect(r.stdout).toContain(`${diff.vault_metrics_hourly!.rows} hourly metric rows written, ${diff.positions!.rows} positions`);
    expect(r.stdout).toContain(`${diff.activity_deltas!.rows} activity rows`);
  });

  it('one vault a pass, on this thread: the same derived tables', async () => {
    const path = join(dir, 'passes-one.duckdb');
    copyFileSync(world, path);
    const common = testCommon();
    const store = await createStore(common, { path, mustExist: true });
    let passes = 0;
    let vaults = 0;
    const seen: number[] = [];
    try {
      const r = await store.transaction('test.derived', () =>
        recomputeInPasses(common, store, inThreadCompute, { passBytes: 1, onProgress: (f) => seen.push(f) }),
      );
      passes = r.passes;
      vaults = r.vaults;
    } finally {
      await store.close();
      await common.shutdown.close('done');
    }
    expect(passes).toBe(vaults);
    expect(seen.at(-1)).toBe(1);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    const diff = await differences(path, oracle);
    for (const t of TABLES) expect(diff[t], t).toEqual({ rows: diff[t]!.rows, onlyA: 0, onlyB: 0 });
  });

  it('a world extended hour by hour (the newest hours of all vaults interleaved in the table): one vault a pass, the same tables', async () => {
    const common = testCommon();
    const live = join(dir, 'live.duckdb');
    const now = Date.parse('2026-03-01T00:00:00Z') / 1000;
    await createDemoWorld(common, { path: live, params: { seed: 5, now, vaults: null, wallets: 80, days: 40 }, force: true });
    const store = await createStore(common, { path: live, mustExist: true });
    try {
      expect(await extendDemoWorld(store, now + 5 * 3600)).not.toBeNull();
    } finally {
      await store.close();
      await common.shutdown.close('done');
    }
    const atOnce = join(dir, 'live-oracle.duckdb');
    copyFileSync(live, atOnce);
    await recomputeAtOnce(atOnce);
    const c2 = testCommon();
    const passed = await createStore(c2, { path: live, mustExist: true });
    let interleaved = false;
    try {
      // the appended hours interleave the vaults' rows: the load reads them through its block layout
      const layout = await snapshotLayout(passed);
      interleaved = layout.some((r) => r.hi - r.lo + 1 !== r.n);
      await passed.transaction('test.derived', () => recomputeInPasses(c2, passed, inThreadCompute, { passBytes: 1 }));
    } finally {
      await passed.close();
      await c2.shutdown.close('done');
    }
    expect(interleaved).toBe(true);
    const diff = await differences(live, atOnce);
    for (const t of TABLES) {
      expect(diff[t], t).toEqual({ rows: diff[t]!.rows, onlyA: 0, onlyB: 0 });
      expect(diff[t]!.rows, t).toBeGreaterThan(0);
    }
  });

  it('planPasses: every vault once, in table order, each pass within the budget unless one vault alone exceeds it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ n: fc.option(fc.integer({ min: 0, max: 5_000 }), { nil: null }), e: fc.integer({ min: 0, max: 3_000 }) }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 20_000 }),
        (sizes, budgetPoints) => {
          const vaults = sizes.map((_, k) => ({ vault_id: `v${k}` }) as VaultRow);
          // table order: shuffled against the registry's
          const layout = sizes.flatMap(({ n }, k) => (n === null ? [] : [{ vault_id: `v${k}`, lo: (k * 7919) % 104_729, n }]));
          const events = new Map(sizes.map(({ e }, k) => [`v${k}`, e]));
          const budget = budgetPoints * BYTES_PER_POINT;
          const passes = planPasses(vaults, layout, events, budget);
          const ids = passes.flatMap((p) => p.vaults.map((v) => v.vault_id));
          expect([...ids].sort()).toEqual(vaults.map((v) => v.vault_id).sort());
          const lo = new Map(layout.map((r) => [r.vault_id, r.lo]));
          const los = ids.map((id) => lo.get(id) ?? -1);
          expect([...los].sort((a, b) => a - b)).toEqual(los);
          const of = (v: VaultRow) => sizes[Number(v.vault_id.slice(1))]!;
          for (const p of passes) {
            expect(p.points).toBe(p.vaults.reduce((n, v) => n + (of(v).n ?? 0), 0));
            expect(p.events).toBe(p.vaults.reduce((n, v) => n + of(v).e, 0));
            expect(p.bytes).toBe(passBytes(p.vaults.length, p.points, p.events));
            if (p.vaults.length > 1) expect(p.bytes).toBeLessThanOrEqual(budget);
          }
          // greedy: a pass ends only where its next vault would not have fit
          for (let k = 1; k < passes.length; k++) {
            const [prev, next] = [passes[k - 1]!, of(passes[k]!.vaults[0]!)];
            expect(passBytes(prev.vaults.length + 1, prev.points + (next.n ?? 0), prev.events + next.e)).toBeGreaterThan(budget);
          }
        },
      ),
    );
  });
});
