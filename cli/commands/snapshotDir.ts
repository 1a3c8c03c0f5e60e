// The writer's side of published snapshot directories (engine/publish/snapshotFiles.ts):
// restoring the last publish on start when the inputs are unchanged (issue #9: restart without
// recompute), and writing the directory at every publish (issue #11: `serve --publish-dir`,
// `vaultd publish`), one write at a time, the newest snapshot winning.
import { resolve } from 'node:path';
import type { Common } from '../../common/common.js';
import { describeError } from '../../common/errors.js';
import type { Engine, StoreAccess } from '../../engine/engine.js';
import { loadPriceDigests } from '../../engine/load/loadWorld.js';
import type { Snapshot } from '../../engine/publish/buildSnapshot.js';
import {
  CorruptSnapshotError,
  readManifest,
  readSnapshotDir,
  writeManifest,
  writeWorldFiles,
  type SnapshotAuth,
  type SnapshotManifest,
  type WorldFiles,
} from '../../engine/publish/snapshotFiles.js';
import { inputStamp, readPublishIdentity, stampSource } from '../../store/publishIdentity.js';

/** Where `serve` keeps its published snapshot when no --publish-dir is given: beside the database. */
export function defaultSnapshotDir(db: string): string {
  return `${resolve(db)}.snapshot`;
}

/**
 * Publish the snapshot saved in `dir` when it was built from exactly the store's current inputs
 * (same stamp and identity): no recompute. Returns null (and says why) when it cannot be used;
 * the caller then recomputes. A torn or altered file is refused by its checksum.
 */
export async function restoreSnapshot(
  common: Common,
  access: StoreAccess,
  engine: Engine,
  dir: string,
  beforePublish?: (manifest: SnapshotManifest) => void,
): Promise<SnapshotManifest | null> {
  const t0 = performance.now();
  let manifest: SnapshotManifest | null;
  try {
    manifest = await readManifest(dir);
  } catch (err) {
    common.logger.warn({ dir, reason: describeError(err) }, 'saved snapshot unreadable; recomputing');
    return null;
  }
  if (!manifest) return null;
  // the inputs' stamp first, then the files, and only when the stamp says they are current (a
  // changed world then reads nothing). Run at once on two cores they slowed each other down
  // about as much as they overlapped (benchmark world: stamp ~2 s then read ~3 s; both at once
  // ~5.2 s each; first 200 at 6.2 s vs 6.6 s, means of 5 starts)
  const [stamp, stampFrom, identity] = await access(async (store) => [await inputStamp(store), stampSource(store), await readPublishIdentity(store)] as const);
  const stampMs = Math.round(performance.now() - t0);
  if (
    manifest.stamp !== stamp ||
    !identity ||
    identity.stamp !== stamp ||
    identity.generation !== manifest.generation ||
    identity.refreshed_at_s !== manifest.refreshed_at_s
  ) {
    common.logger.info({ dir, generation: manifest.generation, stamp_from: stampFrom }, 'saved snapshot is of other inputs; recomputing');
    return null;
  }
  // the price digests (what the next refresh compares prices with) are read from the database
  // while the threads read the files: afterwards they kept the first 200 waiting ~0.1 s
  const digests = access((store) => loadPriceDigests(store));
  digests.catch(() => undefined); // adopt awaits it
  let readMs = 0;
  let loaded: Awaited<ReturnType<typeof readSnapshotDir>>;
  try {
    const t1 = performance.now();
    loaded = await readSnapshotDir(dir, manifest);
    readMs = Math.round(performance.now() - t1);
  } catch (err) {
    if (!(err instanceof CorruptSnapshotError)) throw err;
    common.logger.warn({ dir, reason: err.message }, 'saved snapshot refused; recomputing');
    return null;
  }
  beforePublish?.(manifest);
  await engine.adopt(loaded.world, manifest, digests);
  common.logger.info(
    { dir, generation: manifest.generation, ms: Math.round(performance.now() - t0), stamp_ms: stampMs, stamp_from: stampFrom, read_ms: readMs },
    'serving the saved snapshot (inputs unchanged)',
  );
  return manifest;
}

