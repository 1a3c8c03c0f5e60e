// Aggregates and prices (DESIGN §4.5, §5.2): TVL totals and breakdown as exact decimal sums,
// the deprecated include_sources alias, strategy and featured cards re-added from the vault
// rows, and the price routes.
import { beforeAll, describe, expect, it } from 'vitest';
import { Decimal, sumUsd } from './format.js';
import { NOW, useServer } from './server.js';

const ctx = useServer('aggregates');

interface Vault {
  vault_id: string;
  chain_id: number;
  numeraire_token: { address: string; decimals: number; symbol: string };
  metrics: { tvl: { native: string; usd: string | null }; apy_7d: number | null; apy_30d: number | null; apy_90d: number | null };
  strategy: { id: string } | null;
}
let enabled: Vault[];
let visible: Vault[];
beforeAll(async () => {
  enabled = (await ctx.api.ok('/v1/vaults?include_hidden=true')).data;
  visible = (await ctx.api.ok('/v1/vaults')).data;
});

const usdOf = (vs: Vault[]) => sumUsd(vs.map((v) => v.metrics.tvl.usd));
const maxOf = (xs: (number | null)[]) => (xs.some((x) => x !== null) ? Math.max(...xs.filter((x): x is number => x !== null)) : null);

describe('/v1/tvl', () => {
  it('tvl.usd is the exact sum of the totals; the vaults row sums every enabled vault', async () => {
    const { data, meta } = await ctx.api.ok('/v1/tvl');
    expect('breakdown' in data).toBe(false);
    expect(data.tvl.usd).toBe(sumUsd(data.totals.map((t: { tvl: { usd: string | null } }) => t.tvl.usd)));
    expect(data.totals.map((t: { id: string }) => t.id)[0]).toBe('vaults');
    expect(data.totals).toHaveLength(3); // indexed vaults + two external sources
    expect(data.totals[0].tvl.usd).toBe(usdOf(enabled));
    // the newest of its parts (never the publish clock, DESIGN §7)
    expect(data.updated_at).toBe(
      data.totals
        .map((t: { updated_at: string | null }) => t.updated_at)
        .filter(Boolean)
        .sort()
        .at(-1),
    );
    expect(Object.keys(meta).sort()).toEqual(['partial_errors', 'refreshed_at', 'request_id']);
  });

  it('the failing external source keeps its last value and is reported in meta.partial_errors', async () => {
    const { data, meta } = await ctx.api.ok('/v1/tvl');
    expect(meta.partial_errors).toHaveLength(1);
    const [failure] = meta.partial_errors;
    const source = data.totals.find((t: { id: string }) => t.id === failure.resource_id);
    expect(source, 'the failed source still has a totals row').toBeDefined();
    expect(source.id).not.toBe('vaults');
    expect(source.tvl.usd).not.toBeNull();
    expect(failure.code).toMatch(/^[A-Z_]+$/);
  });

  it('include_breakdown: one row per chain of indexed vaults plus one per source, re-adding to the totals', async () => {
    const { data } = await ctx.api.ok('/v1/tvl?include_breakdown=true');
    const chainRows = data.breakdown.filter((r: { source_id: string }) => r.source_id === 'vaults');
    const chains = [...new Set(enabled.map((v) => v.chain_id))].sort((a, b) => a - b);
    expect(chainRows.map((r: { id: string }) => r.id).sort()).toEqual(chains.map((c) => `chain:${c}`).sort());
    for (const row of chainRows) {
      expect(row.tvl.usd, row.id).toBe(usdOf(enabled.filter((v) => `chain:${v.chain_id}` === row.id)));
    }
    expect(sumUsd(chainRows.map((r: { tvl: { usd: string | null } }) => r.tvl.usd))).toBe(data.totals[0].tvl.usd);
    for (const total of data.totals.slice(1)) {
      const row = data.breakdown.find((r: { id: string }) => r.id === total.id);
      expect(row).toMatchObject({ source_id: total.id, tvl: total.tvl, updated_at: total.updated_at });
    }
  });

  it('include_sources is the deprecated alias: same data, Deprecation and Link headers', async () => {
    const modern = await ctx.api.get('/v1/tvl?include_breakdown=true');
    const old = await ctx.api.get('/v1/tvl?include_sources=true');
    expect(old.status).toBe(200);
    expect(old.body.data).toEqual(modern.body.data);
    expect(old.body.meta.partial_errors).toEqual(modern.body.meta.partial_errors);
    expect(old.headers.get('deprecation')).toBe('true');
    expect(old.headers.get('link')).toMatch(/include_breakdown=true>; rel="successor-version"/);
    expect(modern.headers.get('deprecation')).toBeNull();
    const off = await ctx.api.get('/v1/tvl?include_sources=false');
    expect(off.body.data).toEqual((await ctx.api.ok('/v1/tvl')).data);
    expect(off.headers.get('deprecation')).toBe('true');
  });

  it('error: a bad boolean is 422', async () => {
    expect((await ctx.api.fails('/v1/tvl?include_breakdown=sure', 422, 'INVALID_PARAMETER')).details).toEqual({ parameter: 'include_breakdown' });
  });
});

