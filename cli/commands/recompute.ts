// `vaultd recompute [--full]`: batch recompute of every derived table, with timings per stage.
// --full works in passes of a few vaults (engine/persist/recomputeInPasses.ts): its memory is
// set by `recompute.pass_memory_mb`, not by the world. Without --full, the engine recomputes a
// snapshot in memory, hourly metrics are only appended past the last hour already written, and
// positions and activity are rewritten whole.
import { createCommon } from '../../common/common.js';
import { type Config, loadConfig } from '../../common/config.js';
import { VAULT_TYPES } from '../../families/index.js';
import { createProgress, type Progress } from '../../common/progress.js';
import { rowsStreamed } from '../../store/chunkStream.js';
import { checkpointFile, inputRows } from '../../store/queries.js';
import { createEngine, poolCompute } from '../../engine/engine.js';
import { createComputePool } from '../../engine/pool/computePool.js';
import { writeActivity } from '../../engine/persist/activityWriter.js';
import { writeVaultMetrics } from '../../engine/persist/metricsWriter.js';
import { writePositions } from '../../engine/persist/positionsWriter.js';
import { type PassesOptions, recomputeInPasses } from '../../engine/persist/recomputeInPasses.js';
import type { Common } from '../../common/common.js';
import { describeError, isStopped, VaultdError } from '../../common/errors.js';
import type { Store } from '../../store/store.js';
import { recomputeSpace, trimUnusedTail } from '../../store/diskSpace.js';
import { lastMetricHour } from '../../store/derived.js';
import { openStoreWithRetry } from '../../store/storeHandle.js';
import { parseFlags } from '../args.js';
import { RECOMPUTE } from '../commandSpecs.js';
import { checkShardFlags, mergeCommand, shardCommand } from './recomputeShard.js';

/**
 * DuckDB's buffer pool while a batch recompute writes the derived tables (only appends). They
 * are written in one transaction, and DuckDB keeps the blocks it writes for it in memory up to
 * its limit: at the store's 4 GB that was ~1.3 GiB on top of the resident world on the
 * benchmark world (peak RSS 3.8 GiB); at 256 MB it evicts them to the file it already wrote
 * them to (peak 2.8 GiB, and a few seconds faster). A recompute in passes runs under it
 * throughout, its reads too (a pass's events are few, and the positions' ranking spills); the
 * in-memory recompute's load does not (its read of every event ran out of memory under it at
 * 2,000 vaults).
 */
export const RECOMPUTE_WRITE_MEMORY = '256MB';

const settled = () => undefined;

export async function recomputeCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(RECOMPUTE, argv);
  checkShardFlags(values);
  const config = loadConfig(VAULT_TYPES, { config: values.config, db: values.db });
  // a shard, or the merge of shards: their own path (cli/commands/recomputeShard.ts)
  if (values.shard !== undefined) return shardCommand(config, values);
  if (values.merge !== undefined) return mergeCommand(config, values);
  const common = createCommon(config);
  const store = await openStoreWithRetry(common, { path: config.db, mustExist: true });
  await assertRoom(store, config.db, values.full ?? false).catch(async (err) => {
    await store.close();
    throw err;
  });
  // closed last, by the command's end or by a stop (once the work below has let go of it)
  common.shutdown.add('store', () => store.close());
  const progress = createProgress(common.logger, 'recompute');
  let failed = false;
  // progress in shares of a full recompute's time (measured on the benchmark world: read and
  // compute ~30 %, hourly metrics ~45 %, activity ~10 %, positions ~15 %), so the percent means time
  const stages = 100;
  const AFTER = { load: 20, compute: 30, metrics: 75, activity: 85, positions: 100 } as const;
  let loading: NodeJS.Timeout | undefined;
  try {
    if (values.full) {
      // its load reads the registry and the prices alone (seconds); the passes read the rest
      progress.update(0, stages);
      await recomputeFullInPasses(common, store, config, progress, {
        afterLoad: () => progress.update(AFTER.load, stages),
        // the passes share what is left after the load by snapshots
        onProgress: (f) => progress.update(AFTER.load + Math.floor((stages - AFTER.load) * f), stages),
      });
      return 0;
    }
    // the load's share moves with the rows read (the whole world is read before any compute)
    const toRead = await inputRows(store);
    const read0 = rowsStreamed();
    loading = setInterval(() => progress.update(Math.min(AFTER.load, Math.floor((AFTER.load * (rowsStreamed() - read0)) / Math.max(1, toRead))), stages), 1000);
    loading.unref();
    const engine = createEngine(common, (work) => work(store), {
      compute: poolCompute(createComputePool(common, { threads: 2 })),
      eventHashes: false,
      positionRows: true,
    });
    progress.update(0, stages);
    const writes: Record<string, number> = {};
    const t = (stage: string, t0: number) => (writes[stage] = Math.round((performance.now() - t0) * 10) / 10);
    // --full ran in passes above: here only the hours past the last one written are appended
    const lastWritten = (await lastMetricHour(store)) ?? -Infinity;
    let written: { metricRows: number; positions: { rows: number; skippedRows: number }; activityRows: number } | null = null;
    let t0 = 0;
    // The tables are written while the position items are computed on the pool: the hourly
    // metrics and the activity need only the series and the events, the positions table then
    // waits for the items. One transaction for the three tables: a kill or a failure leaves the
    // previous, mutually consistent set, never new metrics beside old positions.
    // A stop (the shutdown's signal) ends the work at its next check: between chunks of the
    // read, between stages, between the writes (their transaction then rolls back), and the stop
    // waits for that before it closes the store.
    const signal = common.shutdown.signal;
    const work = engine.recomputeFull({
      signal,
      afterLoad: async () => {
        clearInterval(loading);
        progress.update(AFTER.load, stages);
      },
      alongside: (world, published) =>
        store.transaction('recompute.derived', () =>
          store.withMemoryLimit(RECOMPUTE_WRITE_MEMORY, async () => {
            progress.update(AFTER.compute, stages);
            let s0 = performance.now();
            const metricRows = await writeVaultMetrics(store, world, lastWritten, signal);
            t('write_metrics', s0);
            progress.update(AFTER.metrics, stages);
            s0 = performance.now();
            const activityRows = await writeActivity(store, world, signal);
            t('write_activity', s0);
            progress.update(AFTER.activity, stages);
            const snapshot = await published;
            signal.throwIfAborted();
            s0 = performance.now();
            const positions = await writePositions(store, snapshot.world);
            t('write_positions', s0);
            signal.throwIfAborted();
            written = { metricRows, positions, activityRows };
            t0 = performance.now();
          }),
        ),
    });
    common.shutdown.add('recompute', () => work.then(settled, settled));
    const timings = await work;
    const world = engine.world()!;
    const snapshot = engine.current()!;
    const { metricRows, positions, activityRows } = written!;
    t('commit', t0);
    progress.update(AFTER.positions, stages);
    progress.stop();
    // the engine's stages, then the writes (metrics and activity ran alongside positions)
    printRun({ ...timings, ...writes }, { vaults: world.series.size, metricRows, positions, activityRows }, `snapshot generation ${snapshot.generation}`);
  } catch (err) {
    failed = !isStopped(err);
    throw err;
  } finally {
    clearInterval(loading);
    // the store closes with the shutdown; a failed run's growth is cut after
    await common.shutdown.close('done');
    if (failed) await trimAfterFailure(common, config.db);
    // the run's peak resident memory, the store's close included (getrusage: every thread's, DuckDB's too)
    else if (values.full) common.logger.info({ max_rss_bytes: process.resourceUsage().maxRSS * 1024 }, 'recompute peak memory');
  }
  return 0;
}

