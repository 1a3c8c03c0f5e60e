// Builds the demo world into a fresh database file beside the target and swaps it in with
// a rename, so a crash or a bad flag never leaves a half-written database behind.
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Common } from '../../common/common.js';
import { ensureDir } from '../../common/ensureDir.js';
import { VaultdError } from '../../common/errors.js';
import type { Progress } from '../../common/progress.js';
import { hasVaults, writeRegistry } from '../../store/registryStore.js';
import { checkpointFile } from '../../store/queries.js';
import { setSetting } from '../../store/settings.js';
import { openStoreWithRetry } from '../../store/storeHandle.js';
import { createStore } from '../../store/store.js';
import { buildDemoRaw, type BuildDemoRawOptions } from './buildDemoRaw.js';
import { buildDemoRegistry, demoStart, type DemoParams } from './index.js';
import { listedBy } from './registry.js';

export interface DemoWorldSummary {
  path: string;
  params: DemoParams;
  vaults: number;
  wallets: number;
  snapshots: number;
  events: number;
  prices: number;
  seconds: number;
  rows_per_second: number;
}

export const DEMO_SETTING = 'demo.params';

/**
 * DuckDB's buffer pool while a world is built (every other command's is store.ts's 4 GB): the
 * build appends and moves ~1 M staged rows at a time and needs no more, and a 4 GB pool filled
 * with pages the build will not read again held 3.3 GB of the 10,000-vault build's 7.6 GiB peak
 * (4.3 GiB with this one, in the same time: bench/README.md "The 10,000-vault world").
 */
export const DEMO_BUILD_MEMORY = '1GB';

/** Does the database at `path` already hold a registry? Opens and closes it. */
export async function databaseHasData(common: Common, path: string): Promise<boolean> {
  if (path === ':memory:' || !existsSync(path)) return false;
  // another process (a second `serve`, a `keys create`) may hold the file a moment: wait for it
  const store = await openStoreWithRetry(common, { path });
  try {
    return await hasVaults(store);
  } finally {
    await store.close();
  }
}

export async function createDemoWorld(
  common: Common,
  opts: { path: string; params: DemoParams; force: boolean; progress?: Progress; mode?: BuildDemoRawOptions['mode'] },
): Promise<DemoWorldSummary> {
  const target = resolve(opts.path);
  try {
    ensureDir(dirname(target));
  } catch (cause) {
    throw new VaultdError('DB_UNAVAILABLE', `cannot create the folder of database "${opts.path}": ${(cause as Error).message}`, { cause });
  }
  if (!opts.force && (await databaseHasData(common, target))) {
    throw new VaultdError('USAGE', `database "${opts.path}" already holds a world; pass --force to replace it`);
  }
  const tmp = `${target}.tmp-${process.pid}`;
  removeStaleBuilds(target);
  const t0 = performance.now();
  let summary: DemoWorldSummary;
  let renamed = false;
  // a stop signal mid-build removes the unfinished file (the process exits right after)
  common.shutdown.add('demo build', () => {
    if (!renamed) removeDatabase(tmp);
  });
  try {
    const store = await createStore(common, { path: tmp, memoryLimit: DEMO_BUILD_MEMORY });
    try {
      // the vaults listed by `now` (a later `now` of the same world lists more: extendDemoWorld)
      const registry = buildDemoRegistry(opts.params);
      await writeRegistry(store, listedBy(registry, opts.params.now));
      const { sim, added } = await buildDemoRaw(store, opts.params, registry, {
        onProgress: (done, total) => opts.progress?.update(done, total),
        mode: opts.mode,
      });
      opts.progress?.stop();
      // the world's identity (its first hour made explicit) and how far it was built
      await setSetting(store, DEMO_SETTING, JSON.stringify({ ...opts.params, start: demoStart(opts.params), end: sim.end }));
      await checkpointFile(store);
      const seconds = (performance.now() - t0) / 1000;
      const rows = added.snapshots + added.events + added.prices + added.allocations + added.tvlSourceValues;
      summary = {
        path: target,
        params: opts.params,
        vaults: sim.vaults,
        wallets: sim.wallets,
        snapshots: added.snapshots,
        events: added.events,
        prices: added.prices,
        seconds: Math.round(seconds * 100) / 100,
        rows_per_second: Math.round(rows / seconds),
      };
    } finally {
      await store.close();
    }
    // A stale write-ahead log of the old file would be replayed into the new one.
    removeDatabase(target);
    renameSync(tmp, target);
    renamed = true;
  } catch (err) {
    removeDatabase(tmp);
    throw err;
  }
  return summary;
}

/** Leftovers of a build that was killed before its swap. */
function removeStaleBuilds(target: string): void {
  const base = `${basename(target)}.tmp-`;
  for (const name of readdirSync(dirname(target), { withFileTypes: true })) {
    if (name.isFile() && name.name.startsWith(base)) rmSync(join(dirname(target), name.name), { force: true });
  }
}

function removeDatabase(path: string): void {
  rmSync(path, { force: true });
  rmSync(`${path}.wal`, { force: true });
}
