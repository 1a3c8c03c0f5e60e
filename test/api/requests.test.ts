// Async request state (DESIGN §11.8) against `vaultd serve` on the pinned demo world: every
// request agrees with the wallet's activity rows (its pending row, the row that settled or
// refunded it), filters and cursor paging, and requests unresolved past their deadline are
// `expired` and `refundable`. Every body is checked against /openapi.json by the harness.
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { useServer } from './server.js';

interface Point {
  timestamp: string;
  block_number: number;
  tx_hash: string;
}
interface Req {
  request_hash: string;
  vault_id: string;
  type: 'deposit' | 'redeem';
  status: 'pending' | 'settled' | 'refunded' | 'expired';
  requested: Point;
  resolved: Point | null;
  amount: string;
  deadline: string | null;
  solver_tip: string | null;
  age_seconds: number;
  refundable: boolean;
}
interface Row {
  type: string;
  vault_id: string;
  block_timestamp: number;
  block_number: number;
  tx_hash: string;
  request_hash: string | null;
  shares_delta: string;
  assets_delta: { native: string };
}

const ctx = useServer('requests');
const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
const secs = (t: string) => Date.parse(t) / 1000;

/** Every page of a wallet route, following next_cursor. */
async function walk<T>(path: string, limit: number): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let next: string | null = null;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const body: { data: unknown[]; meta: { count: number; next_cursor: string | null } } = await ctx.api.ok(
      `${path}${sep}limit=${limit}${next ? `&next=${encodeURIComponent(next)}` : ''}`,
    );
    items.push(...(body.data as T[]));
    expect(body.meta.count).toBe(body.data.length);
    next = body.meta.next_cursor;
    pages++;
  } while (next !== null);
  return { items, pages };
}

/** Wallets with requests (the first dozen, and every one with an expired request), each one's requests and activity (include_hidden: every vault it may see). */
const wallets: { wallet: string; requests: Req[]; activity: Row[] }[] = [];
let dataEnd = 0;
beforeAll(async () => {
  for (const wallet of ctx.world.wallets) {
    const requests = (await walk<Req>(`/v1/users/${wallet}/requests?include_hidden=true`, 1000)).items;
    if (requests.length === 0 || (wallets.length >= 12 && !requests.some((q) => q.status === 'expired'))) continue;
    const activity = (await walk<Row>(`/v1/users/${wallet}/activity?include_hidden=true&order=asc`, 1000)).items;
    wallets.push({ wallet, requests, activity });
  }
  dataEnd = Math.max(...wallets.flatMap((w) => w.activity.map((r) => r.block_timestamp)));
});

