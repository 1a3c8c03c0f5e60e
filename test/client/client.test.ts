// The client SDK (vaultd/client, as built) against a real `vaultd serve` on the demo world:
// every method, every iterator to the end, exact amounts over every response, the flow and
// position-history helpers against the server's positions for every wallet, waitForSettlement,
// the ETag cache, abort, and the typed errors vaultd can be made to emit.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  activityFlows,
  createClient,
  fromBaseUnits,
  positionHistory,
  toBaseUnits,
  VaultdApiError,
  type ActivityRow,
  type Flow,
  type Position,
  type VaultdClient,
} from 'vaultd/client';
import { PROJECT_ROOT } from '../../common/version.js';
import { createResponseValidator } from '../../server/schemas/validateResponse.js';
import { copyDb, idsOf, NOW, useServer, UNKNOWN_WALLET } from '../api/server.js';
import { vaultd } from '../helpers/cli.js';

const ctx = useServer('client');
const validator = createResponseValidator();
let client: VaultdClient;

/** Every body the tests received, with the numeraire decimals of its context when known. */
const seen: { op: string; body: unknown; decimals?: number }[] = [];

function valid<T>(op: string, body: T, decimals?: number): T {
  const errors = validator.validate(op, 200, body);
  if (errors.length > 0) throw new Error(`${op}: the body does not match /openapi.json:\n  ${errors.slice(0, 5).join('\n  ')}`);
  seen.push({ op, body, decimals });
  return body;
}

/** The body without its per-request fields, to compare a client answer with a raw one. */
function stable(body: any): any {
  if (body?.meta) return { ...body, meta: { ...body.meta, request_id: undefined } };
  if (body && 'uptime_seconds' in body) return { ...body, uptime_seconds: undefined };
  return body;
}

beforeAll(() => {
  client = createClient({ baseUrl: ctx.server.base });
});

