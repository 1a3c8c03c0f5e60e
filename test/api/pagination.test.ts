// Cursor pagination (DESIGN §5.4, §4.8): small pages in both orders concatenate to the one big
// page with no duplicates, the page size may change mid-way, and a cursor is bound to its
// route, path parameters, filters and order.
import { beforeAll, describe, expect, it } from 'vitest';
import { idsOf, useServer } from './server.js';
import { walletFacts, type WalletFacts } from './walletFacts.js';

const ctx = useServer('pagination');
let facts: WalletFacts;
let vault: string;
let richWallet: string; // the wallet with the most positions
beforeAll(async () => {
  facts = await walletFacts(ctx.api, ctx.world);
  vault = idsOf(ctx.world, 'visible').find((id) => facts.open.some((p) => p.vault_id === id))!;
  const counts = new Map<string, number>();
  for (const p of facts.open) counts.set(p.wallet, (counts.get(p.wallet) ?? 0) + 1);
  richWallet = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
});

interface Walk {
  items: any[];
  pages: number;
}

/** Follow next_cursor from `path` (which has a query) with the page sizes in `limits` (the last repeats). */
async function walk(path: string, limits: number[]): Promise<Walk> {
  const items: any[] = [];
  let next: string | null = null;
  let pages = 0;
  do {
    const limit = limits[Math.min(pages, limits.length - 1)]!;
    const sep = path.includes('?') ? '&' : '?';
    const body: any = await ctx.api.ok(`${path}${sep}limit=${limit}${next === null ? '' : `&next=${encodeURIComponent(next)}`}`);
    expect(body.meta.count).toBe(body.data.length);
    expect(body.meta.limit).toBe(limit);
    if (body.meta.next_cursor !== null) expect(body.data).toHaveLength(limit);
    items.push(...body.data);
    next = body.meta.next_cursor;
    pages++;
    if (pages > 2000) throw new Error(`${path}: no end of pages`);
  } while (next !== null);
  return { items, pages };
}

/** One page with the route's biggest limit, which must hold everything. */
async function whole(path: string, max: number): Promise<any[]> {
  const sep = path.includes('?') ? '&' : '?';
  const body = await ctx.api.ok(`${path}${sep}limit=${max}`);
  expect(body.meta.next_cursor).toBeNull();
  return body.data;
}

async function expectComplete(path: string, max: number, limits: number[], key: (x: any) => string, minPages = 3) {
  const all = await whole(path, max);
  const { items, pages } = await walk(path, limits);
  expect(items).toEqual(all);
  expect(new Set(items.map(key)).size).toBe(items.length);
  expect(pages).toBeGreaterThanOrEqual(minPages);
}

/** The first page's cursor of `path`. */
async function cursorOf(path: string): Promise<string> {
  const body = await ctx.api.ok(path);
  expect(body.meta.next_cursor).not.toBeNull();
  return body.meta.next_cursor;
}

describe('pages concatenate to the whole list', () => {
  const ts = (p: { timestamp: string }) => p.timestamp;

  it('vault timeseries, limit 7, both orders and every granularity', async () => {
    for (const order of ['asc', 'desc']) {
      await expectComplete(`/v1/vaults/${vault}/timeseries?order=${order}`, 10000, [7], ts, 10);
      await expectComplete(`/v1/vaults/${vault}/timeseries?order=${order}&granularity=week`, 10000, [7], ts);
      await expectComplete(`/v1/vaults/${vault}/timeseries?order=${order}&granularity=hour&start=2026-05-20T05:30:00Z&end=2026-05-22`, 10000, [7], ts);
    }
  });

  it('position timeseries, limit 7, both orders', async () => {
    const { wallet, vault_id } = facts.open[0]!;
    for (const order of ['asc', 'desc']) {
      await expectComplete(`/v1/users/${wallet}/positions/${vault_id}/timeseries?order=${order}`, 10000, [7], ts);
    }
  });

  it('positions, limit 1, with and without hidden vaults', async () => {
    for (const query of ['', '?include_hidden=true']) {
      await expectComplete(`/v1/users/${richWallet}/positions${query}`, 500, [1], (p) => p.vault_id);
    }
  });

  it('activity, limit 3, both orders, wallet-wide and filtered', async () => {
    const wallet = ctx.world.wallets[0]!;
    const vaultId = facts.activity.get(wallet)![0]!.vault_id;
    for (const order of ['asc', 'desc']) {
      await expectComplete(`/v1/users/${wallet}/activity?order=${order}&include_hidden=true`, 1000, [3], (r) => r.id, 10);
      await expectComplete(`/v1/users/${wallet}/activity?order=${order}&vault_id=${vaultId}`, 1000, [3], (r) => r.id);
    }
  });

  it('vault list, limit 2, with and without hidden vaults', async () => {
    for (const query of ['', '?include_hidden=true']) {
      await expectComplete(`/v1/vaults${query}`, 1000, [2], (v) => v.vault_id, 5);
    }
  });

  it('the page size may change mid-way', async () => {
    const { wallet, vault_id } = facts.open[0]!;
    const cases: [string, number, number[], (x: any) => string][] = [
      [`/v1/vaults?include_hidden=true`, 1000, [2, 5, 1, 3], (v) => v.vault_id],
      [`/v1/vaults/${vault}/timeseries?order=desc`, 10000, [7, 30, 1, 50], ts],
      [`/v1/users/${wallet}/positions/${vault_id}/timeseries`, 10000, [7, 20], ts],
      [`/v1/users/${ctx.world.wallets[0]}/activity?order=asc`, 1000, [3, 10, 1, 25], (r) => r.id],
      [`/v1/users/${richWallet}/positions?include_hidden=true`, 500, [1, 2], (p) => p.vault_id],
    ];
    for (const [path, max, limits, key] of cases) await expectComplete(path, max, limits, key, 2);
  });
});

