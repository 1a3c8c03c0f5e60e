// A world restored from its saved files (restoreSnapshot, cli/commands/snapshotDir.ts) carries
// the price digests of the inputs it was published from — read while the files are — so the
// first refresh after a restart reloads exactly the prices that changed since: with nothing new
// it publishes nothing, and a price written after the restart is in the next snapshot.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { restoreSnapshot } from '../cli/commands/snapshotDir.js';
import { createEngine } from '../engine/engine.js';
import { writeSnapshotDir } from '../engine/publish/snapshotFiles.js';
import { createDemoWorld } from '../jobs/demo/createDemoWorld.js';
import { priceKey } from '../model/world.js';
import { readPublishIdentity } from '../store/publishIdentity.js';
import type { Store } from '../store/store.js';
import { withStore } from '../store/storeHandle.js';
import { tempDir, testCommon } from './helpers/common.js';

const common = testCommon();
const NOW = Date.parse('2026-03-01T00:00:00Z') / 1000;
let path: string;
let dir: string;
const access = <T>(work: (store: Store) => Promise<T>) => withStore(common, { path }, work);

beforeAll(async () => {
  const root = tempDir('vaultd-restore-');
  path = join(root, 'world.duckdb');
  dir = join(root, 'snapshot');
  await createDemoWorld(common, { path, params: { seed: 12, now: NOW, vaults: null, wallets: 30, days: 15 }, force: true });
  const writer = createEngine(common, access, { clock: () => NOW, persistIdentity: true });
  await writer.recomputeFull();
  const s = writer.current()!;
  const identity = (await access(readPublishIdentity))!;
  await writeSnapshotDir(dir, s.world, { generation: s.generation, refreshed_at_s: s.refreshed_at_s, stamp: identity.stamp }, null);
});

describe('a restored world', () => {
  it('refreshes the prices that changed since its publish, and nothing else', async () => {
    const restart = testCommon(); // another process: its own metrics registry
    const engine = createEngine(restart, access, { clock: () => NOW, persistIdentity: true });
    expect(await restoreSnapshot(restart, access, engine, dir)).not.toBeNull();
    const restored = engine.current()!;

    // nothing written since: nothing to reload, no publish (empty digests would reload every price)
    expect(await engine.refresh()).toBeNull();
    expect(engine.current()).toBe(restored);

    // a new price of one token, an hour after its last
    const token = restored.world.registry.tokens.find((t) => (restored.world.prices.get(priceKey(t.chain_id, t.address))?.ts.length ?? 0) > 0)!;
    const key = priceKey(token.chain_id, token.address);
    const before = restored.world.prices.get(key)!;
    const last = before.ts[before.ts.length - 1]!;
    await access((store) =>
      store.run('test.price', `INSERT INTO prices VALUES ($1, $2, to_timestamp($3)::TIMESTAMP, 123.456::DECIMAL(38, 18), 'test')`, [
        token.chain_id,
        token.address,
        last + 3600,
      ]),
    );
    expect(await engine.refresh()).not.toBeNull();
    const after = engine.current()!.world.prices.get(key)!;
    expect(after.ts[after.ts.length - 1]).toBe(last + 3600);
    expect(after.usd.at(-1)).toBe('123.456');
  });
});