export interface SnapshotWriter {
  /** Queue `snapshot` for writing (the newest queued wins); resolves once it (or a newer one) is on disk. */
  write(snapshot: Snapshot): Promise<void>;
  /** Rewrite the manifest (new key digests for readers) over the files already written. */
  authChanged(): void;
  /** Begin writing (serve starts it once it listens: encoding a large world takes seconds). */
  start(): void;
  /** Wait for the pending write. */
  flush(): Promise<void>;
  /** The directory already holds this publish (restored from it): a write of it is skipped. */
  seed(manifest: SnapshotManifest): void;
}

export function createSnapshotWriter(
  common: Common,
  dir: string,
  opts: {
    access: StoreAccess;
    /** the engine: a snapshot is written only while it is still the current one */
    engine: Pick<Engine, 'current'>;
    /** the keys and the cursor secret of `generation`'s store, for its manifest */
    auth: (generation: number) => Promise<SnapshotAuth>;
    nextPublishAt?: () => number | null;
  },
): SnapshotWriter {
  type Job = { identity: { generation: number; refreshed_at_s: number }; snapshot: Snapshot | null };
  let pending: Job | null = null;
  let last: { identity: Job['identity']; stamp: string | null; files: WorldFiles } | null = null;
  let running: Promise<void> | null = null;
  let started = false;
  let lastAuth = '';
  const run = async (): Promise<void> => {
    while (pending) {
      const job = pending;
      pending = null;
      const t0 = performance.now();
      try {
        let files: WorldFiles;
        let stamp: string | null;
        let identity = job.identity;
        if (job.snapshot) {
          const s = job.snapshot;
          // a published snapshot's world never changes (refreshes grow the live world past what
          // it sees), so it is written as it is — unless a newer snapshot replaced it meanwhile
          // (that one is queued and written instead)
          if (opts.engine.current() !== s) continue;
          files = await writeWorldFiles(dir, s.world);
          // the stamp the engine saved with this publish (a newer publish may have replaced it)
          const id = await opts.access((store) => readPublishIdentity(store));
          stamp = id && id.generation === job.identity.generation && id.refreshed_at_s === job.identity.refreshed_at_s ? id.stamp : null;
        } else if (last) {
          // new keys over the files last written — whatever was written since the job was
          // queued (a key change during a publish's write must not put an older generation's
          // identity over the newer files)
          ({ files, stamp, identity } = last);
        } else continue;
        const auth = await opts.auth(identity.generation);
        if (!job.snapshot && JSON.stringify(auth) === lastAuth) continue;
        const m = await writeManifest(dir, files, { ...identity, stamp }, auth, opts.nextPublishAt?.() ?? null);
        lastAuth = JSON.stringify(auth);
        last = { identity, stamp, files };
        common.logger.info({ dir, generation: m.generation, ms: Math.round(performance.now() - t0) }, 'snapshot files written');
      } catch (err) {
        common.logger.error({ dir, error: describeError(err) }, 'writing the snapshot files failed; the previous ones stay');
      }
    }
  };
  const kick = (): Promise<void> => {
    if (!started) return Promise.resolve();
    // (a job queued while the loop was ending, before this `finally`, starts a new loop)
    if (!running)
      running = run().finally(() => {
        running = null;
        if (pending) void kick();
      });
    return running;
  };
  return {
    write(snapshot) {
      const identity = { generation: snapshot.generation, refreshed_at_s: snapshot.refreshed_at_s };
      const restored = last && last.identity.generation === identity.generation && last.identity.refreshed_at_s === identity.refreshed_at_s;
      // restored from these files: only the keys may be newer
      pending = { identity, snapshot: restored ? null : snapshot };
      return kick();
    },
    authChanged() {
      if (!pending && last) {
        pending = { identity: last.identity, snapshot: null };
        void kick();
      }
    },
    start() {
      started = true;
      void kick();
    },
    flush() {
      if (running) common.logger.info({ dir }, 'finishing the snapshot files being written before the stop (the next start serves them)');
      return running ?? Promise.resolve();
    },
    seed(manifest) {
      const { auth: _auth, ...files } = manifest.files;
      last = { identity: { generation: manifest.generation, refreshed_at_s: manifest.refreshed_at_s }, stamp: manifest.stamp, files };
    },
  };
}