describe('client: one method per route, typed bodies equal to the raw answers', () => {
  it('health, chains, vaults, featured, strategies, tvl', async () => {
    const health = valid('getHealth', await client.health());
    expect(health.status).toMatch(/^(ok|degraded)$/);
    expect(stable(health)).toEqual(stable(await ctx.api.ok('/health')));
    // lag_seconds is counted from the second each answer is made: the second answer's may be
    // larger by the whole seconds between the two calls (one or two more on a loaded machine)
    const before = Date.now();
    const chains = valid('listChainHealth', await client.chains());
    const raw = (await ctx.api.ok('/health/chains')) as typeof chains;
    const apart = Math.ceil((Date.now() - before) / 1000);
    expect(chains.map((c) => ({ ...c, lag_seconds: null }))).toEqual(raw.map((c) => ({ ...c, lag_seconds: null })));
    chains.forEach((c, k) => {
      if (c.lag_seconds === null) expect(raw[k]!.lag_seconds).toBeNull();
      else {
        expect(raw[k]!.lag_seconds! - c.lag_seconds).toBeGreaterThanOrEqual(0);
        expect(raw[k]!.lag_seconds! - c.lag_seconds).toBeLessThanOrEqual(apart);
      }
    });
    for (const [op, body, raw] of [
      ['listVaults', await client.vaults(), '/v1/vaults'],
      ['listVaults', await client.vaults({ includeHidden: true, limit: 5 }), '/v1/vaults?include_hidden=true&limit=5'],
      ['listFeaturedVaults', await client.featured(), '/v1/vaults/featured'],
      ['listStrategies', await client.strategies(), '/v1/strategies'],
      ['getTvl', await client.tvl(), '/v1/tvl'],
      ['getTvl', await client.tvl({ includeBreakdown: true }), '/v1/tvl?include_breakdown=true'],
    ] as const) {
      valid(op, body);
      expect(stable(body), raw).toEqual(stable(await ctx.api.ok(raw)));
    }
    expect((await client.tvl({ includeBreakdown: true })).data.breakdown!.length).toBeGreaterThan(0);
  });

  it('vaultsBySlug, vault, definition, allocations, timeseries for every enabled vault', async () => {
    const enabled = ctx.world.vaults.filter((v) => v.visibility !== 'disabled');
    for (const v of enabled) {
      const vault = valid('getVault', await client.vault(v.vault_id), v.decimals);
      expect(vault.data.vault_id).toBe(v.vault_id);
      expect(stable(vault)).toEqual(stable(await ctx.api.ok(`/v1/vaults/${v.vault_id}`)));
      const def = valid('getVaultDefinition', await client.definition(v.vault_id), v.decimals);
      expect(def.data.vault_type).toBe(v.vault_type);
      valid('getVaultAllocations', await client.allocations(v.vault_id));
      const ts = valid('getVaultTimeseries', await client.timeseries(v.vault_id, { granularity: 'week', order: 'desc', limit: 50 }), v.decimals);
      expect(stable(ts)).toEqual(stable(await ctx.api.ok(`/v1/vaults/${v.vault_id}/timeseries?granularity=week&order=desc&limit=50`)));
      if (v.slug) {
        const bySlug = valid('listVaultsBySlug', await client.vaultsBySlug(v.slug));
        expect(bySlug.data.map((d) => d.vault_id)).toContain(v.vault_id);
      }
    }
    // a Date is sent as RFC 3339 UTC whole seconds
    const first = enabled[0]!.vault_id;
    const window = await client.timeseries(first, { start: new Date('2026-05-01T00:00:00.500Z'), end: '2026-05-10', granularity: 'day' });
    expect(window.meta.start).toBe('2026-05-01T00:00:00Z');
    expect(window.data).toHaveLength(10);
  });

  it('positions, position, positionTimeseries, activity', async () => {
    const wallet = ctx.world.wallets[0]!;
    const list = valid('listPositions', await client.positions(wallet, { includeHidden: true }));
    expect(stable(list)).toEqual(stable(await ctx.api.ok(`/v1/users/${wallet}/positions?include_hidden=true`)));
    expect(list.data.length).toBeGreaterThan(0);
    for (const p of list.data) {
      const decimals = p.numeraire_token?.decimals ?? undefined;
      expect(valid('getPosition', await client.position(wallet, p.vault_id), decimals).data).toEqual(p);
      const ts = valid('getPositionTimeseries', await client.positionTimeseries(wallet, p.vault_id, { granularity: 'day', limit: 30 }), decimals);
      expect(stable(ts)).toEqual(stable(await ctx.api.ok(`/v1/users/${wallet}/positions/${p.vault_id}/timeseries?granularity=day&limit=30`)));
    }
    const activity = valid('listActivity', await client.activity(wallet, { order: 'asc', limit: 20, includeHidden: true }));
    expect(stable(activity)).toEqual(stable(await ctx.api.ok(`/v1/users/${wallet}/activity?order=asc&limit=20&include_hidden=true`)));
    const oneVault = await client.activity(wallet, { vaultId: list.data[0]!.vault_id });
    expect(oneVault.data.every((r) => r.vault_id === list.data[0]!.vault_id)).toBe(true);
    expect((await client.positions(UNKNOWN_WALLET)).data).toEqual([]);
  });

  it('audit detail: apy, lots, include and cost_basis_method (DESIGN §11)', async () => {
    const v = (await client.vaults()).data[0]!;
    const apy = valid('getVaultApy', await client.apy(v.vault_id));
    expect(stable(apy)).toEqual(stable(await ctx.api.ok(`/v1/vaults/${v.vault_id}/apy`)));
    const at = v.metrics.as_of! - 86400;
    const apyAt = valid('getVaultApy', await client.apy(v.vault_id, { at }));
    expect(apyAt.data).toEqual((await client.apy(v.vault_id, { at: new Date(at * 1000) })).data);
    expect(apyAt.data.windows[0]!.end.timestamp).toBe(new Date(at * 1000).toISOString().replace('.000Z', 'Z'));
    const detail = valid('getVault', await client.vault(v.vault_id, { include: ['provenance', 'quality'] }));
    expect(detail.data.metrics.apy_provenance).toEqual(apy.data.windows);
    expect(detail.data.metrics.stale_reason).toMatch(/^(fresh|chain_lag|never_read|unpriced)$/);
    // an empty include is no include at all
    expect(stable(await client.vault(v.vault_id, { include: [] }))).toEqual(stable(await client.vault(v.vault_id)));
    const withQuality = valid('listVaults', await client.vaults({ include: ['quality'] }));
    expect(withQuality.data.every((d) => d.metrics.quality !== undefined)).toBe(true);
    const ts = valid(
      'getVaultTimeseries',
      await client.timeseries(v.vault_id, { granularity: 'day', limit: 5, include: ['quality'] }),
      v.numeraire_token.decimals ?? undefined,
    );
    expect(ts.data.every((p) => Array.isArray(p.quality?.flags))).toBe(true);

    const wallet = ctx.world.wallets[0]!;
    const fifo = valid('listPositions', await client.positions(wallet, { includeHidden: true, costBasisMethod: 'fifo', include: ['returns'] }));
    expect(stable(fifo)).toEqual(stable(await ctx.api.ok(`/v1/users/${wallet}/positions?include_hidden=true&cost_basis_method=fifo&include=returns`)));
    const p = fifo.data[0]!;
    expect(p.returns?.twr_pct).toEqual(p.metrics.roi_pct);
    expect(valid('getPosition', await client.position(wallet, p.vault_id, { costBasisMethod: 'fifo', include: ['returns'] })).data).toEqual(p);
    const decimals = p.numeraire_token?.decimals ?? undefined;
    const pts = valid(
      'getPositionTimeseries',
      await client.positionTimeseries(wallet, p.vault_id, { costBasisMethod: 'fifo', include: ['quality'], limit: 5 }),
      decimals,
    );
    expect(pts.data.every((x) => x.quality !== undefined)).toBe(true);
    const lots = valid('listPositionLots', await client.lots(wallet, p.vault_id, { limit: 1000 }), decimals);
    expect(stable(lots)).toEqual(stable(await ctx.api.ok(`/v1/users/${wallet}/positions/${p.vault_id}/lots?limit=1000`)));
    const collected = [];
    for await (const lot of client.iterate.lots(wallet, p.vault_id, { limit: 1 })) collected.push(lot);
    expect(collected).toEqual(lots.data);
    const open = await client.lots(wallet, p.vault_id, { state: 'open' });
    expect(open.data.every((l) => l.shares_open !== '0')).toBe(true);
  });

  it('price (latest and as of an instant) and priceTimeseries', async () => {
    const v = (await client.vaults()).data[0]!;
    const token = { chainId: v.chain_id, address: v.numeraire_token.address };
    const latest = valid('getPrice', await client.price(token));
    expect(latest).toEqual(await ctx.api.ok(`/v1/prices?chain_id=${v.chain_id}&address=${v.numeraire_token.address}`));
    const at = valid('getPrice', await client.price({ ...token, at: new Date('2026-03-01T12:00:00Z') }));
    expect(Date.parse(at.timestamp)).toBeLessThanOrEqual(Date.parse('2026-03-01T12:00:00Z'));
    const series = valid('getPriceTimeseries', await client.priceTimeseries({ ...token, start: '2026-05-01', end: NOW, granularity: 'day' }));
    expect(series.data.length).toBe(32);
    expect(series).toEqual(
      await ctx.api.ok(`/v1/prices/timeseries?chain_id=${v.chain_id}&address=${v.numeraire_token.address}&start=2026-05-01&end=${NOW}&granularity=day`),
    );
  });

  it('withResponse: rate-limit headers, request id, ETag and cache headers of each answer', async () => {
    const { body, response } = await client.withResponse.vaults({ requestId: 'client-test-1' });
    expect(body.meta.request_id).toBe('client-test-1');
    expect(response).toMatchObject({ status: 200, requestId: 'client-test-1', fromCache: false, attempts: 1, deprecated: false });
    expect(response.etag).toMatch(/^"[\w-]+"$/);
    expect(response.rateLimit).toEqual({ limit: 1_000_000, remaining: expect.any(Number), reset: expect.any(Number) });
    expect(response.cacheControl).toMatch(/^public, max-age=\d+$/);
    expect((await client.withResponse.health()).response.rateLimit).toBeNull(); // not a /v1 route
  });
});

