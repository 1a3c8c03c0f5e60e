import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, testCommon } from '../test/helpers/common.js';
import type { Store } from './store.js';
import { holdStore, withStore } from './storeHandle.js';

describe('holdStore', () => {
  it('keeps one open store for every withStore call until released, then opens per call again', async () => {
    const common = testCommon();
    const path = join(tempDir('vaultd-hold-'), 'h.duckdb');
    const seen: Store[] = [];
    const grab = () => withStore(common, { path }, async (s) => void seen.push(s));
    await grab();
    await grab();
    expect(seen[0]).not.toBe(seen[1]); // not held: a store per call

    const release = await holdStore(common, { path });
    await Promise.all([grab(), grab(), withStore(common, { path }, (s) => s.run('t', 'CREATE TABLE held_t AS SELECT 42 AS x'))]);
    expect(seen[2]).toBe(seen[3]);
    await release();
    await release(); // idempotent

    await grab();
    expect(seen[4]).not.toBe(seen[2]);
    // what was written on the held store is in the file
    const x = await withStore(common, { path }, (s) => s.one<{ x: number }>('t', 'SELECT x FROM held_t'));
    expect(x?.x).toBe(42);
  });
});
