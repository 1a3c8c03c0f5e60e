// Consistent paging (DESIGN §11.6, issue #34 item 4), with real processes: a living demo writer
// (`serve --publish-dir`, demo.hour_seconds 1) publishes new hours while walks are under way;
// three `serve --snapshot` readers of its directory sit behind nginx. A walk whose first page
// was cut before ≥ 3 publishes (so its generation is no longer kept and its cursor's pin is what
// answers) returns exactly the rows of that instant — the `?as_of=` answer with a big limit —
// none twice, none skipped. Pages of one walk served by different readers concatenate to the
// one-reader walk. Rows removed inside a walk's pinned range (as a chain reorganization
// removes them) and republished: the next page is 409 CURSOR_STALE saying to start again.
import type { ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { smallDemoDb, stopChildren, vaultd, vaultdSpawn, waitForListening } from '../helpers/cli.js';
import { tempDir, testCommon } from '../helpers/common.js';
import { eventually } from '../helpers/eventually.js';
import { ensureNginx, type Nginx, startNginx } from '../helpers/nginx.js';
import { createStore } from '../../store/store.js';
import { get, type Served, serveDb, testConfig, withParam } from './servedWorld.js';

const nginx = ensureNginx();
if ('reason' in nginx) process.stdout.write(`consistentPaging.test.ts skipped: ${nginx.reason}\n`);

const dir = tempDir('vaultd-paging-');
const children: ChildProcess[] = [];
let writer: Served | undefined;
let lb: Nginx | null = null;
afterAll(async () => {
  await lb?.stop();
  await writer?.stop();
  await stopChildren(children);
  rmSync(dir, { recursive: true, force: true });
});

const HOUR = 3600;
const WORLD = ['--seed', '7', '--start', '2026-05-01T00:00:00Z', '--wallets', '20', '--days', '12', '--now', '2026-05-08T06:30:00Z'];
const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');

interface Page {
  status: number;
  items: unknown[];
  next: string | null;
  requestId: string;
  text: string;
}

async function page(base: string, path: string): Promise<Page> {
  const r = await get(base, path);
  const body = JSON.parse(r.text) as { data?: unknown[]; meta?: { next_cursor: string | null; request_id: string } };
  return { status: r.status, items: body.data ?? [], next: body.meta?.next_cursor ?? null, requestId: body.meta?.request_id ?? '', text: r.text };
}

/** Every page of `path` from `first` on (a 200 each), `between` awaited after the first page. */
async function walk(bases: () => string, path: string, between?: () => Promise<void>): Promise<Page[]> {
  const pages = [await page(bases(), path)];
  if (between) await between();
  while (pages.at(-1)!.next !== null) pages.push(await page(bases(), withParam(path, 'next', pages.at(-1)!.next!)));
  return pages;
}

/** The pin of a cursor: the data time its walk answers as of. */
const pinOf = (cursor: string): number => {
  const bytes = Buffer.from(cursor, 'base64url');
  return (JSON.parse(bytes.subarray(0, bytes.length - 16).toString('utf8')) as { t: number }).t;
};

const itemsOf = (pages: Page[]) => pages.flatMap((p) => p.items.map((i) => JSON.stringify(i)));

/** The newest vault point the server publishes. */
async function publishedEnd(base: string): Promise<number> {
  const r = await get(base, '/v1/vaults?include_hidden=true');
  if (r.status !== 200) return 0;
  return Math.max(0, ...(JSON.parse(r.text) as { data: { metrics: { as_of: number } | null }[] }).data.map((v) => v.metrics?.as_of ?? 0));
}

describe.skipIf('reason' in nginx)('consistent paging under a publishing writer, across readers, after a reorganization', () => {
  it('a walk is the pinned instant; readers share cursors; removed rows answer 409 CURSOR_STALE', { timeout: 300_000 }, async () => {
    const db = join(dir, 'world.duckdb');
    const snap = join(dir, 'published');
    smallDemoDb(db, WORLD);
    const facts = await (async () => {
      const store = await createStore(testCommon(), { path: db, readOnly: true });
      try {
        const w = await store.one<{ w: string }>('test.wallet', 'SELECT wallet AS w FROM vault_events GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1');
        const v = await store.one<{ v: string }>(
          'test.vault',
          "SELECT vault_id AS v FROM vaults WHERE visibility = 'visible' ORDER BY listed_at, vault_id LIMIT 1",
        );
        return { wallet: w!.w, vault: v!.v };
      } finally {
        await store.close();
      }
    })();

    // 1. a living writer: one simulated hour a second, each published
    writer = await serveDb(db, join(dir, 'writer'), ['--publish-dir', snap], { demo: { hour_seconds: 1 } });
    const series = `/v1/vaults/${facts.vault}/timeseries?granularity=hour&order=desc&limit=20`;
    const activity = `/v1/users/${facts.wallet}/activity?limit=3&include_hidden=true`;
    const firsts = await Promise.all([page(writer.base, series), page(writer.base, activity)]);
    const pins = firsts.map((p) => pinOf(p.next!));
    // ≥ 3 publishes after the first pages: their generation is no longer kept, the pin answers
    await eventually(
      () => publishedEnd(writer!.base),
      (end) => end >= Math.max(...pins) + 3 * HOUR,
      200,
    );
    for (const [k, path] of [series, activity].entries()) {
      const pages = [firsts[k]!];
      while (pages.at(-1)!.next !== null) pages.push(await page(writer.base, withParam(path, 'next', pages.at(-1)!.next!)));
      expect(pages.every((p) => p.status === 200)).toBe(true);
      const walked = itemsOf(pages);
      expect(new Set(walked).size, `${path}: a row twice`).toBe(walked.length);
      // the instant the walk is pinned to, in one page
      const whole = await page(writer.base, withParam(path.replace(/limit=\d+/, `limit=${k === 0 ? 10000 : 1000}`), 'as_of', iso(pins[k]!)));
      expect(whole.status).toBe(200);
      expect(whole.next).toBeNull();
      expect(walked).toEqual(itemsOf([whole]));
    }
    // the series walk is not vacuous: hours arrived during it, which the newest answer shows first
    const newest = await page(writer.base, series);
    expect((newest.items[0] as { timestamp: string }).timestamp > (firsts[0]!.items[0] as { timestamp: string }).timestamp).toBe(true);
    await writer.stop();
    writer = undefined;
    const manifest = join(snap, 'manifest.json');
    expect(existsSync(manifest)).toBe(true);

    // 2. three stateless readers of the published directory behind nginx
    const cfg = testConfig(join(dir, 'readers'));
    const readers = [0, 1, 2].map(() => vaultdSpawn(['serve', '--snapshot', snap, '--port', '0', '--host', '127.0.0.1', '--config', cfg]));
    children.push(...readers);
    const ports = await Promise.all(readers.map((r) => waitForListening(r)));
    const direct = ports.map((p) => `http://127.0.0.1:${p}`);
    lb = await startNginx((nginx as { bin: string }).bin, join(dir, 'nginx'), ports);
    const one = await walk(() => direct[0]!, activity);
    const spread = await walk(() => lb!.url, activity);
    expect(spread.every((p) => p.status === 200)).toBe(true);
    expect(spread.length).toBeGreaterThan(2);
    expect(itemsOf(spread)).toEqual(itemsOf(one));
    // served by more than one reader (a request id starts with its process's prefix)
    expect(new Set(spread.map((p) => p.requestId.split('-')[0])).size).toBeGreaterThan(1);

    // 3. a reorganization removes rows inside a walk's pinned range; three publishes later (its
    // generation gone from every reader) the next page is 409
    const firstPage = await page(lb.url, activity);
    expect(firstPage.next).not.toBeNull();
    const count = async (base: string) => (await page(base, activity.replace('limit=3', 'limit=1000'))).items.length;
    let expected = await count(direct[0]!);
    for (let round = 0; round < 3; round++) {
      // as the chain reorg path does: every event from the wallet's newest block on, on its chain, is gone
      const store = await createStore(testCommon(), { path: db });
      try {
        const newest = (await store.one<{ c: bigint; b: bigint }>(
          'test.newest',
          'SELECT chain_id AS c, block_number AS b FROM vault_events WHERE wallet = $1 ORDER BY ts DESC, block_number DESC LIMIT 1',
          [facts.wallet],
        ))!;
        const gone = await store.one<{ n: bigint }>(
          'test.gone',
          'SELECT count(*) AS n FROM vault_events WHERE wallet = $1 AND chain_id = $2 AND block_number >= $3',
          [facts.wallet, newest.c, newest.b],
        );
        await store.run('test.reorg', 'DELETE FROM vault_events WHERE chain_id = $1 AND block_number >= $2', [newest.c, newest.b]);
        expected -= Number(gone!.n);
      } finally {
        await store.close();
      }
      const published = vaultd(['publish', '--db', db, '--out', snap]);
      expect(published.status, published.stderr).toBe(0);
      for (const base of direct)
        await eventually(
          () => count(base),
          (n) => n === expected,
          100,
        );
    }
    const stale = await get(lb.url, withParam(activity, 'next', firstPage.next!));
    expect(stale.status).toBe(409);
    expect(JSON.parse(stale.text).error).toEqual({
      code: 'CURSOR_STALE',
      message: 'rows this walk began on are gone (a chain reorganization removed them); start the walk again without next',
    });
    // every reader says so, and a new walk works
    for (const base of direct) expect((await get(base, withParam(activity, 'next', firstPage.next!))).status).toBe(409);
    const again = await walk(() => lb!.url, activity);
    expect(again.every((p) => p.status === 200)).toBe(true);
    expect(itemsOf(again)).toHaveLength(expected);
  });
});