describe('client.iterate: every paged route followed to the end equals the unpaged data', () => {
  async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
    const out: T[] = [];
    for await (const x of it) out.push(x);
    return out;
  }

  it('vaults, timeseries, positions, positionTimeseries, activity', async () => {
    const all = await client.vaults({ includeHidden: true });
    expect(all.meta.next_cursor).toBeNull();
    expect(await collect(client.iterate.vaults({ includeHidden: true, limit: 2 }))).toEqual(all.data);

    const id = idsOf(ctx.world, 'visible')[0]!;
    const ts = await client.timeseries(id, { granularity: 'day', limit: 10000 });
    expect(ts.meta.next_cursor).toBeNull();
    expect(await collect(client.iterate.timeseries(id, { granularity: 'day', limit: 17 }))).toEqual(ts.data);
    const tsDesc = await client.timeseries(id, { granularity: 'hour', order: 'desc', start: '2026-05-20', limit: 10000 });
    expect(await collect(client.iterate.timeseries(id, { granularity: 'hour', order: 'desc', start: '2026-05-20', limit: 50 }))).toEqual(tsDesc.data);

    const wallet = ctx.world.wallets[0]!;
    const positions = await client.positions(wallet, { includeHidden: true, limit: 500 });
    expect(positions.meta.next_cursor).toBeNull();
    expect(await collect(client.iterate.positions(wallet, { includeHidden: true, limit: 1 }))).toEqual(positions.data);

    const p = positions.data[0]!;
    const pts = await client.positionTimeseries(wallet, p.vault_id, { granularity: 'day', limit: 10000 });
    expect(await collect(client.iterate.positionTimeseries(wallet, p.vault_id, { granularity: 'day', limit: 9 }))).toEqual(pts.data);

    const activity = await client.activity(wallet, { includeHidden: true, limit: 1000 });
    expect(activity.meta.next_cursor).toBeNull();
    expect(await collect(client.iterate.activity(wallet, { includeHidden: true, limit: 7 }))).toEqual(activity.data);
    const asc = await collect(client.iterate.activity(wallet, { includeHidden: true, order: 'asc', limit: 5 }));
    expect(asc).toEqual([...activity.data].reverse());
  });
});