describe('/v1/strategies and /v1/vaults/featured', () => {
  it('each strategy card re-adds its visible vaults: TVL of priced ones, count and APY maxima of all', async () => {
    const { data } = await ctx.api.ok('/v1/strategies');
    expect(data.length).toBeGreaterThanOrEqual(4);
    let counted = 0;
    for (const card of data) {
      const vs = visible.filter((v) => v.strategy?.id === card.id);
      counted += vs.length;
      expect(card.tvl.usd, card.id).toBe(usdOf(vs));
      expect(card.vault_count).toBe(vs.length);
      expect(card.apy_7d_max).toBe(maxOf(vs.map((v) => v.metrics.apy_7d)));
      expect(card.apy_30d_max).toBe(maxOf(vs.map((v) => v.metrics.apy_30d)));
      expect(card.apy_90d_max).toBe(maxOf(vs.map((v) => v.metrics.apy_90d)));
    }
    expect(counted).toBe(visible.filter((v) => v.strategy !== null).length);
  });

  it('featured cards: deployments by TVL desc (unpriced last, ties by id), sums and maxima', async () => {
    const { data } = await ctx.api.ok('/v1/vaults/featured');
    const slugOfChain = new Map<number, string>();
    for (const card of data) {
      const vs = card.vault_ids.map((id: string) => visible.find((v) => v.vault_id === id)!);
      expect(vs.every(Boolean), 'featured deployments are visible').toBe(true);
      for (let i = 1; i < vs.length; i++) {
        const [a, b] = [vs[i - 1]!, vs[i]!];
        const [ua, ub] = [a.metrics.tvl.usd, b.metrics.tvl.usd];
        const inOrder =
          ub === null ? ua !== null || a.vault_id < b.vault_id : ua !== null && (new Decimal(ua).gt(ub) || (new Decimal(ua).eq(ub) && a.vault_id < b.vault_id));
        expect(inOrder, `${card.slug}: ${a.vault_id} (${ua}) before ${b.vault_id} (${ub})`).toBe(true);
      }
      vs.forEach((v: Vault, i: number) => {
        const seen = slugOfChain.get(v.chain_id);
        if (seen) expect(card.chains[i]).toBe(seen);
        slugOfChain.set(v.chain_id, card.chains[i]);
      });
      expect(card.tvl.usd).toBe(usdOf(vs));
      // the logical vault's stable id: its deployments' group.id, never a {chainId}:{address} (DESIGN §4.5)
      for (const v of vs) expect(card.vault_id).toBe((v as Vault & { group: { id: string } }).group.id);
      expect(card.vault_id).not.toMatch(/^\d+:0x/);
      expect(card.supply_token).toBe(vs[0].numeraire_token.symbol);
      expect(card.apy_7d_max).toBe(maxOf(vs.map((v: Vault) => v.metrics.apy_7d)));
      expect(card.apy_90d_max).toBe(maxOf(vs.map((v: Vault) => v.metrics.apy_90d)));
    }
  });
});

