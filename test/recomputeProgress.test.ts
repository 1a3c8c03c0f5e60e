// `vaultd recompute --full` shows progress through its load too (at 10,000 vaults the load alone
// is minutes): the rows the streaming reads hand over are counted, and the load's share of the
// progress moves with them up to its end; then the stages' shares follow, in order, to 100 %.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorld } from '../engine/load/loadWorld.js';
import { rowsStreamed } from '../store/chunkStream.js';
import { createStore, type Store } from '../store/store.js';
import { smallDemoDb, vaultd } from './helpers/cli.js';
import { tempDir, testCommon } from './helpers/common.js';

let dir: string;
let db: string;

beforeAll(() => {
  dir = tempDir('vaultd-progress-');
  db = join(dir, 'w.duckdb');
  smallDemoDb(db);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('recompute progress', () => {
  it("counts every row a load streams: at least the snapshots', events' and prices' rows", async () => {
    const common = testCommon();
    const store: Store = await createStore(common, { path: db, readOnly: true });
    try {
      const n = await store.one<{ s: number; e: number; p: number }>(
        'test.counts',
        'SELECT (SELECT count(*) FROM vault_snapshots)::DOUBLE AS s, (SELECT count(*) FROM vault_events)::DOUBLE AS e, (SELECT count(*) FROM prices)::DOUBLE AS p',
      );
      const before = rowsStreamed();
      const world = await loadWorld(common, store, { apy: false });
      const read = rowsStreamed() - before;
      let snapshots = 0;
      for (const s of world.series.values()) snapshots += s.length;
      expect(snapshots).toBe(n!.s);
      expect(world.events.length).toBe(n!.e);
      expect(read).toBeGreaterThanOrEqual(n!.s + n!.e + n!.p);
    } finally {
      await store.close();
      await common.shutdown.close('done');
    }
  });

  it('logs the load share, then each stage, in order, to 100 %', () => {
    const r = vaultd(['recompute', '--full', '--db', db], { VAULTD_LOG_LEVEL: 'info' });
    expect(r.status, r.stderr).toBe(0);
    const percents = `${r.stdout}\n${r.stderr}`
      .split('\n')
      .filter((l) => l.startsWith('{') && l.includes('"msg":"progress"'))
      .map((l) => JSON.parse(l) as { task: string; percent: number })
      .filter((p) => p.task === 'recompute')
      .map((p) => p.percent);
    expect(percents[0]).toBe(0);
    expect(percents).toContain(20); // the load's end
    expect(percents.at(-1)).toBe(100);
    expect([...percents].sort((a, b) => a - b)).toEqual(percents);
  });
});
