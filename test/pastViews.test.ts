// Views of the past (as_of, DESIGN §11.6) without a world per instant: a vault's pages at an
// instant are the pages of the world cut at that instant; a wallet's items are replayed on the
// compute pool (a real piscina worker; the requests of one turn in one task), resumed from kept
// replay states, and answer the same bytes from a warm cache as from a cold one, a mid-hour
// instant after its hour was cached included; a position is replayed once (its timeline), any
// later instant is valued from it without a task; every cache stays within its bounds (counted).
import fc from 'fast-check';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createComputePool, type ComputePool } from '../engine/pool/computePool.js';
import { vaultIdOf } from '../model/events.js';
import { snapshotAt } from '../engine/publish/asOfView.js';
import { createBoundedCache } from '../engine/publish/boundedCache.js';
import type { Snapshot } from '../engine/publish/buildSnapshot.js';
import type { ReadModel } from '../engine/publish/index.js';
import { createReadModel, FULL_VIEWS_KEPT, PAST_VIEWS_KEPT, type ReadModelOptions } from '../engine/publish/readModel.js';
import type { PastPositionsInput } from '../engine/positions/pastPositionsTask.js';
import { tempDir, testCommon } from './helpers/common.js';
import { publishedDemo } from './helpers/publishedDemo.js';

const dir = tempDir('vaultd-past-views-');
let snapshot: Snapshot;
let pool: ComputePool;
/** wallets with at least one position, busiest first */
let wallets: string[];
let first: number;
let last: number;
const HOUR = 3600;

