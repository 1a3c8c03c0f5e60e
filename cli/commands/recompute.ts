// `vaultd recompute [--full]`: batch recompute of every derived table and a new snapshot,
// with timings per stage. Without --full, hourly metrics are only appended past the last
// hour already written; positions and activity are always rewritten whole.
import { createCommon } from '../../common/common.js';
import { loadConfig } from '../../common/config.js';
import { createProgress } from '../../common/progress.js';
import { createEngine, poolCompute } from '../../engine/engine.js';
import { createComputePool } from '../../engine/pool/computePool.js';
import { writeActivity } from '../../engine/persist/activityWriter.js';
import { writeVaultMetrics } from '../../engine/persist/metricsWriter.js';
import { writePositions } from '../../engine/persist/positionsWriter.js';
import { lastMetricHour } from '../../store/queries.js';
import { openStoreWithRetry } from '../../store/storeHandle.js';
import { parseFlags } from '../args.js';

export async function recomputeCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags('recompute', argv, { db: { type: 'string' }, config: { type: 'string' }, full: { type: 'boolean' } });
  const config = loadConfig({ config: values.config, db: values.db });
  const common = createCommon(config);
  const store = await openStoreWithRetry(common, { path: config.db, mustExist: true });
  const progress = createProgress(common.logger, 'recompute');
  // progress in shares of a full recompute's time (measured on the benchmark world: read and
  // compute ~27 %, hourly metrics ~56 %, positions ~6 %, activity ~11 %), so the percent means time
  const stages = 100;
  const AFTER = { compute: 27, metrics: 83, positions: 89, activity: 100 } as const;
  try {
    const engine = createEngine(common, (work) => work(store), { compute: poolCompute(createComputePool(common, { threads: 2 })), eventHashes: false, positionRows: true });
    progress.update(0, stages);
    const timings = await engine.recomputeFull();
    progress.update(AFTER.compute, stages);
    const world = engine.world()!;
    const snapshot = engine.current()!;
    const t = (stage: string, t0: number) => (timings[stage] = Math.round((performance.now() - t0) * 10) / 10);
    let t0 = performance.now();
    const lastWritten = values.full
      ? -Infinity
      : ((await lastMetricHour(store)) ?? -Infinity);
    // One transaction for the three tables: a kill or a failure leaves the previous, mutually
    // consistent set, never new metrics beside old positions.
    const { metricRows, positions, activityRows } = await store.transaction('recompute.derived', async () => {
      const metricRows = await writeVaultMetrics(store, world, lastWritten);
      t('write_metrics', t0);
      progress.update(AFTER.metrics, stages);
      t0 = performance.now();
      const positions = await writePositions(store, snapshot.world);
      t('write_positions', t0);
      progress.update(AFTER.positions, stages);
      t0 = performance.now();
      const activityRows = await writeActivity(store, world);
      t('write_activity', t0);
      t0 = performance.now();
      return { metricRows, positions, activityRows };
    });
    t('commit', t0);
    progress.update(AFTER.activity, stages);
    progress.stop();
    for (const [stage, ms] of Object.entries(timings)) process.stdout.write(`${stage.padEnd(16)} ${String(ms).padStart(9)} ms\n`);
    process.stdout.write(
      `recomputed ${world.series.size} vaults, ${metricRows} hourly metric rows written, ${positions.rows} positions ` +
        `(${positions.skippedRows} corrupt rows skipped), ${activityRows} activity rows; snapshot generation ${snapshot.generation}\n`,
    );
  } finally {
    await store.close();
    await common.shutdown.close('done');
  }
  return 0;
}
