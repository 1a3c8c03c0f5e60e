import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tableHashes } from '../../test/helpers/contentHash.js';
import { createStore } from '../../store/store.js';
import { tempDir, testCommon } from '../../test/helpers/common.js';
import { createDemoWorld } from './createDemoWorld.js';
import { extendDemoWorld } from './extendDemoWorld.js';
import type { DemoParams } from './index.js';
import { demoStart } from './params.js';

const common = testCommon();
const HOUR = 3600;
const params: DemoParams = { seed: 5, now: Date.parse('2026-03-01T00:00:00Z') / 1000, vaults: null, wallets: 80, days: 40 };

describe('extendDemoWorld', () => {
  it('appends exactly the rows of a longer run, once', async () => {
    const dir = tempDir();
    const path = join(dir, 'live.duckdb');
    await createDemoWorld(common, { path, params, force: true });
    const live = await createStore(common, { path });
    // first to an instant inside an hour, then on to the hour: together the rows of one run
    const mid = await extendDemoWorld(live, params.now + 2 * HOUR + 1799);
    expect(mid).toMatchObject({ from: params.now, end: params.now + 2 * HOUR + 1799 });
    const ext = await extendDemoWorld(live, (end) => end + HOUR - 1799);
    expect(ext).toMatchObject({ from: params.now + 2 * HOUR + 1799, end: params.now + 3 * HOUR });
    expect((mid!.rows.snapshots ?? 0) + (ext!.rows.snapshots ?? 0)).toBeGreaterThan(0);
    // nothing more is due: a retry adds nothing
    expect(await extendDemoWorld(live, params.now + 3 * HOUR)).toBeNull();
    await expect(extendDemoWorld(live, (params.now + 4 * HOUR) * 1000)).rejects.toThrow(/seconds/);

    // the same seed and start built at once to the same instant
    const directPath = join(dir, 'direct.duckdb');
    await createDemoWorld(common, { path: directPath, params: { ...params, start: demoStart(params), now: params.now + 3 * HOUR }, force: true });
    const direct = await createStore(common, { path: directPath });
    expect(await tableHashes(live)).toEqual(await tableHashes(direct));
    await live.close();
    await direct.close();
  });
});