beforeAll(async () => {
  snapshot = await publishedDemo(join(dir, 'w.duckdb'), { seed: 11, now: Date.parse('2026-04-01T00:00:00Z') / 1000, vaults: null, wallets: 40, days: 90 });
  pool = createComputePool(testCommon(), { threads: 1 });
  const w = snapshot.world;
  const x = w.walletIndex;
  const rows = (k: number) => x.activityStart[k + 1]! - x.activityStart[k]!;
  wallets = w.events.dict.wallets.values
    .map((wallet, k) => ({ wallet, k }))
    .filter(({ k }) => k < x.wallets && x.walletPosStart[k + 1]! > x.walletPosStart[k]!)
    .sort((a, b) => rows(b.k) - rows(a.k))
    .map(({ wallet }) => wallet);
  first = w.events.ts[0]!;
  last = w.events.ts[w.events.length - 1]!;
});
afterAll(async () => {
  await pool?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The wallets whose positions a task replays. */
const taskWallets = (task: PastPositionsInput): string[] => [
  ...new Set([...task.list].map((p) => snapshot.world.events.dict.wallets.values[snapshot.world.walletIndex.posWallet[p]!]!)),
];

/** A read model whose replays go to the pool, counting the tasks. */
function onPool(more: ReadModelOptions = {}): { model: ReadModel; tasks: PastPositionsInput[] } {
  const tasks: PastPositionsInput[] = [];
  const opts: ReadModelOptions = {
    ...more,
    pastPositions: (task) => {
      tasks.push(task);
      return pool.pastPositions(task);
    },
  };
  return { model: createReadModel(snapshot, opts), tasks };
}

/** The wallet's positions page at `t` (every item, hidden ones too) once its items are ready. */
async function positionsAt(model: ReadModel, wallet: string, t: number): Promise<string> {
  const view = model.at(t);
  await view.walletReady(wallet);
  const a = view.positions(wallet, { includeHidden: true, after: 0, limit: 1000 });
  return JSON.stringify({ items: Buffer.concat(a.parts).toString(), errors: a.partialErrors, next: a.nextKey });
}

describe('vault pages at an instant', () => {
  it('equal the pages of the world cut at the instant (detail, definition, allocations, slug; hour, mid-hour, before a listing)', () => {
    const model = createReadModel(snapshot);
    const w = snapshot.world;
    const listings = [...w.series.values()].filter((s) => s.length > 0).map((s) => s.ts[0]!);
    const instants = [first + 40 * HOUR, first + 40 * HOUR + 1799, Math.max(...listings) - 1, Math.max(...listings), last];
    let compared = 0;
    for (const t of instants) {
      const reference = snapshotAt(snapshot, t);
      const view = model.at(t);
      for (const v of w.registry.vaults) {
        for (const part of ['detail', 'definition', 'allocations'] as const) {
          const key = `/v1/vaults/${v.vault_id}${part === 'detail' ? '' : `/${part}`}`;
          const want = reference.pages.get(key);
          const got = view.vault(v.vault_id, part);
          expect(got?.prefix.toString(), `${key} at ${t}`).toBe(want?.prefix.toString());
          // a detail's ETag names (publish, vault, instant) rather than hashing its body (handlerMemos.test.ts holds it)
          if (part === 'detail') expect(got?.etag === undefined).toBe(want === undefined);
          else expect(got?.etag).toBe(want?.etag);
          if (want) compared++;
        }
        expect(view.hasVault(v.vault_id)).toBe(reference.details.has(v.vault_id));
      }
      for (const g of w.registry.groups) {
        expect(view.slug(g.slug)?.prefix.toString(), `slug ${g.slug} at ${t}`).toBe(reference.pages.get(`/v1/vaults/slug/${g.slug}`)?.prefix.toString());
      }
    }
    // some vault was not listed yet at one instant, and most pages were there to compare
    expect(compared).toBeGreaterThan(instants.length * 2);
    expect(compared).toBeLessThan(instants.length * 3 * w.registry.vaults.length);
    // no full view was made for them: one vault's pages never build the world at the instant
    expect(model.pastStats().fullViews).toBe(0);
  });
});

describe('wallet items at an instant', () => {
  it("a position too long to keep whole is replayed on the pool to each instant's rows: the same answers, one state a position crosses, nothing kept", async () => {
    const { model, tasks } = onPool({ pastTimelineRows: 1 });
    const x = snapshot.world.walletIndex;
    const rowsOf = (p: number) => x.rowStart[p + 1]! - x.rowStart[p]!;
    // a wallet holding a position of several rows
    const wallet = wallets.find((w) => {
      const k = snapshot.world.events.dict.wallets.find(w);
      return [...x.walletPos.subarray(x.walletPosStart[k]!, x.walletPosStart[k + 1]!)].some((p) => rowsOf(p) > 3);
    })!;
    expect(wallet).toBeDefined();
    for (const t of [last - 3 * HOUR, last - 40 * HOUR - 17, last]) {
      expect(await positionsAt(model, wallet, t)).toBe(await positionsAt(createReadModel(snapshot), wallet, t));
    }
    const long = tasks.flatMap((task) => [...task.list].filter((_, k) => task.ends[k]! !== 0));
    expect(long.length).toBeGreaterThan(0);
    // a long position's state crosses alone; the timelines kept hold only positions of one row
    const kept = model.pastStats().states;
    const oneRow = tasks.flatMap((task) => [...task.list].filter((p, k) => task.ends[k] === 0 && rowsOf(p) <= 1));
    expect(kept).toBeLessThanOrEqual(oneRow.length);
  });

  it('are replayed on the pool, not on the serving thread, and kept: the same instant or hour asks the pool nothing more', async () => {
    const { model, tasks } = onPool();
    const wallet = wallets[0]!;
    const t = last - 20 * 24 * HOUR;
    const ready = model.at(t).walletReady(wallet);
    expect(ready).toBeInstanceOf(Promise);
    await ready;
    expect(tasks).toHaveLength(1);
    const body = await positionsAt(model, wallet, t);
    // another instant of the same hour with the same rows (no row of this wallet within it): no task
    const x = snapshot.world.walletIndex;
    const w = snapshot.world.events.dict.wallets.find(wallet);
    const ts = snapshot.world.events.ts;
    const rowTimes = [...x.activity.subarray(x.activityStart[w]!, x.activityStart[w + 1]!)].map((i) => ts[i]!);
    const h = Math.floor(t / HOUR) * HOUR;
    const same = [h, h + 1, h + 1800, h + HOUR - 1].filter((u) => u !== t && !rowTimes.some((r) => r > Math.min(t, u) && r <= Math.max(t, u)));
    expect(same.length).toBeGreaterThan(0);
    for (const u of same) {
      expect(model.at(u).walletReady(wallet)).toBeUndefined();
      const page = JSON.parse(await positionsAt(model, wallet, u)) as { items: string };
      expect(page.items).toBe((JSON.parse(body) as { items: string }).items);
    }
    expect(tasks).toHaveLength(1);
    // only the wallet's positions (and their vaults: a sparse list) cross to the worker
    expect(taskWallets(tasks[0]!)).toEqual([wallet]);
    expect(tasks[0]!.vaults.filter((v) => v !== undefined).length).toBeLessThanOrEqual(tasks[0]!.list.length);
    // the timeline answers any other instant of the wallet, an hour or a year away, without a task
    for (const u of [first, t - 37 * HOUR - 17, t + 5 * HOUR, last]) {
      expect(model.at(u).walletReady(wallet)).toBeUndefined();
      expect(await positionsAt(model, wallet, u)).toBe(await positionsAt(createReadModel(snapshot), wallet, u));
    }
    expect(tasks).toHaveLength(1);
    expect(model.pastStats().tasks).toBe(1);
  });

  it('asked for in one turn of the event loop, by several wallets at several instants, share one pool task', async () => {
    const { model, tasks } = onPool();
    const asks = wallets.slice(0, 6).map((wallet, k) => ({ wallet, t: last - (k + 3) * 24 * HOUR - k * 600 }));
    const readies = asks.map(({ wallet, t }) => model.at(t).walletReady(wallet));
    expect(readies.every((r) => r instanceof Promise)).toBe(true);
    await Promise.all(readies);
    expect(tasks).toHaveLength(1);
    expect(taskWallets(tasks[0]!).sort()).toEqual(asks.map((a) => a.wallet).sort());
    // each wallet's answer is its own: what a cold model answers it alone
    for (const { wallet, t } of asks) expect(await positionsAt(model, wallet, t)).toBe(await positionsAt(createReadModel(snapshot), wallet, t));
    expect(tasks).toHaveLength(1);
  });

  it('answer the same bytes from a warm cache (timelines kept) as from a cold one, at any instants in any order', async () => {
    const warm = onPool();
    let coldRows = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: first - HOUR, max: last })), { minLength: 4, maxLength: 12 }),
        async (asks) => {
          for (const [k, t] of asks) {
            const wallet = wallets[k % wallets.length]!;
            // cold: a fresh model per question (the replay starts at the position's first row)
            const cold = createReadModel(snapshot);
            const want = await positionsAt(cold, wallet, t);
            coldRows += cold.pastStats().rowsReplayed;
            expect(await positionsAt(warm.model, wallet, t), `${wallet} at ${t}`).toBe(want);
          }
        },
      ),
      { numRuns: 15, seed: 34 },
    );
    // the warm model replayed each position at most once: fewer rows than the cold replays, and
    // no more than the rows of the 6 wallets' positions
    const x = snapshot.world.walletIndex;
    let rows = 0;
    for (const wallet of wallets.slice(0, 6)) {
      const k = snapshot.world.events.dict.wallets.find(wallet);
      for (let j = x.walletPosStart[k]!; j < x.walletPosStart[k + 1]!; j++) rows += x.rowStart[x.walletPos[j]! + 1]! - x.rowStart[x.walletPos[j]!]!;
    }
    expect(warm.model.pastStats().rowsReplayed).toBeLessThan(coldRows);
    expect(warm.model.pastStats().rowsReplayed).toBeLessThanOrEqual(rows);
  });

  it('a mid-hour instant after its hour was cached counts the rows of the partial hour', async () => {
    const { model } = onPool();
    const w = snapshot.world;
    const x = w.walletIndex;
    const ts = w.events.ts;
    // a wallet's row that is not on an hour boundary, in a visible vault listed an hour before it
    let found: { wallet: string; r: number } | null = null;
    for (const wallet of wallets) {
      const k = w.events.dict.wallets.find(wallet);
      for (let j = x.activityStart[k]!; j < x.activityStart[k + 1]! && !found; j++) {
        const i = x.activity[j]!;
        const r = ts[i]!;
        const vaultId = vaultIdOf(w.events, i);
        const s = w.series.get(vaultId);
        const listed = s !== undefined && s.length > 0 && s.ts[0]! < r - HOUR;
        if (r % HOUR !== 0 && listed && w.vaults.get(vaultId)?.visibility === 'visible') found = { wallet, r };
      }
      if (found) break;
    }
    expect(found).not.toBeNull();
    const { wallet, r } = found!;
    const hour = Math.floor(r / HOUR) * HOUR;
    const atHour = await positionsAt(model, wallet, hour);
    const before = model.pastStats().items;
    const mid = await positionsAt(model, wallet, r);
    expect(mid).toBe(await positionsAt(createReadModel(snapshot), wallet, r));
    // the row of the partial hour changed the wallet's items: a new item, not the hour's
    expect(mid).not.toBe(atHour);
    expect(model.pastStats().items).toBeGreaterThan(before);
  });
});