describe('error: a cursor is bound to its route, parameters and order (422 INVALID_CURSOR)', () => {
  const invalidCursor = async (path: string) => {
    const err = await ctx.api.fails(path, 422, 'INVALID_CURSOR');
    expect(err.details).toEqual({ parameter: 'next' });
  };

  it('tampered or made-up cursors', async () => {
    const cursor = await cursorOf(`/v1/vaults/${vault}/timeseries?limit=7`);
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    for (const bad of [
      flip(cursor, 5),
      flip(cursor, cursor.length - 1),
      flip(cursor, Math.floor(cursor.length / 2)),
      cursor.slice(0, -2),
      `${cursor}A`,
      'abc',
      '!!!!',
      'x'.repeat(2000),
    ]) {
      await invalidCursor(`/v1/vaults/${vault}/timeseries?limit=7&next=${encodeURIComponent(bad)}`);
    }
  });

  it('used with the other order', async () => {
    const ts = await cursorOf(`/v1/vaults/${vault}/timeseries?limit=7`);
    await invalidCursor(`/v1/vaults/${vault}/timeseries?limit=7&order=desc&next=${ts}`);
    const err = await ctx.api.fails(`/v1/vaults/${vault}/timeseries?order=desc&next=${ts}`, 422, 'INVALID_CURSOR');
    expect(err.message).toBe(`next ${JSON.stringify(`${ts.slice(0, 24)}…`)} was issued for order=asc, not order=desc`);
    const wallet = ctx.world.wallets[0]!;
    const act = await cursorOf(`/v1/users/${wallet}/activity?limit=3&order=desc`);
    await invalidCursor(`/v1/users/${wallet}/activity?limit=3&order=asc&next=${act}`);
  });

  it('used with other filters', async () => {
    const ts = await cursorOf(`/v1/vaults/${vault}/timeseries?limit=7`);
    await invalidCursor(`/v1/vaults/${vault}/timeseries?limit=7&granularity=week&next=${ts}`);
    await invalidCursor(`/v1/vaults/${vault}/timeseries?limit=7&start=2026-01-01&next=${ts}`);
    const list = await cursorOf('/v1/vaults?limit=2');
    await invalidCursor(`/v1/vaults?limit=2&include_hidden=true&next=${list}`);
    const wallet = ctx.world.wallets[0]!;
    const act = await cursorOf(`/v1/users/${wallet}/activity?limit=3`);
    await invalidCursor(`/v1/users/${wallet}/activity?limit=3&include_hidden=true&next=${act}`);
    await invalidCursor(`/v1/users/${wallet}/activity?limit=3&vault_id=${facts.activity.get(wallet)![0]!.vault_id}&next=${act}`);
    const pos = await cursorOf(`/v1/users/${richWallet}/positions?limit=1`);
    await invalidCursor(`/v1/users/${richWallet}/positions?limit=1&include_hidden=true&next=${pos}`);
  });

  it('used on another route or another vault', async () => {
    const list = await cursorOf('/v1/vaults?limit=2');
    await invalidCursor(`/v1/users/${richWallet}/positions?limit=1&next=${list}`);
    await invalidCursor(`/v1/vaults/${vault}/timeseries?limit=7&next=${list}`);
    const ts = await cursorOf(`/v1/vaults/${vault}/timeseries?limit=7`);
    const other = idsOf(ctx.world, 'visible').find((id) => id !== vault)!;
    await invalidCursor(`/v1/vaults/${other}/timeseries?limit=7&next=${ts}`);
    const { wallet, vault_id } = facts.open.find((p) => p.vault_id === vault)!;
    await invalidCursor(`/v1/users/${wallet}/positions/${vault_id}/timeseries?limit=7&next=${ts}`);
    const act = await cursorOf(`/v1/users/${wallet}/activity?limit=3`);
    await invalidCursor(`/v1/vaults?limit=2&next=${act}`);
  });

  it('used for another wallet', async () => {
    const [a, b] = ctx.world.wallets;
    const act = await cursorOf(`/v1/users/${a}/activity?limit=3`);
    await invalidCursor(`/v1/users/${b}/activity?limit=3&next=${act}`);
    const other = ctx.world.wallets.find((w) => w !== richWallet)!;
    const pos = await cursorOf(`/v1/users/${richWallet}/positions?limit=1`);
    await invalidCursor(`/v1/users/${other}/positions?limit=1&next=${pos}`);
    const shared = facts.open.find((p) => p.wallet !== facts.open[0]!.wallet && p.vault_id === facts.open[0]!.vault_id);
    if (shared) {
      const first = facts.open[0]!;
      const ts = await cursorOf(`/v1/users/${first.wallet}/positions/${first.vault_id}/timeseries?limit=7`);
      await invalidCursor(`/v1/users/${shared.wallet}/positions/${shared.vault_id}/timeseries?limit=7&next=${ts}`);
    }
  });

  it('an empty next is a bad parameter', async () => {
    const err = await ctx.api.fails('/v1/vaults?next=', 422, 'INVALID_PARAMETER');
    expect(err.details).toEqual({ parameter: 'next' });
  });
});