// ---- every wallet: flows and position history against the server's positions ----

interface WalletData {
  wallet: string;
  rows: ActivityRow[];
  positions: Position[];
}
const wallets: WalletData[] = [];
const walletList: string[] = [];

describe('activityFlows and positionHistory agree with the server for every wallet of the demo world', () => {
  beforeAll(async () => {
    // every wallet `vaultd wallets` lists (on a copy: the server holds the database's lock)
    const listed = vaultd(['wallets', '--db', copyDb(ctx.world, 'wallets')]);
    expect(listed.status, listed.stderr).toBe(0);
    walletList.push(...listed.stdout.trim().split('\n'));
    for (const wallet of walletList) {
      const rows: ActivityRow[] = [];
      for await (const row of client.iterate.activity(wallet, { includeHidden: true, order: 'asc', limit: 1000 })) rows.push(row);
      const positions: Position[] = [];
      for await (const p of client.iterate.positions(wallet, { includeHidden: true, limit: 500 })) positions.push(p);
      wallets.push({ wallet, rows, positions });
      seen.push({ op: 'listActivity', body: rows }, { op: 'listPositions', body: positions });
    }
  });

  it('shares, pending deposit assets and pending redeem shares of every open position', () => {
    let compared = 0;
    let pending = 0;
    for (const w of wallets) {
      const history = positionHistory(w.rows);
      const open = history.filter((h) => h.current.open);
      expect(open.map((h) => h.vault_id).sort(), w.wallet).toEqual(w.positions.map((p) => p.vault_id).sort());
      for (const h of history) expect(h.skipped, `${w.wallet} ${h.vault_id}`).toEqual([]);
      for (const p of w.positions) {
        const h = open.find((x) => x.vault_id === p.vault_id)!;
        expect({ shares: h.current.shares, pd: h.current.pending_deposit_assets, pr: h.current.pending_redeem_shares }, `${w.wallet} ${p.vault_id}`).toEqual({
          shares: p.metrics.shares_owned,
          pd: p.metrics.pending_deposit_assets.native,
          pr: p.metrics.pending_redeem_shares,
        });
        compared++;
        if (h.current.pending_deposit_assets !== '0' || h.current.pending_redeem_shares !== '0') pending++;
      }
    }
    expect(wallets.length).toBe(ctx.world.wallets.length);
    expect(walletList).toEqual(ctx.world.wallets);
    expect(compared).toBeGreaterThan(100);
    expect(pending).toBeGreaterThan(5);
  });

  it("pending flows add up to each position's pending amounts; every row is in exactly one flow", () => {
    const statuses = new Set<string>();
    for (const w of wallets) {
      const flows = activityFlows(w.rows);
      expect(flows.reduce((n, f) => n + f.rows.length, 0)).toBe(w.rows.length);
      for (const f of flows) statuses.add(`${f.kind}:${f.status}`);
      for (const p of w.positions) {
        const mine = flows.filter((f) => f.vault_id === p.vault_id && f.status === 'pending');
        const pd = mine.filter((f) => f.kind === 'deposit').reduce((s, f) => s + toBaseUnits(f.net.assets.native, 36), 0n);
        const pr = mine.filter((f) => f.kind === 'withdraw').reduce((s, f) => s - toBaseUnits(f.net.shares, 18), 0n);
        expect(fromBaseUnits(pd, 36), `${w.wallet} ${p.vault_id}`).toBe(p.metrics.pending_deposit_assets.native);
        expect(fromBaseUnits(pr, 18), `${w.wallet} ${p.vault_id}`).toBe(p.metrics.pending_redeem_shares);
      }
    }
    expect([...statuses].sort()).toEqual(
      [
        'deposit:pending',
        'deposit:refunded',
        'deposit:settled',
        'transfer_in:settled',
        'transfer_out:settled',
        'withdraw:pending',
        'withdraw:refunded',
        'withdraw:settled',
      ].sort(),
    );
  });

  it('waitForSettlement returns a settled request and times out on a pending one', async () => {
    const all = wallets.flatMap((w) => activityFlows(w.rows).map((f) => ({ wallet: w.wallet, flow: f })));
    const settled = all.find((x) => x.flow.request_hash !== null && x.flow.status === 'settled')!;
    const refunded = all.find((x) => x.flow.request_hash !== null && x.flow.status === 'refunded')!;
    const open = all.find((x) => x.flow.request_hash !== null && x.flow.status === 'pending')!;

    const done = await client.waitForSettlement({ wallet: settled.wallet, requestHash: settled.flow.request_hash!, pollMs: 20, timeoutMs: 10_000 });
    expect(done).toEqual(settled.flow as Flow<ActivityRow>);
    const byVault = await client.waitForSettlement({ wallet: settled.wallet, requestHash: settled.flow.request_hash!, vaultId: settled.flow.vault_id });
    expect(byVault.status).toBe('settled');
    expect((await client.waitForSettlement({ wallet: refunded.wallet, requestHash: refunded.flow.request_hash! })).status).toBe('refunded');

    // the request stays pending for ever: that the call ends at all is its timeout at work
    const err = await client
      .waitForSettlement({ wallet: open.wallet, requestHash: open.flow.request_hash!, vaultId: open.flow.vault_id, pollMs: 50, timeoutMs: 400 })
      .catch((e) => e);
    expect(err).toMatchObject({
      name: 'VaultdClientError',
      code: 'TIMEOUT',
      message: `waitForSettlement: request ${open.flow.request_hash} of wallet ${open.wallet} is still pending after 400 ms`,
      details: { wallet: open.wallet, request_hash: open.flow.request_hash, status: 'pending' },
    });
    const unknown = await client.waitForSettlement({ wallet: UNKNOWN_WALLET, requestHash: `0x${'ab'.repeat(32)}`, pollMs: 50, timeoutMs: 200 }).catch((e) => e);
    expect(unknown.message).toBe(`waitForSettlement: request 0x${'ab'.repeat(32)} of wallet ${UNKNOWN_WALLET} is not in the activity log after 200 ms`);

    const abort = new AbortController();
    const waiting = client.waitForSettlement({ wallet: open.wallet, requestHash: open.flow.request_hash!, pollMs: 50, signal: abort.signal });
    setTimeout(() => abort.abort(new Error('caller gave up')), 100);
    await expect(waiting).rejects.toThrow('caller gave up');
  });
});

