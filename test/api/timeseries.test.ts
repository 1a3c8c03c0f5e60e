// Vault and position timeseries (DESIGN §4.3, §4.4, §4.8): granularity grids, inclusive
// windows echoed in meta, as-of points, order, and the 404/422 answers.
import { beforeAll, describe, expect, it } from 'vitest';
import { idsOf, NOW, UNKNOWN_WALLET, useServer } from './server.js';
import { walletFacts, type WalletFacts } from './walletFacts.js';

const ctx = useServer('timeseries');
const DAY = 86_400;
const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
const secs = (t: string) => Date.parse(t) / 1000;
type Point = { timestamp: string; [k: string]: unknown };
const stamps = (data: Point[]) => data.map((p) => p.timestamp);

let vault: string; // a visible vault with the whole 200-day history
let facts: WalletFacts;

beforeAll(async () => {
  for (const id of idsOf(ctx.world, 'visible')) {
    const { meta } = await ctx.api.ok(`/v1/vaults/${id}/timeseries?limit=1`);
    if (meta.start !== null && secs(meta.start) <= secs('2026-01-01T00:00:00Z')) {
      vault = id;
      break;
    }
  }
  facts = await walletFacts(ctx.api, ctx.world);
});

const series = (query: string) => ctx.api.ok(`/v1/vaults/${vault}/timeseries?${query}`);

