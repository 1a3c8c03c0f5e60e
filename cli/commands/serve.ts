// `vaultd serve`: serve the API from the database; on an empty database with no configured
// registry, first create the demo world (the embedded default of `npm start`). The database
// is opened per job and closed after, so `vaultd keys create` works while the server runs.
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createScheduledJob } from '../../common/scheduler.js';
import { Counter, Histogram } from 'prom-client';
import { createCommon, type Common } from '../../common/common.js';
import { loadConfig, type Config } from '../../common/config.js';
import { describeError, VaultdError } from '../../common/errors.js';
import { createProgress } from '../../common/progress.js';
import { holdStopWhileProgressing } from '../../common/signals.js';
import { bytesWritten } from '../../engine/publish/fileIo.js';
import { createEngine, poolCompute, type StoreAccess } from '../../engine/engine.js';
import { createComputePool } from '../../engine/pool/computePool.js';
import { activeKeyDigests } from '../../store/apiKeys.js';
import { cursorSecret } from '../../store/cursorSecret.js';
import { freeBytes, MIN_FREE_TO_WRITE } from '../../store/diskSpace.js';
import { hasSnapshots } from '../../store/queries.js';
import { markServing } from '../../store/servedBy.js';
import { holdStore, withStore } from '../../store/storeHandle.js';
import { storeHasData } from '../../jobs/demo/createDemoWorld.js';
import { createAuthTable, type AuthTable } from '../../server/auth.js';
import { createCursorKeyring } from '../../server/cursor.js';
import { createHandler } from '../../server/handle.js';
import { createReadModel } from '../../engine/publish/readModel.js';
import type { ReadModel } from '../../engine/publish/index.js';
import { assertListenable, startHttpServer } from '../../server/httpServer.js';
import { CLIENT_MOUNT, EXPLORER_MOUNT, EXPLORER_PAGES } from '../../server/static/clientAssets.js';
import { loadStaticAssets } from '../../server/static/staticAssets.js';
import { parseFlags } from '../args.js';
import { SERVE } from '../commandSpecs.js';
import { printServingLine } from '../servingLine.js';
import { checkDemoFlag, demoWorldRefusal } from './demoWorldPolicy.js';
import { createSnapshotWriter, defaultSnapshotDir, restoreSnapshot } from './snapshotDir.js';
import { serveSnapshotDir } from './serveSnapshot.js';

export async function serveCommand(argv: string[]): Promise<number> {
  const { values, int } = parseFlags(SERVE, argv);
  if (values.snapshot !== undefined) {
    // a stateless reader: no database, no jobs, no engine (issue #11)
    for (const flag of ['db', 'publish-dir', 'no-jobs', 'demo'] as const) {
      if (values[flag] !== undefined) throw new VaultdError('USAGE', `--snapshot serves a published directory and takes no --${flag}`);
    }
    const config = loadConfig({ config: values.config, host: values.host, port: int('port') });
    await assertListenable(config.server.host, config.server.port);
    return serveSnapshotDir(config, values.snapshot);
  }
  const config = loadConfig({
    config: values.config,
    db: values.db,
    host: values.host,
    port: int('port'),
  });
  checkDemoFlag(config, values.demo ?? false);
  // a taken port is said before the world is created or loaded (minutes on a large one), not after
  await assertListenable(config.server.host, config.server.port);
  return runServer(config, { jobs: !values['no-jobs'], publishDir: values['publish-dir'], demo: values.demo ?? false });
}

/**
 * Serve `config` until SIGTERM/SIGINT. Configured chains are ingested (once before the first
 * publish, then on `schedules.ingest`); without them an empty database gets the demo world,
 * which then grows as real hours pass. Configured price providers and external TVL sources run
 * once before the first publish, then on `schedules.prices`, each round followed by a refresh.
 */
