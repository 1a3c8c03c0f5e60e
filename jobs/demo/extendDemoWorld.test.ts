import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tableHashes } from '../../test/helpers/contentHash.js';
import { createRawWriter } from '../../store/rawWriter.js';
import { writeRegistry } from '../../store/registryStore.js';
import { createStore } from '../../store/store.js';
import { tempDir, testCommon } from '../../test/helpers/common.js';
import { createDemoWorld } from './createDemoWorld.js';
import { extendDemoWorld } from './extendDemoWorld.js';
import { buildDemoRegistry, simulateDemo, type DemoParams } from './index.js';

const common = testCommon();
const HOUR = 3600;
const params: DemoParams = { seed: 5, now: Date.parse('2026-03-01T00:00:00Z') / 1000, vaults: null, wallets: 80, days: 40 };

describe('extendDemoWorld', () => {
  it('appends exactly the rows of a longer run, once', async () => {
    const dir = tempDir();
    const path = join(dir, 'live.duckdb');
    await createDemoWorld(common, { path, params, force: true });
    const live = await createStore(common, { path });
    const ext = await extendDemoWorld(live, (params.now + 3 * HOUR + 59) * 1000);
    expect(ext).toMatchObject({ from: params.now, end: params.now + 3 * HOUR });
    expect(ext!.rows.snapshots).toBeGreaterThan(0);
    // nothing more is due in the same hour: a retry adds nothing
    expect(await extendDemoWorld(live, (params.now + 3 * HOUR + 600) * 1000)).toBeNull();

    const direct = await createStore(common, { path: join(dir, 'direct.duckdb') });
    const registry = buildDemoRegistry(params);
    await direct.transaction('t', () => writeRegistry(direct, registry));
    const writer = await createRawWriter(direct, 'append');
    simulateDemo(params, registry, writer.sink, { until: params.now + 3 * HOUR });
    await writer.finish();

    const [a, b] = [await tableHashes(live), await tableHashes(direct)];
    // allocations are stamped at each run's end hour; every other table must match exactly
    delete a.allocations;
    delete b.allocations;
    expect(a).toEqual(b);
    await live.close();
    await direct.close();
  });
});