describe('vault timeseries', () => {
  it('day is the default: one point per day at 00:00Z, ascending, up to the latest snapshot', async () => {
    const { data, meta } = await series('');
    expect(data.length).toBeGreaterThan(100);
    for (const [i, p] of data.entries()) {
      expect(p.timestamp).toMatch(/T00:00:00Z$/);
      if (i > 0) expect(secs(p.timestamp) - secs(data[i - 1].timestamp)).toBe(DAY);
    }
    expect(meta).toMatchObject({ count: data.length, limit: 1000, next_cursor: null, end: NOW });
    expect(secs(meta.start)).toBeLessThanOrEqual(secs(data[0].timestamp));
    expect(secs(data[0].timestamp) - secs(meta.start)).toBeLessThan(DAY);
  });

  it("the latest point equals the vault's current metrics (as-of, never an average)", async () => {
    const { data } = await series('order=desc&limit=1');
    const { metrics } = (await ctx.api.ok(`/v1/vaults/${vault}`)).data;
    expect(data[0].timestamp).toBe(iso(metrics.as_of));
    const { timestamp: _t, ...point } = data[0];
    expect(point).toEqual({
      total_supply: metrics.total_supply,
      tvl: metrics.tvl,
      unit_price: metrics.unit_price,
      apy_7d: metrics.apy_7d,
      apy_30d: metrics.apy_30d,
      apy_90d: metrics.apy_90d,
    });
  });

  it('a day point is the hourly snapshot at that instant', async () => {
    const day = (await series('start=2026-03-03&end=2026-03-03')).data;
    const hour = (await series('granularity=hour&start=2026-03-03T00:00:00Z&end=2026-03-03T00:00:00Z')).data;
    expect(day).toHaveLength(1);
    expect(hour).toEqual(day);
  });

  it('hour: the raw hourly cadence inside the window', async () => {
    const { data, meta } = await series('granularity=hour&start=2026-03-02T05:30:00Z&end=2026-03-02T12:00:00Z');
    expect(stamps(data)).toEqual([6, 7, 8, 9, 10, 11, 12].map((h) => `2026-03-02T${String(h).padStart(2, '0')}:00:00Z`));
    expect([meta.start, meta.end]).toEqual(['2026-03-02T05:30:00Z', '2026-03-02T12:00:00Z']);
  });

  it('week: Mondays 00:00Z; month: the 1st 00:00Z', async () => {
    const weeks = (await series('granularity=week')).data;
    expect(weeks.length).toBeGreaterThan(20);
    for (const p of weeks) {
      expect(new Date(p.timestamp).getUTCDay()).toBe(1);
      expect(p.timestamp).toMatch(/T00:00:00Z$/);
    }
    const months = (await series('granularity=month')).data;
    expect(months.length).toBeGreaterThanOrEqual(6);
    for (const p of months) expect(p.timestamp).toMatch(/^\d{4}-\d{2}-01T00:00:00Z$/);
    expect(months.at(-1).timestamp).toBe('2026-06-01T00:00:00Z');
  });

  it('window: start and end inclusive; date-only and date-time give the same page; meta echoes them', async () => {
    const dateOnly = await series('start=2026-03-02&end=2026-03-09');
    const dateTime = await series('start=2026-03-02T00:00:00Z&end=2026-03-09T00:00:00Z');
    const expected = Array.from({ length: 8 }, (_, i) => iso(secs('2026-03-02T00:00:00Z') + i * DAY));
    expect(stamps(dateOnly.data)).toEqual(expected);
    expect(dateTime.data).toEqual(dateOnly.data);
    for (const { meta } of [dateOnly, dateTime]) expect([meta.start, meta.end]).toEqual(['2026-03-02T00:00:00Z', '2026-03-09T00:00:00Z']);
  });

  it('window: a 05:30 start stays 05:30 in meta; an offset is converted to Z', async () => {
    const a = await series('start=2026-03-02T05:30:00Z&end=2026-03-09');
    expect(a.meta.start).toBe('2026-03-02T05:30:00Z');
    expect(a.data[0].timestamp).toBe('2026-03-03T00:00:00Z');
    const b = await series(`start=${encodeURIComponent('2026-03-02T07:30:00+02:00')}&end=2026-03-09`);
    expect(b.meta.start).toBe('2026-03-02T05:30:00Z');
    expect(b.data).toEqual(a.data);
  });

  it('window: no grid instant inside gives an empty page with the window echoed', async () => {
    const { data, meta } = await series('start=2026-03-02T05:30:00Z&end=2026-03-02T23:00:00Z');
    expect(data).toEqual([]);
    expect(meta).toMatchObject({ count: 0, next_cursor: null, start: '2026-03-02T05:30:00Z', end: '2026-03-02T23:00:00Z' });
  });

  it('desc: newest first, the same points as asc', async () => {
    for (const granularity of ['hour', 'day', 'week', 'month']) {
      const window = granularity === 'hour' ? '&start=2026-05-20&end=2026-05-22' : '';
      const asc = (await series(`granularity=${granularity}${window}`)).data;
      const desc = (await series(`granularity=${granularity}${window}&order=desc`)).data;
      expect(desc).toEqual([...asc].reverse());
      expect(asc.length).toBeGreaterThan(1);
    }
  });

  it('error: start after end, bad dates and bad enums are 422 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['start=2026-03-09&end=2026-03-02', 'start'],
      ['start=2026-03-02T00:00:01Z&end=2026-03-02', 'start'],
      ['start=yesterday', 'start'],
      ['end=2026-02-30', 'end'],
      ['start=2026-03-02T24:00:00Z', 'start'],
      ['granularity=minute', 'granularity'],
      ['order=up', 'order'],
      ['limit=10001', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=1&limit=2', 'limit'],
    ];
    for (const [query, parameter] of cases) {
      const err = await ctx.api.fails(`/v1/vaults/${vault}/timeseries?${query}`, 422, 'INVALID_PARAMETER');
      expect(err.details, query).toEqual({ parameter });
    }
    const err = await ctx.api.fails(`/v1/vaults/${vault}/timeseries?start=2026-03-09&end=2026-03-02`, 422, 'INVALID_PARAMETER');
    expect(err.message).toBe('invalid parameter "start": must not be after end (2026-03-09T00:00:00Z > 2026-03-02T00:00:00Z)');
  });

  it('a hidden vault has a timeseries; a disabled one does not', async () => {
    const hidden = idsOf(ctx.world, 'hidden')[0]!;
    expect((await ctx.api.ok(`/v1/vaults/${hidden}/timeseries?limit=3`)).data).toHaveLength(3);
    await ctx.api.fails(`/v1/vaults/${idsOf(ctx.world, 'disabled')[0]}/timeseries`, 404, 'NOT_FOUND');
  });
});

