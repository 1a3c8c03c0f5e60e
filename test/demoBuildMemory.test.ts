// The demo build opens its database with a buffer pool of DEMO_BUILD_MEMORY (not every other
// command's 4 GB): DuckDB itself reports that limit on the build's connection, while it builds.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Store, StoreOptions } from '../store/store.js';
import { tempDir, testCommon } from './helpers/common.js';

const seen: { options: StoreOptions; limit: string | undefined }[] = [];

vi.mock(import('../store/store.js'), async (original) => {
  const mod = await original();
  return {
    ...mod,
    createStore: async (common, options) => {
      const store: Store = await mod.createStore(common, options);
      const row = await store.one<{ limit: string }>('test.memory_limit', "SELECT current_setting('memory_limit') AS limit");
      seen.push({ options, limit: row?.limit });
      return store;
    },
  };
});

const { createDemoWorld, DEMO_BUILD_MEMORY } = await import('../jobs/demo/createDemoWorld.js');

const dir = tempDir('vaultd-demo-memory-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the demo build', () => {
  it("runs DuckDB with the build's buffer pool, as DuckDB itself reports it", async () => {
    const common = testCommon();
    const now = Date.parse('2026-06-01T00:00:00Z') / 1000;
    await createDemoWorld(common, { path: join(dir, 'w.duckdb'), params: { seed: 3, now, vaults: null, wallets: 10, days: 3 }, force: true });
    await common.shutdown.close('done');
    const build = seen.find((s) => s.options.path.includes('.tmp-'));
    expect(build?.options.memoryLimit).toBe(DEMO_BUILD_MEMORY);
    // DuckDB reports 1 GB as 953.6 MiB (GB = 1000^3); the default would be 3.7 GiB
    expect(build?.limit).toBe('953.6 MiB');
  });
});