describe('/v1/users/{wallet}/requests', () => {
  it('each request is the pending row of its hash, resolved by the row that settled or refunded it', () => {
    expect(wallets.length).toBeGreaterThan(3);
    for (const { requests, activity } of wallets) {
      const pendings = activity.filter((r) => r.type === 'deposit_pending' || r.type === 'withdraw_pending');
      expect(requests.map((q) => q.request_hash).sort()).toEqual(pendings.map((r) => r.request_hash!).sort());
      for (const q of requests) {
        const open = pendings.find((r) => r.request_hash === q.request_hash)!;
        const end = activity.find((r) => r.request_hash === q.request_hash && r !== open);
        expect(q.vault_id).toBe(open.vault_id);
        expect(q.type).toBe(open.type === 'deposit_pending' ? 'deposit' : 'redeem');
        expect(q.requested).toEqual({ timestamp: iso(open.block_timestamp), block_number: open.block_number, tx_hash: open.tx_hash });
        // assets for a deposit (the pending row's assets_delta), shares for a redeem (−shares_delta)
        expect(q.amount).toBe(q.type === 'deposit' ? open.assets_delta.native : open.shares_delta.replace(/^-/, ''));
        if (!end) {
          expect(q.resolved).toBeNull();
          expect(['pending', 'expired']).toContain(q.status);
          continue;
        }
        expect(q.status).toBe(end.type.endsWith('_refunded') ? 'refunded' : 'settled');
        expect(q.resolved).toEqual({ timestamp: iso(end.block_timestamp), block_number: end.block_number, tx_hash: end.tx_hash });
        expect(q.age_seconds).toBe(end.block_timestamp - open.block_timestamp);
        expect(q.refundable).toBe(false);
      }
    }
  });

  it('the demo gives every request a deadline and a tip: settled ones by their deadline, refunded ones after it', () => {
    const all = wallets.flatMap((w) => w.requests);
    for (const q of all) {
      expect(q.deadline).not.toBeNull();
      expect(q.solver_tip).not.toBeNull();
      expect(secs(q.deadline!)).toBeGreaterThan(secs(q.requested.timestamp));
      if (q.status === 'settled') expect(secs(q.resolved!.timestamp)).toBeLessThanOrEqual(secs(q.deadline!));
      if (q.status === 'refunded') expect(secs(q.resolved!.timestamp)).toBeGreaterThan(secs(q.deadline!));
    }
    expect(new Set(all.map((q) => q.status))).toEqual(new Set(['settled', 'refunded', 'expired', 'pending']));
  });

  it('unresolved requests past their deadline are expired and refundable; the others pending', () => {
    const open = wallets.flatMap((w) => w.requests).filter((q) => q.resolved === null);
    const expired = open.filter((q) => q.status === 'expired');
    expect(expired.length).toBeGreaterThan(0);
    for (const q of open) {
      // "now" is the data time: the newest row of the world
      const past = secs(q.deadline!) < secs(q.requested.timestamp) + q.age_seconds;
      expect(q.status).toBe(past ? 'expired' : 'pending');
      expect(q.refundable).toBe(past);
      expect(secs(q.requested.timestamp) + q.age_seconds).toBeGreaterThanOrEqual(dataEnd);
    }
  });

  it('status and vault_id filter the same list; newest request first', async () => {
    for (const { wallet, requests } of wallets.slice(0, 6)) {
      const times = requests.map((q) => secs(q.requested.timestamp));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      for (const status of ['pending', 'settled', 'refunded', 'expired'] as const) {
        const got = (await walk<Req>(`/v1/users/${wallet}/requests?include_hidden=true&status=${status}`, 1000)).items;
        expect(got).toEqual(requests.filter((q) => q.status === status));
      }
      const vault = requests[0]!.vault_id;
      const one = (await walk<Req>(`/v1/users/${wallet}/requests?vault_id=${vault}`, 1000)).items;
      expect(one).toEqual(requests.filter((q) => q.vault_id === vault));
    }
  });

  it('pages of any size walk the same list', async () => {
    const { wallet, requests } = wallets.reduce((a, b) => (b.requests.length > a.requests.length ? b : a));
    expect(requests.length).toBeGreaterThan(3);
    for (const limit of [1, 3]) {
      const { items, pages } = await walk<Req>(`/v1/users/${wallet}/requests?include_hidden=true`, limit);
      expect(items).toEqual(requests);
      expect(pages).toBe(Math.ceil(requests.length / limit));
    }
  });

  it('as_of answers the requests known then, aged to the newest data at or before that instant', async () => {
    const { wallet, requests } = wallets[0]!;
    const settled = requests.find((q) => q.status === 'settled')!;
    const at = secs(settled.resolved!.timestamp) - 1;
    const past = (await walk<Req>(`/v1/users/${wallet}/requests?include_hidden=true&as_of=${iso(at)}`, 1000)).items;
    expect(past.map((q) => q.request_hash)).toEqual(requests.filter((q) => secs(q.requested.timestamp) <= at).map((q) => q.request_hash));
    const then = past.find((q) => q.request_hash === settled.request_hash)!;
    expect(then.resolved).toBeNull();
    expect(then.status).toBe('pending');
    // unresolved, it ages to the newest data known at the instant (what the world built to it says): within the hour before it
    const behind = at - secs(settled.requested.timestamp) - then.age_seconds;
    expect(behind).toBeGreaterThanOrEqual(0);
    expect(behind).toBeLessThan(3600);
  });

  it('errors: an unknown status is 422; an unknown wallet has no requests', async () => {
    await ctx.api.fails(`/v1/users/${wallets[0]!.wallet}/requests?status=done`, 422, 'INVALID_PARAMETER');
    const body = await ctx.api.ok('/v1/users/0x00000000000000000000000000000000000000aa/requests');
    expect(body.data).toEqual([]);
  });

  it('the SDK: client.requests pages with status and vaultId, client.iterate.requests walks them all', async () => {
    const client = createClient({ baseUrl: ctx.server.base });
    const { wallet, requests } = wallets.reduce((a, b) => (b.requests.length > a.requests.length ? b : a));
    const all = [];
    for await (const q of client.iterate.requests(wallet, { includeHidden: true, limit: 2 })) all.push(q);
    expect(all).toEqual(requests);
    const vault = requests[0]!.vault_id;
    const page = await client.requests(wallet, { status: 'settled', vaultId: vault, limit: 1000 });
    expect(page.data).toEqual(requests.filter((q) => q.status === 'settled' && q.vault_id === vault));
  });
});
