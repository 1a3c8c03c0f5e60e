// `vaultd serve`: serve the API from the database; on an empty database with no configured
// registry, first create the demo world (the embedded default of `npm start`). The database
// is opened per round and closed after, so `vaultd keys create` works while the server runs.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createCommon, type Common } from '../../common/common.js';
import { VAULT_TYPES } from '../../families/index.js';
import { loadConfig, type Config } from '../../common/config.js';
import { VaultdError } from '../../common/errors.js';
import { createProgress } from '../../common/progress.js';
import { holdStopWhileProgressing } from '../../common/signals.js';
import { bytesWritten } from '../../engine/publish/fileIo.js';
import { createEngine, poolCompute, type StoreAccess } from '../../engine/engine.js';
import { createComputePool } from '../../engine/pool/computePool.js';
import { configuredSources, indexesChains } from '../../runtime/configuredSources.js';
import { createKeyReloader } from '../../runtime/keyReloader.js';
import { createRuntime } from '../../runtime/createRuntime.js';
import { activeKeyDigests } from '../../store/apiKeys.js';
import { cursorSecret } from '../../store/cursorSecret.js';
import { freeBytes, MIN_FREE_TO_WRITE } from '../../store/diskSpace.js';
import { hasSnapshots } from '../../store/queries.js';
import { hasVaults, syncTvlSources } from '../../store/registryStore.js';
import { markServing } from '../../store/servedBy.js';
import type { Store } from '../../store/store.js';
import { holdStore, withStore } from '../../store/storeHandle.js';

