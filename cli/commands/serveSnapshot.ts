// `vaultd serve --snapshot DIR`: a stateless reader (issue #11). It serves the snapshot a
// writer (`vaultd serve --publish-dir DIR` or `vaultd publish --out DIR`) published into DIR,
// with no database, no jobs and no engine kernels: the world is read from the files, the pages
// are rebuilt (byte-identical to the writer's), and a new manifest is picked up atomically
// (polled). Keys and the cursor secret come from the directory, so every reader accepts the
// writer's keys and each other's cursors; rate limits are counted per reader.
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createCommon } from '../../common/common.js';
import type { Config } from '../../common/config.js';
import { VaultdError } from '../../common/errors.js';
import { buildSnapshot } from '../../engine/publish/buildSnapshot.js';
import { CorruptSnapshotError, MANIFEST, readManifest, readSnapshotAuth, readSnapshotDir, type SnapshotManifest } from '../../engine/publish/snapshotFiles.js';
import { createAuthTable, type AuthTable } from '../../server/auth.js';
import { createCursorKeyring } from '../../server/cursor.js';
import { createHandler } from '../../server/handle.js';
import { createReadModel } from '../../engine/publish/readModel.js';
import { createComputePool } from '../../engine/pool/computePool.js';
import { startHttpServer } from '../../server/httpServer.js';
import { CLIENT_MOUNT, EXPLORER_MOUNT, EXPLORER_PAGES } from '../../server/static/clientAssets.js';
import { loadStaticAssets } from '../../server/static/staticAssets.js';
import { printServingLine } from '../servingLine.js';
import { createGenerations } from '../../server/generations.js';
import { storeIdentity } from '../../store/cursorSecret.js';

/** How often a reader looks for a new manifest. */
export const MANIFEST_POLL_MS = 250;

export async function serveSnapshotDir(config: Config, dirArg: string): Promise<number> {
  const dir = resolve(dirArg);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir)
    throw new VaultdError(
      'USAGE',
      `--snapshot "${dirArg}" is not a directory; pass the directory a writer publishes into (serve --publish-dir or vaultd publish --out)`,
    );
  const common = createCommon(config, { defaultMetrics: true });
  const started = Date.now();
  const generations = createGenerations();
  // position histories are computed on worker threads (started on first use)
  const pool = createComputePool(common, { threads: 2 });
  let manifest: SnapshotManifest | null = null;
  let auth: AuthTable = createAuthTable([]);
  let secret = '';
  // each generation's cursors with its store's secret (a writer's database may be replaced)
  const cursors = createCursorKeyring(randomBytes(32));
  let seen = '';

  /** Load the manifest's snapshot when it names another one; keep serving the current on any failure. */
  const load = async (): Promise<void> => {
    let m: SnapshotManifest | null;
    try {
      m = await readManifest(dir);
    } catch (err) {
      common.logger.warn({ dir, reason: (err as Error).message }, 'manifest unreadable; keeping the served snapshot');
      return;
    }
    if (!m) return;
    const loadedAuth = await readSnapshotAuth(dir, m).catch(() => null);
    // Generations only grow within one store: a lower one from the same writer is an old
    // directory put back (a restored copy, a sync gone wrong), not news. Another store (a
    // replaced database) starts its generations again.
    if (manifest && m.generation < manifest.generation) {
      const incoming = loadedAuth ? storeIdentity(loadedAuth.cursor_secret) : null;
      if (incoming === null || incoming === (secret ? storeIdentity(secret) : null)) {
        common.logger.warn(
          { dir, generation: m.generation, serving: manifest.generation, store: incoming },
          `published generation went backwards (${manifest.generation} → ${m.generation}) from the same store: refused, still serving ${manifest.generation} (restart this reader to accept it)`,
        );
        return;
      }
      common.logger.info(
        { dir, generation: m.generation, serving: manifest.generation, store: incoming },
        'another store publishes into the directory: serving its generations',
      );
    }
    // the cursors of this generation are signed with its store's secret, from its first request on
    if (loadedAuth) cursors.use(Buffer.from(loadedAuth.cursor_secret, 'base64url'), m.generation);
    const worldKey = JSON.stringify({ ...m.files, auth: null, g: m.generation, t: m.refreshed_at_s });
    if (!manifest || worldKey !== JSON.stringify({ ...manifest.files, auth: null, g: manifest.generation, t: manifest.refreshed_at_s })) {
      const t0 = performance.now();
      try {
        const loaded = await readSnapshotDir(dir, m);
        const snapshot = buildSnapshot(loaded.world, { generation: m.generation, now: m.refreshed_at_s });
        generations.publish(
          createReadModel(snapshot, {
            positionWindow: (task) => pool.positionWindow(task),
            pastPositions: (task) => pool.pastPositions(task),
            seriesBlocks: (task) => pool.seriesBlocks(task),
            positionAudit: (task) => pool.positionAudit(task),
          }),
        );
        common.logger.info({ dir, generation: m.generation, ms: Math.round(performance.now() - t0) }, 'serving a published snapshot');
      } catch (err) {
        if (!(err instanceof CorruptSnapshotError)) throw err;
        // a writer may be replacing files right now: the next poll retries
        common.logger.warn({ dir, reason: err.message }, 'published snapshot refused; keeping the served one');
        return;
      }
    }
    if (loadedAuth) {
      auth = createAuthTable(loadedAuth.keys);
      secret = loadedAuth.cursor_secret;
    }
    manifest = m;
  };

  let loading: Promise<void> | null = null;
  const check = (): Promise<void> => {
    if (loading) return loading;
    let stamp = '';
    try {
      const s = statSync(`${dir}/${MANIFEST}`);
      stamp = `${s.ino}:${s.mtimeMs}:${s.size}`;
    } catch {
      stamp = '';
    }
    if (stamp === seen || stamp === '') return Promise.resolve();
    loading = load()
      .then(() => void (seen = stamp))
      .finally(() => (loading = null));
    return loading;
  };
  await check();
  if (!generations.current()) common.logger.warn({ dir }, 'no published snapshot yet: answering 503 NOT_READY until a writer publishes');
  const poll = setInterval(() => void check().catch((err) => common.logger.error({ err }, 'snapshot reload failed')), MANIFEST_POLL_MS);
  poll.unref();
  common.shutdown.add('manifest poll', () => clearInterval(poll));

  const handle = createHandler({
    common,
    current: () => generations.current(),
    jobs: false,
    generation: (g) => generations.find(g, check),
    auth: () => auth,
    cursors: {
      encode: (...args) => cursors.encode(...args),
      decode: (...args) => cursors.decode(...args),
      pinOf: (cursor) => cursors.pinOf(cursor),
    },
    secondsToNextPublish: () => {
      const next = manifest?.next_publish_at_s;
      return typeof next === 'number' ? Math.max(0, next - Date.now() / 1000) : null;
    },
    started,
    assets: loadStaticAssets([CLIENT_MOUNT, EXPLORER_MOUNT], EXPLORER_PAGES),
  });
  const server = await startHttpServer(common, { host: config.server.host, port: config.server.port, handle });
  common.shutdown.add('http', () => server.close());
  printServingLine(config.server.host, server.port);
  // until a stop signal (common/signals.ts) has closed everything
  await common.shutdown.closed;
  return 0;
}
