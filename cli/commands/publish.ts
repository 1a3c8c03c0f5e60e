// `vaultd publish --db DB --out DIR`: recompute the snapshot from the database and write it as
// a snapshot directory (engine/publish/snapshotFiles.ts) for `vaultd serve --snapshot DIR`
// readers: the same identity (generation, refreshed_at, ETags) `vaultd serve` on that database
// publishes, with the database's API keys and cursor secret.
import { resolve } from 'node:path';
import { createEngine, poolCompute } from '../../engine/engine.js';
import { createComputePool } from '../../engine/pool/computePool.js';
import { writeSnapshotDir } from '../../engine/publish/snapshotFiles.js';
import { activeKeyDigests } from '../../store/apiKeys.js';
import { readPublishIdentity } from '../../store/publishIdentity.js';
import { cursorSecret } from '../../store/cursorSecret.js';
import { PUBLISH } from '../commandSpecs.js';
import { withStoreOut } from './storeOut.js';

export function publishCommand(argv: string[]): Promise<number> {
  return withStoreOut(PUBLISH, argv, 'DIR: the directory to write the snapshot into', async ({ out: given, common, store }) => {
    const out = resolve(given);
    const t0 = performance.now();
    const engine = createEngine(common, (work) => work(store), {
      compute: poolCompute(createComputePool(common, { threads: 2 })),
      persistIdentity: true,
      apyColumns: false,
    });
    await engine.recomputeFull();
    const snapshot = engine.current()!;
    const identity = await readPublishIdentity(store);
    const secret = (await cursorSecret(store)).toString('base64url');
    const keys = await activeKeyDigests(store);
    const m = await writeSnapshotDir(
      out,
      snapshot.world,
      { generation: snapshot.generation, refreshed_at_s: snapshot.refreshed_at_s, stamp: identity?.stamp ?? null },
      { cursor_secret: secret, keys },
    );
    let bytes = 0;
    for (const f of Object.values(m.files)) bytes += f.bytes;
    process.stdout.write(
      `published generation ${m.generation} (refreshed_at ${m.refreshed_at}) to ${out}: ${Object.keys(m.files).length} files, ` +
        `${(bytes / 1048576).toFixed(1)} MiB, in ${Math.round(performance.now() - t0)} ms\n`,
    );
  });
}