import { createAuthTable } from '../../server/auth.js';
import { createCursorKeyring } from '../../server/cursor.js';
import { createHandler } from '../../server/handle.js';
import { createReadModel } from '../../engine/publish/readModel.js';
import type { ReadModel } from '../../engine/publish/index.js';
import { assertListenable, startHttpServer } from '../../server/httpServer.js';
import { createStreamHub } from '../../server/stream/streamHub.js';
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
    const config = loadConfig(VAULT_TYPES, { config: values.config, host: values.host, port: int('port') });
    await assertListenable(config.server.host, config.server.port);
    return serveSnapshotDir(config, values.snapshot);
  }
  const config = loadConfig(VAULT_TYPES, {
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
 * once before the first publish, then on `schedules.prices`. The runtime (runtime/) runs those
 * rounds and the refresh after them; this wires it to the engine and the server.
 */
export interface ServeOptions {
  jobs: boolean;
  onStop?: () => Promise<void>;
  publishDir?: string;
  /** create the demo world in an empty database that is not the default one (`--demo`) */
  demo?: boolean;
}

export async function runServer(config: Config, opts: ServeOptions): Promise<number> {
  const common = createCommon(config, { defaultMetrics: true });
  try {
    return await serveUntilStopped(common, opts);
  } catch (err) {
    // a stop cut the start short: let its closers finish (the demo build's file, the pool) first
    if (common.shutdown.closing) await common.shutdown.close('stopped');
    throw err;
  }
}

async function serveUntilStopped(common: Common, opts: ServeOptions): Promise<number> {
  const { config } = common;
  const started = Date.now();
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
  const hasData = release !== null && (await withStore(common, open, hasVaults));
  if (!indexesChains(config) && !hasData) {
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
  const pool = createComputePool(common, { threads: 2 });
  const engine = createEngine(common, access, { compute: poolCompute(pool), persistIdentity: readOnly ? 'read' : true, apyColumns: false, deferReturns: true });
  // One cursor secret per store: re-read when the file is replaced and used from the first
  // generation published from the new store on, so this process, a restart and the readers of
  // its snapshot directory sign and accept the same cursors for each generation.
  const cursors = createCursorKeyring(await access((store) => storeSecret(store, readOnly)));
  let nextSecret: Buffer | null = null;
  // (read-only: no rounds, they would write)
  const { sources, filling } = readOnly ? { sources: [], filling: false } : await configuredSources(common, { demo: true });
  const runtime = createRuntime({
    common,
    store: access,
    engine,
    sources,
    file: config.db,
    // another world, another store: its cursor secret, for the generations published from it
    onReplaced: async () => {
      nextSecret = await access((store) => storeSecret(store, readOnly));
    },
  });
  // With history already stored, serve it at once and catch up in the background (an RPC that
  // is down must not keep a restart from serving); an empty database is filled first.
  const warm = filling && (await access(hasSnapshots));
  if (filling && !warm) {
    // long work: let other processes (a `vaultd keys create`) at the file meanwhile
    await release?.();
    release = null;
    await runtime.prime();
  }
  // the config's external TVL sources are part of the registry the first publish is built from
  // (with no TVL sources configured there is nothing to sync: no store opened for it)
  if (!readOnly && config.tvl_sources.length > 0 && (await access((store) => syncTvlSources(store, config))))
    common.logger.info({ tvl_sources: config.tvl_sources.length }, 'external TVL sources synced from config');
  let served: ReadModel | null = null;
  // first: the new store's secret before anything serves or writes its first generation
  engine.subscribe((snapshot) => {
    if (nextSecret) cursors.use(nextSecret, snapshot.generation);
    nextSecret = null;
  });
  // the live feed (DESIGN §11.7): each publish's changes pushed to subscribers
  const stream = createStreamHub({
    common,
    jobs,
    started,
    // wallet.request (DESIGN §11.8): one entry per request and state, the /requests item's JSON
    walletRequests: (model, wallet) =>
      new Map(model.requestItems(wallet).map((r) => [`${r.vault_id}|${r.request_hash}|${r.status}`, Buffer.from(JSON.stringify(r))])),
  });
  engine.subscribe((snapshot) => {
    served = createReadModel(snapshot, {
      positionWindow: (task) => pool.positionWindow(task),
      pastPositions: (task) => pool.pastPositions(task),
      seriesBlocks: (task) => pool.seriesBlocks(task),
      positionAudit: (task) => pool.positionAudit(task),
    });
    void stream.publish(served);
  });
  // Every publish is also written as files (beside the database unless --publish-dir says where):
  // a restart on unchanged inputs serves them without recomputing, and readers serve them.
  const snapDir = opts.publishDir !== undefined ? resolve(opts.publishDir) : defaultSnapshotDir(config.db);
  const writer = createSnapshotWriter(common, snapDir, {
    access,
    engine,
    auth: async (generation) => ({ cursor_secret: cursors.secretFor(generation).toString('base64url'), keys: await access(activeKeyDigests) }),
    nextPublishAt: () => {
      const next = runtime.nextRun();
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
    await engine.recomputeFull({
      afterLoad: async () => {
        await release?.();
        release = null;
      },
      signal: common.shutdown.signal,
    });
  }

  const keys = createKeyReloader({ common, store: access, path: config.db, build: createAuthTable, onChange: () => writer.authChanged() });
  await keys.reload();
  const handle = createHandler({
    common,
    current: () => served,
    jobs,
    auth: () => keys.table,
    keysReloading: () => keys.reloadIfStale(),
    cursors,
    secondsToNextPublish: () => {
      const next = runtime.nextRun();
      return next ? (next.getTime() - Date.now()) / 1000 : null;
    },
    started,
    assets: loadStaticAssets([CLIENT_MOUNT, EXPLORER_MOUNT], EXPLORER_PAGES),
  });
  // `vaultd demo --force` asks before it replaces a file a server depends on between its jobs
  const since = new Date(started).toISOString();
  const marker = markServing(config.db, { listen: `${config.server.host}:${config.server.port}`, started_at: since });
  common.shutdown.add('serving marker', async () => marker.remove());
  const server = await startHttpServer(common, { host: config.server.host, port: config.server.port, handle, stream: { hub: stream, auth: () => keys.table } });
  common.shutdown.add('http', () => server.close());
  marker.update({ listen: `${config.server.host}:${server.port}`, started_at: since });
  printServingLine(config.server.host, server.port);
  await release?.();
  if (!readOnly) writer.start();
  // the catch-up round of a warm start, then rounds on their schedules
  if (jobs) runtime.start({ catchUp: warm });
  keys.poll(2000);

  await common.shutdown.closed;
  return 0;
}

/**
 * The HMAC secret of pagination cursors: generated and stored on first start (DESIGN §5.4). A
 * read-only start that finds none uses one of its own (its cursors end with the process).
 */
async function storeSecret(store: Store, readOnly: boolean): Promise<Buffer> {
  return readOnly ? ((await cursorSecret(store, false)) ?? randomBytes(32)) : cursorSecret(store);
}