describe('the caches of views of the past stay bounded', () => {
  it("keep a view from its instant's second ask (an instant asked once leaves nothing behind)", () => {
    const model = createReadModel(snapshot);
    const t = last - 5 * HOUR - 17;
    const once = model.at(t);
    expect(model.pastStats().views).toBe(0);
    const twice = model.at(t);
    expect(twice).not.toBe(once);
    expect(model.pastStats().views).toBe(1);
    expect(model.at(t)).toBe(twice);
    // both answer alike
    const id = [...snapshot.world.series.keys()][0]!;
    expect(once.vault(id, 'detail')?.prefix.equals(twice.vault(id, 'detail')!.prefix)).toBe(true);
  });

  it('views, full views and timelines, counted', async () => {
    const { model } = onPool();
    const wallet = wallets[0]!;
    const span = last - first;
    const n = PAST_VIEWS_KEPT + 40;
    for (let k = 0; k < n; k++) {
      const t = first + Math.floor((span * (k + 1)) / n);
      // an instant's view is kept from its second ask
      await positionsAt(model, wallet, t);
      await positionsAt(model, wallet, t);
      // a whole-world route makes the full view at its instant
      if (k % 2 === 0) model.at(t).vaultList({ includeHidden: true, after: null, limit: 1000 });
    }
    const s = model.pastStats();
    // past the bound the oldest 1/32 go at once
    expect(s.views).toBeLessThanOrEqual(PAST_VIEWS_KEPT);
    expect(s.views).toBeGreaterThanOrEqual(PAST_VIEWS_KEPT - PAST_VIEWS_KEPT / 32);
    expect(s.fullViews).toBe(FULL_VIEWS_KEPT);
    const x = snapshot.world.walletIndex;
    const k = snapshot.world.events.dict.wallets.find(wallet);
    const positions = x.walletPosStart[k + 1]! - x.walletPosStart[k]!;
    // one timeline per position: a state per row of the wallet's positions at most
    const rows = [...x.walletPos.subarray(x.walletPosStart[k]!, x.walletPosStart[k + 1]!)].reduce((n, p) => n + x.rowStart[p + 1]! - x.rowStart[p]!, 0);
    expect(positions).toBeGreaterThan(0);
    expect(s.states).toBeGreaterThan(0);
    expect(s.states).toBeLessThanOrEqual(rows);
    // a position is replayed when first asked (one not listed at the first instants, later)
    expect(s.tasks).toBeLessThanOrEqual(positions);
    // a view whose full view was released makes it again, with the same answers
    const t = first + Math.floor(span / n);
    const again = model.at(t).vaultList({ includeHidden: true, after: null, limit: 1000 });
    expect('page' in again && again.page.prefix.toString()).toBe(snapshotAt(snapshot, t).pages.get('/v1/vaults?include_hidden=true')!.prefix.toString());
  });

  it('a bounded cache drops past its entries or bytes the oldest not used since put (second chance), and says which', () => {
    const dropped: string[] = [];
    const told = new Map<string, number>();
    const c = createBoundedCache<string, number>({
      entries: 3,
      bytes: 100,
      evicted: (k, v) => {
        dropped.push(k);
        told.set(k, v);
      },
    });
    c.set('a', 1, 10);
    c.set('b', 2, 10);
    c.set('c', 3, 10);
    expect(c.get('a')).toBe(1); // a is used: it goes to the back once instead of out
    c.set('d', 4, 10);
    expect(dropped).toEqual(['b']);
    expect(c.size).toBe(3);
    c.set('e', 5, 85); // past the bytes: the oldest unused go until it fits (a's second chance was spent)
    expect(dropped).toEqual(['b', 'c', 'd']);
    expect([c.size, c.bytes, c.get('a')]).toEqual([2, 95, 1]);
    // a value replaced under its key keeps its place and counts its new bytes
    c.set('e', 6, 50);
    expect([c.size, c.bytes, c.get('e'), dropped.length]).toEqual([2, 60, 6, 3]);
    c.set('f', 6, 101); // bigger than the whole budget: not kept, nothing dropped for it
    expect([c.size, c.get('f'), c.has('f'), dropped.length]).toEqual([2, undefined, false, 3]);
    // a kept value replaced by one past the whole budget: neither is kept, and its holder is told
    c.set('e', 7, 101);
    expect([c.size, c.bytes, c.has('e'), dropped, told.get('e')]).toEqual([1, 10, false, ['b', 'c', 'd', 'e'], 6]);
    c.set('g', 8, 20);
    c.clear(); // every entry goes, each told of
    expect([c.size, c.bytes, dropped.slice(4)]).toEqual([0, 0, ['a', 'g']]);
    // a bigger one evicts the oldest 1/32 at once when full
    const big = createBoundedCache<number, number>({ entries: 64 });
    for (let k = 0; k < 65; k++) big.set(k, k);
    expect([big.size, big.get(2), big.get(3)]).toEqual([62, undefined, 3]);
  });
});