/**
 * `recompute --full`: a few vaults at a time (engine/persist/recomputeInPasses.ts),
 * as many as `recompute.pass_memory_mb` holds, in one transaction for the three tables.
 * Prints what the in-memory recompute prints: its stages, then the summary line.
 */
async function recomputeFullInPasses(
  common: Common,
  store: Store,
  config: Config,
  progress: Progress,
  on: Pick<PassesOptions, 'afterLoad' | 'onProgress'>,
): Promise<void> {
  const signal = common.shutdown.signal;
  const pool = createComputePool(common, { threads: 2 });
  let t0 = 0;
  // DuckDB's pool stays small through it all (what it reads and sorts spills), the commit and
  // the checkpoint too
  const work = store.withMemoryLimit(RECOMPUTE_WRITE_MEMORY, async () => {
    const r = await store.transaction('recompute.derived', async () => {
      const r = await recomputeInPasses(common, store, poolCompute(pool), {
        passBytes: config.recompute.pass_memory_mb * 2 ** 20,
        signal,
        ...on,
      });
      t0 = performance.now();
      return r;
    });
    // the checkpoint too, here rather than at the close (under the store's 4 GB pool: ~1 GB more after a run of many passes)
    await checkpointFile(store);
    return r;
  });
  common.shutdown.add('recompute', () => work.then(settled, settled));
  const r = await work;
  r.timings.commit = Math.round((performance.now() - t0) * 10) / 10;
  on.onProgress?.(1);
  progress.stop();
  printRun(r.timings, r, `${r.passes} pass${r.passes === 1 ? '' : 'es'} of at most ${config.recompute.pass_memory_mb} MiB`);
}

/** A recompute's output: a line per stage, then the summary line, ending with `tail`. */
function printRun(
  timings: Record<string, number>,
  r: { vaults: number; metricRows: number; positions: { rows: number; skippedRows: number }; activityRows: number },
  tail: string,
): void {
  for (const [stage, ms] of Object.entries(timings)) process.stdout.write(`${stage.padEnd(16)} ${String(ms).padStart(9)} ms\n`);
  process.stdout.write(
    `recomputed ${r.vaults} vaults, ${r.metricRows} hourly metric rows written, ${r.positions.rows} positions ` +
      `(${r.positions.skippedRows} corrupt rows skipped), ${r.activityRows} activity rows; ${tail}\n`,
  );
}

/**
 * A failed run (a full disk) rolled back, but the file keeps the blocks it grew by: cut them,
 * with the file open again (so no other process writes it meanwhile).
 */
async function trimAfterFailure(common: Common, path: string): Promise<void> {
  try {
    const store = await openStoreWithRetry(common, { path, mustExist: true });
    try {
      const bytes = await trimUnusedTail(store);
      if (bytes > 0) common.logger.warn({ db: path, bytes }, 'the failed recompute had grown the database file: trimmed it back');
    } finally {
      await store.close();
    }
  } catch (err) {
    common.logger.warn({ db: path, error: describeError(err) }, 'the database file could not be trimmed after the failed recompute');
  }
}

/** Fail before the work when the disk cannot hold what the run writes (store/diskSpace.ts). */
async function assertRoom(store: Store, path: string, full: boolean): Promise<void> {
  const since = full ? null : await lastMetricHour(store);
  const { needed, available } = await recomputeSpace(store, since);
  if (available === null || available >= needed) return;
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  throw new VaultdError(
    'NO_SPACE',
    `recompute needs about ${mb(needed)} free where "${path}" is, and ${mb(available)} are: free some space (or move the database), then run it again; nothing was written`,
  );
}