describe('/v1/prices and /v1/prices/timeseries', () => {
  const priced = () => visible.find((v) => v.metrics.tvl.usd !== null && v.numeraire_token.symbol === 'USDC')!;
  const unpriced = () => visible.find((v) => v.metrics.tvl.usd === null)!;
  const q = (v: Vault, extra = '') => `address=${v.numeraire_token.address}&chain_id=${v.chain_id}${extra}`;

  it("latest: the token's newest price point, flat with no envelope (the real client reads res.price.usd)", async () => {
    const v = priced();
    const res = await ctx.api.get(`/v1/prices?${q(v)}`);
    const data = res.body;
    expect(Object.keys(data).sort()).toEqual(['address', 'chain_id', 'currency', 'price', 'symbol', 'timestamp']);
    expect(data).toMatchObject({ address: v.numeraire_token.address, chain_id: v.chain_id, currency: 'usd', symbol: 'USDC' });
    expect(data.price.decimals).toBe(v.numeraire_token.decimals);
    expect(data.price.usd).toBeGreaterThan(0.9);
    expect(Date.parse(data.timestamp)).toBeLessThanOrEqual(Date.parse(NOW));
    expect(res.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
    const upper = await ctx.api.ok(`/v1/prices?address=0x${v.numeraire_token.address.slice(2).toUpperCase()}&chain_id=${v.chain_id}`);
    expect(upper).toEqual(data);
  });

  it('at: the as-of point, flat, equal to the last raw point at or before it', async () => {
    const v = priced();
    const at = '2026-03-02T05:30:00Z';
    const data = await ctx.api.ok(`/v1/prices?${q(v, `&at=${at}`)}`);
    expect(Object.keys(data).sort()).toEqual(['address', 'chain_id', 'currency', 'price', 'symbol', 'timestamp']);
    expect(Date.parse(data.timestamp)).toBeLessThanOrEqual(Date.parse(at));
    const raw = (await ctx.api.ok(`/v1/prices/timeseries?${q(v, `&start=2026-03-01&end=${at}&limit=5000`)}`)).data;
    expect(raw.at(-1)).toEqual({ price: { usd: data.price.usd }, timestamp: data.timestamp });
  });

  it('error: unknown or unpriced token, and `at` before the first price, are 404', async () => {
    await ctx.api.fails(`/v1/prices?address=0x00000000000000000000000000000000000000ee&chain_id=1`, 404, 'NOT_FOUND');
    await ctx.api.fails(`/v1/prices?${q(unpriced())}`, 404, 'NOT_FOUND');
    await ctx.api.fails(`/v1/prices?${q(priced(), '&at=2000-01-01')}`, 404, 'NOT_FOUND');
  });

  it('error: missing or bad parameters are 422 naming them', async () => {
    const v = priced();
    const cases: [string, string][] = [
      [`address=${v.numeraire_token.address}`, 'chain_id'],
      [`chain_id=${v.chain_id}`, 'address'],
      [`address=0x12&chain_id=1`, 'address'],
      [q(v, '&at=soon'), 'at'],
    ];
    for (const [query, parameter] of cases) {
      expect((await ctx.api.fails(`/v1/prices?${query}`, 422, 'INVALID_PARAMETER')).details, query).toEqual({ parameter });
    }
  });

  it("timeseries: ascending points on each granularity's grid, limit applied, no meta", async () => {
    const v = priced();
    const grids: Record<string, RegExp> = { raw: /Z$/, hour: /:00:00Z$/, day: /T00:00:00Z$/, week: /T00:00:00Z$/, month: /-01T00:00:00Z$/ };
    for (const [granularity, grid] of Object.entries(grids)) {
      const body = await ctx.api.ok(`/v1/prices/timeseries?${q(v, `&start=2026-01-01&end=2026-05-31T23:00:00Z&granularity=${granularity}`)}`);
      expect(Object.keys(body)).toEqual(['data']);
      expect(body.data.length, granularity).toBeGreaterThan(3);
      for (let i = 0; i < body.data.length; i++) {
        expect(body.data[i].timestamp).toMatch(grid);
        if (i > 0) expect(Date.parse(body.data[i].timestamp)).toBeGreaterThan(Date.parse(body.data[i - 1].timestamp));
        if (granularity === 'week') expect(new Date(body.data[i].timestamp).getUTCDay()).toBe(1);
      }
      expect(Date.parse(body.data[0].timestamp)).toBeGreaterThanOrEqual(Date.parse('2026-01-01T00:00:00Z'));
    }
    expect((await ctx.api.ok(`/v1/prices/timeseries?${q(v, '&start=2026-01-01&end=2026-05-01&granularity=hour&limit=7')}`)).data).toHaveLength(7);
  });

  it('timeseries error: start and end are required; start after end, bad limit 422; unknown token 404', async () => {
    const v = priced();
    expect((await ctx.api.fails(`/v1/prices/timeseries?${q(v, '&end=2026-05-01')}`, 422, 'INVALID_PARAMETER')).details).toEqual({ parameter: 'start' });
    expect((await ctx.api.fails(`/v1/prices/timeseries?${q(v, '&start=2026-05-01')}`, 422, 'INVALID_PARAMETER')).details).toEqual({ parameter: 'end' });
    expect((await ctx.api.fails(`/v1/prices/timeseries?${q(v, '&start=2026-05-02&end=2026-05-01')}`, 422, 'INVALID_PARAMETER')).details).toEqual({
      parameter: 'start',
    });
    expect((await ctx.api.fails(`/v1/prices/timeseries?${q(v, '&start=2026-05-01&end=2026-05-02&limit=5001')}`, 422, 'INVALID_PARAMETER')).details).toEqual({
      parameter: 'limit',
    });
    expect(
      (await ctx.api.fails(`/v1/prices/timeseries?${q(v, '&start=2026-05-01&end=2026-05-02&granularity=minute')}`, 422, 'INVALID_PARAMETER')).details,
    ).toEqual({
      parameter: 'granularity',
    });
    await ctx.api.fails(
      '/v1/prices/timeseries?address=0x00000000000000000000000000000000000000ee&chain_id=1&start=2026-05-01&end=2026-05-02',
      404,
      'NOT_FOUND',
    );
  });
});