describe('toBaseUnits round-trips every amount string of every response', () => {
  const SHARES = new Set(['shares_delta', 'shares_owned', 'pending_redeem_shares', 'total_supply', 'unit_price', 'shares_acquired', 'shares_open', 'shares']);

  it('at the precision DESIGN §4.7 promises (token decimals, 18 for shares and unit prices, 6 for USD)', () => {
    let checked = 0;
    const check = (s: string, decimals: number, where: string) => {
      const units = toBaseUnits(s, decimals); // throws on excess precision
      expect(fromBaseUnits(units, decimals), where).toBe(s);
      checked++;
    };
    const walk = (x: unknown, key: string, decimals: number | undefined, where: string): void => {
      if (Array.isArray(x)) return x.forEach((y, i) => walk(y, key, decimals, `${where}[${i}]`));
      if (x !== null && typeof x === 'object') {
        const o = x as Record<string, any>;
        const own = o.numeraire_token?.decimals ?? o.token?.decimals ?? decimals;
        for (const [k, v] of Object.entries(o)) walk(v, k, own, `${where}.${k}`);
        return;
      }
      if (typeof x !== 'string' || !/^-?\d+(\.\d+)?$/.test(x)) return;
      if (key === 'usd') check(x, 6, where);
      else if (SHARES.has(key)) check(x, 18, where);
      // a lot's cost per whole share is a price: 18 digits, as unit_price (DESIGN §11.4)
      else if (key === 'native' && where.endsWith('.unit_cost.native')) check(x, 18, where);
      else if (key === 'native') {
        if (decimals === undefined) throw new Error(`${where}: no token decimals in context`);
        check(x, decimals, where);
      } else if (key === 'fee_wad') check(x, 0, where);
      else throw new Error(`${where}: an amount string under an unexpected key "${key}": ${x}`);
    };
    // assets_delta.native: the token sits beside it, inside assets_delta
    for (const { op, body, decimals } of seen) walk(body, '', decimals, op);
    expect(checked).toBeGreaterThan(20_000);
  });
});

