// The living demo world (DESIGN §11.6, issue #34 item 5): under `vaultd serve` with
// `demo.hour_seconds` 1 the demo source advances one simulated hour a second through the usual
// ingest → recompute → publish path, and the world it reaches at T is, table for table (EXCEPT
// ALL both ways), the world `vaultd demo` of the same seed and --start builds with --now T. The
// served world starts mid-hour (its first round completes a partial hour) and crosses a listing.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { smallDemoDb } from '../helpers/cli.js';
import { tempDir, testCommon } from '../helpers/common.js';
import { eventually } from '../helpers/eventually.js';
import { createStore } from '../../store/store.js';
import { getSetting } from '../../store/settings.js';
import { compareUpTo } from './rawTables.js';
import { get, type Served, serveDb } from './servedWorld.js';

const dir = tempDir('vaultd-living-');
let served: Served | undefined;
afterAll(async () => {
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const HOUR = 3600;
const WORLD = ['--seed', '7', '--start', '2026-05-01T00:00:00Z', '--wallets', '20', '--days', '12'];
// mid-hour, 90 minutes before vault 10:0x…1dc8bd45 is listed (2026-05-06T18:00:00Z)
const NOW = '2026-05-06T16:30:00Z';

/** The stored demo world's end (Unix seconds) and its vault count. */
async function stored(db: string): Promise<{ end: number; vaults: number }> {
  const store = await createStore(testCommon(), { path: db, readOnly: true });
  try {
    const params = JSON.parse((await getSetting(store, 'demo.params'))!) as { end: number };
    const vaults = await store.one<{ n: bigint }>('test.vaults', 'SELECT count(*) AS n FROM vaults');
    return { end: params.end, vaults: Number(vaults!.n) };
  } finally {
    await store.close();
  }
}

/** The newest vault point the server publishes (every vault has one a simulated hour). */
async function publishedEnd(base: string): Promise<number> {
  const r = await get(base, '/v1/vaults?include_hidden=true');
  if (r.status !== 200) return 0;
  const list = JSON.parse(r.text) as { data: { metrics: { as_of: number } | null }[] };
  return Math.max(0, ...list.data.map((v) => v.metrics?.as_of ?? 0));
}

describe('serve: the living demo world is the demo world built to where it got', () => {
  it('after ≥ 3 simulated hours under demo.hour_seconds 1, `vaultd demo --now <its end>` holds exactly its rows', async () => {
    const live = join(dir, 'live.duckdb');
    smallDemoDb(live, [...WORLD, '--now', NOW]);
    const before = await stored(live);
    expect(before.end).toBe(Date.parse(NOW) / 1000);

    served = await serveDb(live, join(dir, 'serve'), [], { demo: { hour_seconds: 1 } });
    // published, not only written: the refresh after each round serves the new hours
    await eventually(
      () => publishedEnd(served!.base),
      (end) => end >= before.end + 3 * HOUR,
      200,
    );
    await served.stop();
    served = undefined;

    const after = await stored(live);
    expect(after.end % HOUR).toBe(0);
    expect(after.end).toBeGreaterThanOrEqual(before.end + 3 * HOUR);
    // it crossed a listing: the vault listed at 18:00 was added to the registry on the way
    expect(after.vaults).toBeGreaterThan(before.vaults);

    const built = join(dir, 'built.duckdb');
    smallDemoDb(built, [...WORLD, '--now', new Date(after.end * 1000).toISOString()]);
    const cmp = await compareUpTo(built, live, null);
    expect(cmp.unknown).toEqual([]);
    expect(cmp.empty).toEqual([]);
    expect(cmp.diffs).toEqual([]);
    expect(cmp.counts.vaults).toBe(after.vaults);
  });
});
