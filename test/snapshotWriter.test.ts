// The writer of a published snapshot directory (cli/commands/snapshotDir.ts) with real files:
// a key change that arrives while a newer publish is being written rewrites the manifest of the
// newest files under their own generation. (It used to put the older generation's number over
// the newer files: readers then saw a generation going backwards and mixed walks.)
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSnapshot, type Snapshot } from '../engine/publish/buildSnapshot.js';
import { readManifest, readSnapshotAuth, type SnapshotAuth } from '../engine/publish/snapshotFiles.js';
import type { DemoParams } from '../jobs/demo/index.js';
import { createStore } from '../store/store.js';
import { createSnapshotWriter } from '../cli/commands/snapshotDir.js';
import { tempDir, testCommon } from './helpers/common.js';
import { publishedDemo } from './helpers/publishedDemo.js';

const params: DemoParams = { seed: 6, now: Date.parse('2026-03-01T00:00:00Z') / 1000, vaults: null, wallets: 15, days: 8 };

describe('snapshot directory writer', () => {
  it('a write queued right as the previous loop ends is written', async () => {
    const dir = tempDir();
    const world = (await publishedDemo(join(dir, 'w.duckdb'), params)).world;
    const snapshot = buildSnapshot(world, { generation: 1, now: params.now });
    const store = await createStore(testCommon(), { path: ':memory:' });
    try {
      const out = join(dir, 'published');
      const writer = createSnapshotWriter(testCommon(), out, {
        access: (work) => work(store),
        engine: { current: () => snapshot },
        auth: async () => ({ cursor_secret: 'secret', keys: [] }),
      });
      writer.start(); // a loop with nothing to do, ending
      void writer.write(snapshot);
      for (let i = 0; i < 200 && (await readManifest(out).catch(() => null)) === null; i++) await new Promise((r) => setTimeout(r, 50));
      await writer.flush();
      expect((await readManifest(out))!.generation).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('a key change during the write of a newer publish lands on the newest generation', async () => {
    const dir = tempDir();
    const world = (await publishedDemo(join(dir, 'w.duckdb'), params)).world;
    const snapshots: Snapshot[] = [1, 2].map((generation) => buildSnapshot(world, { generation, now: params.now + generation * 3600 }));
    let current: Snapshot = snapshots[0]!;
    let keys: SnapshotAuth['keys'] = [];
    const store = await createStore(testCommon(), { path: ':memory:' });
    try {
      const out = join(dir, 'published');
      const writer = createSnapshotWriter(testCommon(), out, {
        access: (work) => work(store),
        engine: { current: () => current },
        auth: async (generation) => ({ cursor_secret: `secret-of-generation-${generation}`, keys }),
      });
      // queued before the start, as serve does (the first publish comes before the listen)
      void writer.write(snapshots[0]!);
      writer.start();
      await writer.flush();
      expect((await readManifest(out))!.generation).toBe(1);

      current = snapshots[1]!;
      const written = writer.write(current);
      // the write of generation 2 is under way; a key is created now
      keys = [{ id: 'key_1', secret_sha256: 'a'.repeat(64), tier: 'keyed' }];
      writer.authChanged();
      await written;
      await writer.flush();

      const m = (await readManifest(out))!;
      expect(m.generation).toBe(2);
      expect(m.refreshed_at_s).toBe(params.now + 2 * 3600);
      const auth = (await readSnapshotAuth(out, m))!;
      expect(auth.cursor_secret).toBe('secret-of-generation-2');
      expect(auth.keys).toEqual(keys);
    } finally {
      await store.close();
    }
  });
});