describe('client transport against vaultd', () => {
  it('ETag cache: If-None-Match, a 304 reuses the body', async () => {
    const cached = createClient({ baseUrl: ctx.server.base, etagCache: true });
    const first = await cached.withResponse.strategies();
    const second = await cached.withResponse.strategies();
    expect(first.response).toMatchObject({ status: 200, fromCache: false });
    expect(second.response).toMatchObject({ status: 304, fromCache: true, etag: first.response.etag });
    expect(second.body).toEqual(first.body);
    expect(second.body).not.toBe(first.body); // parsed anew: callers never share a mutable body
    const wallet = ctx.world.wallets[1]!;
    await cached.positions(wallet);
    expect((await cached.withResponse.positions(wallet)).response.fromCache).toBe(true);
    expect((await client.withResponse.strategies()).response.status).toBe(200); // no cache: no If-None-Match
  });

  it('AbortSignal on every call: an aborted signal rejects with its reason', async () => {
    const abort = new AbortController();
    abort.abort(new Error('stop'));
    await expect(client.vaults({ signal: abort.signal })).rejects.toThrow('stop');
    await expect(client.iterate.activity(ctx.world.wallets[0]!, { signal: abort.signal }).next()).rejects.toThrow('stop');
  });

  it('the deprecated include_sources alias is not what the client sends', async () => {
    const { response } = await client.withResponse.tvl({ includeBreakdown: true });
    expect(response.deprecated).toBe(false);
  });
});