describe('position timeseries', () => {
  const path = (wallet: string, vaultId: string, query = '') => `/v1/users/${wallet}/positions/${vaultId}/timeseries${query}`;
  const firstRow = (wallet: string, vaultId: string) =>
    Math.min(
      ...facts.activity
        .get(wallet)!
        .filter((r) => r.vault_id === vaultId)
        .map((r) => r.block_timestamp),
    );

  it('an open position: daily points from its first row to now, the last one equal to the position', async () => {
    const { wallet, vault_id } = facts.open[0]!;
    const { data, meta } = await ctx.api.ok(path(wallet, vault_id));
    const start = Math.ceil(firstRow(wallet, vault_id) / DAY) * DAY;
    expect(meta).toMatchObject({ start: iso(start), end: NOW, count: data.length, next_cursor: null });
    expect(data[0].timestamp).toBe(iso(start));
    expect(data.at(-1).timestamp).toBe(NOW);
    for (const p of data) expect(p.timestamp).toMatch(/T00:00:00Z$/);
    const position = (await ctx.api.ok(`/v1/users/${wallet}/positions/${vault_id}`)).data.metrics;
    const last = data.at(-1);
    expect({ shares_owned: last.shares_owned, value: last.value, cost_basis: last.cost_basis, pnl: last.pnl }).toEqual({
      shares_owned: position.shares_owned,
      value: position.value,
      cost_basis: position.cost_basis,
      pnl: position.pnl,
    });
  });

  it('granularities, desc order and windows work as on vaults', async () => {
    const { wallet, vault_id } = facts.open[0]!;
    const weeks = (await ctx.api.ok(path(wallet, vault_id, '?granularity=week'))).data;
    for (const p of weeks) expect(new Date(p.timestamp).getUTCDay()).toBe(1);
    const desc = (await ctx.api.ok(path(wallet, vault_id, '?granularity=week&order=desc'))).data;
    expect(desc).toEqual([...weeks].reverse());
    const { data, meta } = await ctx.api.ok(path(wallet, vault_id, '?granularity=hour&start=2026-05-31T05:30:00Z&end=2026-05-31T08:00:00Z'));
    expect(stamps(data)).toEqual(['2026-05-31T06:00:00Z', '2026-05-31T07:00:00Z', '2026-05-31T08:00:00Z']);
    expect(meta.start).toBe('2026-05-31T05:30:00Z');
  });

  it('an exited position still has its history', async () => {
    // one that held shares for more than a day, so a daily point shows them
    const { wallet, vault_id } = facts.exited.find(({ wallet, vault_id }) => {
      const rows = facts.activity.get(wallet)!.filter((r) => r.vault_id === vault_id);
      const times = rows.map((r) => r.block_timestamp);
      return rows.some((r) => r.type === 'deposit') && Math.max(...times) - Math.min(...times) > 3 * DAY;
    })!;
    await ctx.api.fails(`/v1/users/${wallet}/positions/${vault_id}`, 404, 'NOT_FOUND');
    const { data } = await ctx.api.ok(path(wallet, vault_id));
    expect(data.length).toBeGreaterThan(0);
    expect(data.some((p: { shares_owned: string }) => p.shares_owned !== '0')).toBe(true);
    const latest = (await ctx.api.ok(path(wallet, vault_id, '?granularity=hour&order=desc&limit=1'))).data;
    expect(latest[0]).toMatchObject({ timestamp: NOW, shares_owned: '0', value: { native: '0' } });
  });

  it('error: never touched, unknown wallet and disabled vault are 404; bad input 422', async () => {
    const { wallet, vault_id } = facts.untouched[0]!;
    await ctx.api.fails(path(wallet, vault_id), 404, 'NOT_FOUND');
    await ctx.api.fails(path(UNKNOWN_WALLET, vault_id), 404, 'NOT_FOUND');
    await ctx.api.fails(path(ctx.world.disabledWallet, idsOf(ctx.world, 'disabled')[0]!), 404, 'NOT_FOUND');
    const open = facts.open[0]!;
    expect((await ctx.api.fails(path(open.wallet, open.vault_id, '?start=2026-05-02&end=2026-05-01'), 422, 'INVALID_PARAMETER')).details).toEqual({
      parameter: 'start',
    });
    expect((await ctx.api.fails(path('0x1234', open.vault_id), 422, 'INVALID_PARAMETER')).details).toEqual({ parameter: 'wallet_address' });
    expect((await ctx.api.fails(path(open.wallet, '1:0xzz'), 422, 'INVALID_PARAMETER')).details).toEqual({ parameter: 'vault_id' });
  });
});