export async function runServer(config: Config, opts: { jobs: boolean; onStop?: () => Promise<void>; publishDir?: string; demo?: boolean }): Promise<number> {
  const common = createCommon(config, { defaultMetrics: true });
  const started = Date.now();
  const chains = config.chains.length > 0 && config.registry.vaults.length > 0;
  if (opts.onStop) common.shutdown.add('devnet', opts.onStop);
  // On a full disk a start that writes (the cursor secret, the publish identity, a checkpoint)
  // fails: serve what is there, read-only, with no jobs and no snapshot files.
  const exists = existsSync(config.db);
  const readOnly = exists && (freeBytes(config.db) ?? Number.POSITIVE_INFINITY) < MIN_FREE_TO_WRITE;
  if (readOnly) {
    common.logger.warn(
      { db: config.db, free_bytes: freeBytes(config.db), needed_bytes: MIN_FREE_TO_WRITE },
      'the disk holding the database is full: serving it read-only, with no jobs, until there is room and the server restarts',
    );
  }
  const jobs = opts.jobs && !readOnly;
  const open = { path: config.db, ...(readOnly ? { readOnly } : {}) };

  // The file stays open from here until the server listens: the start's short reads (the data
  // check, the cursor secret, the inputs' stamp, the keys) share one open instead of one each.
  // An empty database is released first: the demo world is written by its own opener.
  let release = exists ? await holdStore(common, open) : null;
  common.shutdown.add('startup store', () => release?.() ?? Promise.resolve());
  const hasData = release !== null && (await withStore(common, open, storeHasData));
  if (!chains && !hasData) {
    // a typo'd --db, or a configured deployment, never gets fake data
    const refusal = readOnly
      ? new VaultdError('NO_SPACE', `database "${config.db}" holds no world and the disk holding it is full; free some space first`)
      : demoWorldRefusal(config, { demo: opts.demo ?? false, exists });
    if (refusal) throw refusal;
    await release?.();
    release = null;
    common.logger.info({ db: config.db }, 'empty database: creating the demo world');
    const [{ createDemoWorld }, { demoParams }] = await Promise.all([import('../../jobs/demo/createDemoWorld.js'), import('./demo.js')]);
    const summary = await createDemoWorld(common, { path: config.db, params: demoParams({}), force: false, progress: createProgress(common.logger, 'demo') });
    common.logger.info(summary, 'demo world created');
  }

  release ??= await holdStore(common, open); // (nothing to hold for ':memory:')
  const access: StoreAccess = (work) => withStore(common, open, work);
  // the chain toolkit (viem) costs ~0.35 s to load: only when chains are configured
  const ingest = chains && !readOnly ? (await import('../../jobs/chain/ingestJob.js')).createIngestJob({ common, config, access }) : null;
  // The price job's module loads the chain toolkit too (~0.4 s of a cold start): imported only
  // when there is price work or a TVL source to sync — hasPriceWork's condition, asked before.
  const priceJobs =
    !readOnly && (config.prices.providers.some((p) => p.kind !== 'demo') || config.tvl_sources.length > 0)
      ? await import('../../jobs/prices/priceJob.js')
      : null;
  const prices = priceJobs?.hasPriceWork(config) ? priceJobs.createPriceJob({ common, config, access }) : null;
  // With history already stored, serve it at once and catch up in the background (an RPC that
  // is down must not keep a restart from serving); an empty database is filled first.
  const warm = (ingest || prices) !== null && (await access(hasSnapshots));
  if (!warm && (ingest || prices)) {
    // long work: let other processes (a `vaultd keys create`) at the file meanwhile
    await release?.();
    release = null;
  }
  if (!warm) {
    if (ingest) await ingest.runOnce();
    if (prices) await prices.runOnce().catch((err) => common.logger.error({ error: describeError(err) }, 'first prices round failed'));
  }
  // the config's external TVL sources are part of the registry the first publish is built from
  // (with no TVL sources configured there is nothing to sync: no store opened for it)
  if (priceJobs && (await access((store) => priceJobs.syncTvlSources(store, config))))
    common.logger.info({ tvl_sources: config.tvl_sources.length }, 'external TVL sources synced from config');
  // One cursor secret per store: re-read when the file is replaced (refresh) and used from the
  // first generation published from the new store on, so this process, a restart and the
  // readers of its snapshot directory sign and accept the same cursors for each generation.
  const cursors = createCursorKeyring(await access((store) => storeSecret(store, readOnly)));
  let nextSecret: Buffer | null = null;
  const pool = createComputePool(common, { threads: 2 });
  const engine = createEngine(common, access, { compute: poolCompute(pool), persistIdentity: readOnly ? 'read' : true, apyColumns: false });
  let served: ReadModel | null = null;
  // first: the new store's secret before anything serves or writes its first generation
  engine.subscribe((snapshot) => {
    if (nextSecret) cursors.use(nextSecret, snapshot.generation);
    nextSecret = null;
  });
  engine.subscribe((snapshot) => {
    served = createReadModel(snapshot, { positionWindow: (task) => pool.positionWindow(task), seriesBlocks: (task) => pool.seriesBlocks(task) });
  });
  // Every publish is also written as files (beside the database unless --publish-dir says where):
  // a restart on unchanged inputs serves them without recomputing, and readers serve them.
  let nextRun: () => Date | null = () => null;
  const snapDir = opts.publishDir !== undefined ? resolve(opts.publishDir) : defaultSnapshotDir(config.db);
  const writer = createSnapshotWriter(common, snapDir, {
    access,
    engine,
    auth: async (generation) => ({ cursor_secret: cursors.secretFor(generation).toString('base64url'), keys: await access(activeKeyDigests) }),
    nextPublishAt: () => {
      const next = nextRun();
      return next ? Math.floor(next.getTime() / 1000) : null;
    },
  });
  // (read-only: no room for files; a restart with room writes them)
  if (!readOnly) engine.subscribe((snapshot) => void writer.write(snapshot));
  // a stop waits for files being written while they progress (past the stop's 5 s grace if
  // need be): the next start serves them instead of recomputing
  holdStopWhileProgressing(bytesWritten);
  common.shutdown.add('snapshot files', () => writer.flush());
  const restored = await restoreSnapshot(common, access, engine, snapDir, (m) => writer.seed(m));
  if (!restored) {
    // a recompute takes seconds to minutes: the file is held through the read of its inputs only
    await engine.recomputeFull(undefined, async () => {
      await release?.();
      release = null;
    });
  }
  // The file's identity: `vaultd demo --force` (or a restore) renames another world onto the
  // path; refreshing would splice the two, so a replaced file is reloaded from scratch.
  let identity = fileIdentity(config.db);
  const refresh = async (): Promise<void> => {
    const now = fileIdentity(config.db);
    if (now !== identity) {
      common.logger.warn({ db: config.db }, 'the database file was replaced; reloading its world from scratch');
      identity = now;
      // another world, another store: its cursor secret, for the generations published from it
      nextSecret = await access((store) => storeSecret(store, readOnly));
      await engine.recomputeFull();
    } else await engine.refresh();
  };

  const keys = createKeyReloader(common, access, config.db, () => writer.authChanged());
  await keys.reload();
  // one round at a time: the warm start's catch-up round and a scheduled one never overlap
  const schedule = jobs ? createScheduledJob({ name: 'ingest', schedule: config.schedules.ingest, logger: common.logger, round: tick }) : null;
  nextRun = () => schedule?.nextRun() ?? null;
  const handle = createHandler({
    common,
    current: () => served,
    jobs,
    auth: () => keys.table,
    keysReloading: () => keys.reloadIfStale(),
    cursors,
    secondsToNextPublish: () => {
      const next = schedule?.nextRun();
      return next ? (next.getTime() - Date.now()) / 1000 : null;
    },
    started,
    assets: loadStaticAssets([CLIENT_MOUNT, EXPLORER_MOUNT], EXPLORER_PAGES),
  });
  // `vaultd demo --force` asks before it replaces a file a server depends on between its jobs
  const since = new Date(started).toISOString();
  const marker = markServing(config.db, { listen: `${config.server.host}:${config.server.port}`, started_at: since });
  common.shutdown.add('serving marker', async () => marker.remove());
  const server = await startHttpServer(common, { host: config.server.host, port: config.server.port, handle });
  common.shutdown.add('http', () => server.close());
  marker.update({ listen: `${config.server.host}:${server.port}`, started_at: since });
  printServingLine(config.server.host, server.port);
  await release?.();
  if (!readOnly) writer.start();
  schedule?.start();
  common.shutdown.add('jobs', async () => {
    void schedule?.stop(); // a round in flight is the engine's to finish or abandon (its own shutdown step)
    await prices?.stop();
  });
  if (jobs && prices) {
    prices.start(async () => {
      await refresh();
    });
  }
  const keyTimer = setInterval(() => void keys.reload().catch((err) => common.logger.warn({ err }, 'key reload failed')), 2000);
  common.shutdown.add('keys', () => clearInterval(keyTimer));

  const jobRuns = new Counter({
    name: 'vaultd_job_runs_total',
    help: 'Scheduled job runs by job and outcome',
    labelNames: ['job', 'outcome'],
    registers: [common.metrics],
  });
  const jobSeconds = new Histogram({ name: 'vaultd_job_duration_seconds', help: 'Scheduled job duration', labelNames: ['job'], registers: [common.metrics] });

  if (jobs && warm) {
    // the catch-up round of a warm start
    void schedule?.runOnce();
    if (prices)
      void prices.runOnce().then(
        () => refresh(),
        (err) => common.logger.error({ error: describeError(err) }, 'prices round failed'),
      );
  }

  /** One ingest round: the demo source produces any hours that have passed; then refresh. */
  async function tick(): Promise<void> {
    const end = jobSeconds.startTimer({ job: 'ingest' });
    try {
      // a replaced file is reloaded before anything extends it
      if (fileIdentity(config.db) !== identity) await refresh();
      if (ingest) await ingest.runOnce();
      else {
        const { extendDemoWorld } = await import('../../jobs/demo/extendDemoWorld.js');
        const ext = await access((store) => extendDemoWorld(store, Date.now()));
        if (ext) common.logger.info(ext, 'demo world extended');
      }
      await refresh();
      jobRuns.inc({ job: 'ingest', outcome: 'ok' });
    } catch (err) {
      // The previous snapshot keeps serving (DESIGN §9).
      jobRuns.inc({ job: 'ingest', outcome: 'error' });
      common.logger.error({ err }, 'ingest round failed');
    } finally {
      end();
    }
  }

  await new Promise<void>((resolve) => {
    const stop = (signal: string) => void common.shutdown.close(signal).then(resolve);
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  return 0;
}

/** Device and inode of the database file ('' when missing): changes when another file is renamed onto it. */
function fileIdentity(path: string): string {
  try {
    const s = statSync(path);
    return `${s.dev}:${s.ino}`;
  } catch {
    return '';
  }
}

/**
 * The HMAC secret of pagination cursors: generated and stored on first start (DESIGN §5.4). A
 * read-only start that finds none uses one of its own (its cursors end with the process).
 */
async function storeSecret(store: Parameters<Parameters<StoreAccess>[0]>[0], readOnly: boolean): Promise<Buffer> {
  return readOnly ? ((await cursorSecret(store, false)) ?? randomBytes(32)) : cursorSecret(store);
}

/** Active API keys, re-read whenever the database file changes (keys made while serving work). */
function createKeyReloader(common: Common, access: StoreAccess, path: string, onChange?: () => void) {
  let table: AuthTable = createAuthTable([]);
  let stamp = '';
  // asked on every request with a credential: a missing file (the WAL, most of the time) is
  // `undefined`, not an exception (building an Error with its stack cost a keyed request ~20 µs)
  const statOf = (p: string) => {
    try {
      const s = statSync(p, { throwIfNoEntry: false });
      return s === undefined ? '-' : `${s.size}:${s.mtimeMs}`;
    } catch {
      return '-';
    }
  };
  const wal = `${path}.wal`;
  const fileStamp = () => `${statOf(path)}|${statOf(wal)}`;
  let inflight: Promise<void> | null = null;
  let checkedThisTurn = false;
  const endTurn = () => {
    checkedThisTurn = false;
  };
  const reload = (): Promise<void> => {
    if (inflight) return inflight;
    if (fileStamp() === stamp) return Promise.resolve();
    inflight = access(activeKeyDigests)
      .then((rows) => {
        table = createAuthTable(rows);
        // after the read: opening the file may itself touch it
        stamp = fileStamp();
        onChange?.();
        common.logger.debug({ keys: table.size }, 'API keys loaded');
      })
      .finally(() => (inflight = null));
    return inflight;
  };
  return {
    get table() {
      return table;
    },
    reload,
    /**
     * Two stat calls, at most once per turn of the event loop; a reload only when the database
     * file changed since the last one. A `keys create` or `revoke` that returned before a turn
     * began is seen by that turn's first check, so an idle server sees it on the next request;
     * under load, a request that arrives on a socket the turn has not read yet may be answered
     * with the check made earlier in the turn (a window of one turn, ~1 ms at saturation). Under
     * load a turn serves tens of keyed requests, and the stat calls were most of their cost.
     */
    reloadIfStale(): Promise<void> | null {
      if (inflight) return inflight;
      if (checkedThisTurn) return null;
      checkedThisTurn = true;
      setImmediate(endTurn).unref();
      return fileStamp() === stamp ? null : reload();
    },
  };
}