describe('typed errors of DESIGN §5.3 that vaultd emits on demand', () => {
  async function failure(p: Promise<unknown>): Promise<VaultdApiError> {
    const e = await p.then(
      () => null,
      (err) => err,
    );
    expect(e).toBeInstanceOf(VaultdApiError);
    return e as VaultdApiError;
  }

  it('UNAUTHORIZED: an unknown key, though anonymous access is on', async () => {
    const e = await failure(createClient({ baseUrl: ctx.server.base, apiKey: 'not-a-key' }).vaults({ requestId: 'auth-1' }));
    expect(e).toMatchObject({
      status: 401,
      code: 'UNAUTHORIZED',
      requestId: 'auth-1',
      message: 'the credential is unknown or revoked; pass a valid key as "Authorization: Bearer <key>" or "x-api-key: <key>"',
    });
    expect(e.retryable).toBe(false);
  });

  it('NOT_FOUND: unknown vault, slug, position and token', async () => {
    const missing = '1:0x0000000000000000000000000000000000000001';
    expect(await failure(client.vault(missing))).toMatchObject({ status: 404, code: 'NOT_FOUND', message: `no vault "${missing}"` });
    expect((await failure(client.vaultsBySlug('no-such-slug'))).code).toBe('NOT_FOUND');
    expect((await failure(client.position(UNKNOWN_WALLET, idsOf(ctx.world, 'visible')[0]!))).status).toBe(404);
    expect((await failure(client.price({ chainId: 1, address: '0x0000000000000000000000000000000000000002' }))).code).toBe('NOT_FOUND');
  });

  it('INVALID_PARAMETER names the parameter; INVALID_CURSOR for a tampered cursor', async () => {
    const bad = await failure(client.timeseries(idsOf(ctx.world, 'visible')[0]!, { granularity: 'year' as 'day' }));
    expect(bad).toMatchObject({
      status: 422,
      code: 'INVALID_PARAMETER',
      message: 'invalid parameter "granularity": must be one of hour, day, week, month',
      details: { parameter: 'granularity' },
    });
    expect((await failure(client.vault('not-an-id'))).details).toEqual({ parameter: 'vault_id' });
    const page = await client.vaults({ limit: 1 });
    const cursor = await failure(client.vaults({ next: page.meta.next_cursor!.slice(0, -2) + 'AA' }));
    expect(cursor).toMatchObject({ status: 422, code: 'INVALID_CURSOR' });
    const otherWallet = await client.positions(ctx.world.wallets[0]!, { limit: 1 });
    expect((await failure(client.positions(ctx.world.wallets[1]!, { next: otherWallet.meta.next_cursor! }))).code).toBe('INVALID_CURSOR');
  });

  it('METHOD_NOT_ALLOWED: a fetch that sends another method (the client itself only GETs)', async () => {
    const post = createClient({ baseUrl: ctx.server.base, fetch: (url, init) => fetch(url, { ...init, method: 'POST' } as RequestInit) });
    const e = await failure(post.vaults());
    expect(e).toMatchObject({
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      message: 'method POST is not allowed; this API is read-only (GET, HEAD, OPTIONS)',
      details: { allowed: ['GET', 'HEAD', 'OPTIONS'] },
    });
    expect(e.requestId).toMatch(/^[\w.-]+$/);
  });
});

describe('client/examples/portfolio.mjs', () => {
  it("prints a wallet's positions with PnL", () => {
    const wallet = wallets[0]?.wallet ?? ctx.world.wallets[0]!;
    const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'client', 'examples', 'portfolio.mjs'), wallet, ctx.server.base], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const positions = wallets.find((w) => w.wallet === wallet)!.positions;
    expect(r.stdout).toContain(`wallet ${wallet}: ${positions.length} positions`);
    for (const p of positions) expect(r.stdout).toContain(p.vault_id);
    expect(r.stdout).toMatch(/PnL/);
  });

  it('error: an invalid wallet prints the typed error and exits 1', () => {
    const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'client', 'examples', 'portfolio.mjs'), 'nope', ctx.server.base], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('INVALID_PARAMETER');
  });
});
