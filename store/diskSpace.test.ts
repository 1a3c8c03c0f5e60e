// store/diskSpace.ts on real DuckDB files: what a failed write leaves past the last block is cut
// and the database reads the same after; a file with nothing past its last block is left alone;
// a recompute's need is counted from the rows it will write.
import { appendFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, testCommon } from '../test/helpers/common.js';
import { recomputeSpace, trimUnusedTail } from './diskSpace.js';
import { createStore } from './store.js';

async function withRows(path: string): Promise<void> {
  const store = await createStore(testCommon(), { path });
  try {
    await store.run('test.fill', "CREATE TABLE filler AS SELECT range AS i, 'row ' || range::VARCHAR AS s FROM range(300000)");
  } finally {
    await store.close();
  }
}

describe('trimUnusedTail', () => {
  it('cuts a grown tail back to the last block; the rows read the same after', async () => {
    const path = join(tempDir(), 'grown.duckdb');
    await withRows(path);
    const size = statSync(path).size;
    // what a transaction that ran out of space leaves: blocks written past the last one counted
    appendFileSync(path, Buffer.alloc(3 * 262_144 + 4096, 0xab));
    const store = await createStore(testCommon(), { path });
    try {
      expect(await trimUnusedTail(store)).toBe(3 * 262_144 + 4096);
      expect(statSync(path).size).toBe(size);
      expect(await trimUnusedTail(store)).toBe(0);
    } finally {
      await store.close();
    }
    const again = await createStore(testCommon(), { path });
    try {
      const row = await again.one<{ n: bigint; sum: bigint; s: string }>('test.read', 'SELECT count(*) AS n, sum(i)::BIGINT AS sum, max(s) AS s FROM filler');
      expect(row).toEqual({ n: 300_000n, sum: 44_999_850_000n, s: 'row 99999' });
    } finally {
      await again.close();
    }
  });
});

describe('recomputeSpace', () => {
  it('a full run counts every hourly row; past the newest written hour, none', async () => {
    const store = await createStore(testCommon(), { path: ':memory:' });
    try {
      await store.run(
        'test.snapshots',
        "INSERT INTO vault_snapshots (vault_id, ts, block_number, total_assets, total_supply) SELECT '1:0x01', make_timestamp(range * 3600000000), range, 1, 1 FROM range(1000)",
      );
      const all = await recomputeSpace(store, null);
      const none = await recomputeSpace(store, 999 * 3600);
      expect(all.needed - none.needed).toBe(Math.ceil(1000 * 60 * 1.2));
    } finally {
      await store.close();
    }
  });
});
