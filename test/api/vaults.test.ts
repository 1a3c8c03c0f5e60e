// Happy paths and 404/422 of the health, document and vault routes (seed "Endpoints"; DESIGN
// §5.2), against a real server on the pinned demo world.
import { describe, expect, it } from 'vitest';
import { idsOf, NOW, useServer, type RegistryVault } from './server.js';

const ctx = useServer('vaults');

const FAMILY_KEYS: Record<string, string[]> = {
  aera_v3: ['hooks', 'fee_calculator', 'provisioner', 'fees'],
  morpho_v1: ['curator', 'fee_wad', 'fee_recipient', 'timelock_seconds'],
  morpho_v2: ['curator', 'fee_wad', 'fee_recipient', 'timelock_seconds'],
  symbiotic: [],
};
const IDENTITY_KEYS = ['vault_id', 'chain_id', 'address', 'vault_type', 'name', 'symbol', 'owner', 'numeraire_token'];

/** Most-recent-first by listed_at, ties by vault_id (DESIGN §5.2). */
function expectedOrder(vaults: RegistryVault[]): string[] {
  return [...vaults].sort((a, b) => b.listed_at - a.listed_at || (a.vault_id < b.vault_id ? -1 : a.vault_id > b.vault_id ? 1 : 0)).map((v) => v.vault_id);
}

/** A slug whose deployments are all disabled, and one with a hidden deployment. */
function slugs() {
  const bySlug = new Map<string, RegistryVault[]>();
  for (const v of ctx.world.vaults) if (v.slug) bySlug.set(v.slug, [...(bySlug.get(v.slug) ?? []), v]);
  const entries = [...bySlug];
  const disabled = entries.find(([, vs]) => vs.every((v) => v.visibility === 'disabled'));
  const hidden = entries.find(([, vs]) => vs.some((v) => v.visibility === 'hidden'));
  const visible = entries.find(([, vs]) => vs.length > 1 && vs.every((v) => v.visibility === 'visible'));
  if (!disabled || !hidden || !visible) throw new Error('the demo world lacks a disabled, a hidden or a plain multi-deployment slug');
  return { bySlug, disabled, hidden, visible };
}

describe('health and documents', () => {
  it('/health: status ok, version, uptime; JSON', async () => {
    const res = await ctx.api.get('/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({ status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/), uptime_seconds: expect.any(Number) });
  });

  it('/health/chains: one entry per chain with an enabled vault', async () => {
    const chains = await ctx.api.ok('/health/chains');
    const expected = [...new Set(ctx.world.vaults.filter((v) => v.visibility !== 'disabled').map((v) => Number(v.vault_id.split(':')[0])))];
    expect(chains.map((c: { chain_id: number }) => c.chain_id).sort((a: number, b: number) => a - b)).toEqual(expected.sort((a, b) => a - b));
    for (const c of chains) {
      expect(c.latest_block).toBeGreaterThan(0);
      // the world ends at NOW; its chains' heads are from the last day of it
      expect(c.latest_timestamp).toBeLessThanOrEqual(Date.parse(NOW) / 1000);
      expect(c.latest_timestamp).toBeGreaterThan(Date.parse(NOW) / 1000 - 86_400);
      expect(['fresh', 'lagging', 'stalled']).toContain(c.freshness);
    }
  });

  it('/metrics: Prometheus text with the request counter', async () => {
    await ctx.api.ok('/v1/vaults?limit=1');
    const res = await ctx.api.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/^# HELP vaultd_http_requests_total /m);
    expect(res.text).toMatch(/^vaultd_http_requests_total\{route="vaults\.list",status="200"\} [1-9]\d*$/m);
  });

  it('/openapi.json: OpenAPI 3.1, version 1.0.0, every route', async () => {
    const doc = await ctx.api.ok('/openapi.json');
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    for (const path of [
      '/health',
      '/health/chains',
      '/v1/vaults',
      '/v1/vaults/featured',
      '/v1/vaults/slug/{slug}',
      '/v1/vaults/{vault_id}',
      '/v1/vaults/{vault_id}/definition',
      '/v1/vaults/{vault_id}/timeseries',
      '/v1/vaults/{vault_id}/allocations',
      '/v1/users/{wallet_address}/positions',
      '/v1/users/{wallet_address}/positions/{vault_id}',
      '/v1/users/{wallet_address}/positions/{vault_id}/timeseries',
      '/v1/users/{wallet_address}/activity',
      '/v1/tvl',
      '/v1/strategies',
      '/v1/prices',
      '/v1/prices/timeseries',
    ]) {
      expect(doc.paths[path]?.get, path).toBeDefined();
    }
  });
});

describe('/v1/vaults', () => {
  it('default: exactly the visible vaults, most recent first, one page', async () => {
    const body = await ctx.api.ok('/v1/vaults');
    const visible = ctx.world.vaults.filter((v) => v.visibility === 'visible');
    expect(body.data.map((d: { vault_id: string }) => d.vault_id)).toEqual(expectedOrder(visible));
    expect(body.meta).toMatchObject({ count: visible.length, limit: 1000, next_cursor: null, partial_errors: null });
  });

  it('include_hidden=true adds the hidden vaults, never a disabled one', async () => {
    const body = await ctx.api.ok('/v1/vaults?include_hidden=true');
    const enabled = ctx.world.vaults.filter((v) => v.visibility !== 'disabled');
    expect(body.data.map((d: { vault_id: string }) => d.vault_id)).toEqual(expectedOrder(enabled));
    for (const id of idsOf(ctx.world, 'hidden')) expect(body.data.some((d: { vault_id: string }) => d.vault_id === id)).toBe(true);
  });

  it('rows carry identity, numeraire, metrics, strategy, and group only when associated', async () => {
    const { data } = await ctx.api.ok('/v1/vaults?include_hidden=true');
    for (const d of data) {
      const reg = ctx.world.vaults.find((v) => v.vault_id === d.vault_id)!;
      expect(d.vault_id).toBe(`${d.chain_id}:${d.address}`);
      expect(d.vault_type).toBe(reg.vault_type);
      expect(d.numeraire_token.decimals).toBe(reg.decimals);
      expect(d.strategy === null ? null : d.strategy.id).toBe(reg.strategy_id);
      if (reg.slug === null) expect('group' in d).toBe(false);
      else expect(d.group.slug).toBe(reg.slug);
    }
  });

  it('error: limit out of range and a bad boolean are 422 naming the parameter', async () => {
    expect((await ctx.api.fails('/v1/vaults?limit=0', 422, 'INVALID_PARAMETER')).details).toEqual({ parameter: 'limit' });
    expect((await ctx.api.fails('/v1/vaults?limit=1001', 422, 'INVALID_PARAMETER')).details).toEqual({ parameter: 'limit' });
    expect((await ctx.api.fails('/v1/vaults?include_hidden=yes', 422, 'INVALID_PARAMETER')).details).toEqual({ parameter: 'include_hidden' });
  });
});

describe('/v1/vaults/featured and /slug/{slug}', () => {
  it('featured: one card per featured group, the group id as vault_id (DESIGN §4.5)', async () => {
    const { data, meta } = await ctx.api.ok('/v1/vaults/featured');
    expect(data.length).toBeGreaterThan(0);
    expect(meta.count).toBe(data.length);
    const visible = new Set(idsOf(ctx.world, 'visible'));
    const { bySlug } = slugs();
    const rows = new Map<string, { group?: { id: string } }>(
      (await ctx.api.ok('/v1/vaults?include_hidden=true&limit=1000')).data.map((d: { vault_id: string }) => [d.vault_id, d]),
    );
    expect(new Set(data.map((c: { slug: string }) => c.slug)).size).toBe(data.length);
    for (const card of data) {
      expect(card.vault_ids.length).toBeGreaterThan(0);
      for (const id of card.vault_ids) {
        expect(visible.has(id)).toBe(true);
        expect(rows.get(id)?.group?.id).toBe(card.vault_id);
      }
      expect(card.vault_ids).not.toContain(card.vault_id);
      const group = bySlug
        .get(card.slug)!
        .filter((v) => v.visibility === 'visible')
        .map((v) => v.vault_id);
      expect([...card.vault_ids].sort()).toEqual(group.sort());
      expect(card.chains).toHaveLength(card.vault_ids.length);
    }
  });

  it('a visible slug lists every enabled deployment, as the list rows', async () => {
    const { visible } = slugs();
    const all = (await ctx.api.ok('/v1/vaults?include_hidden=true')).data;
    const body = await ctx.api.ok(`/v1/vaults/slug/${visible[0]}`);
    expect([...body.data.map((d: { vault_id: string }) => d.vault_id)].sort()).toEqual(visible[1].map((v) => v.vault_id).sort());
    for (const d of body.data) expect(d).toEqual(all.find((x: { vault_id: string }) => x.vault_id === d.vault_id));
    expect(body.meta).toMatchObject({ count: visible[1].length, next_cursor: null });
  });

  it('a slug with a hidden deployment serves it', async () => {
    const { hidden } = slugs();
    const body = await ctx.api.ok(`/v1/vaults/slug/${hidden[0]}`);
    const ids = body.data.map((d: { vault_id: string }) => d.vault_id);
    for (const v of hidden[1]) if (v.visibility === 'hidden') expect(ids).toContain(v.vault_id);
  });

  it('error: a disabled or unknown slug is 404 NOT_FOUND', async () => {
    await ctx.api.fails(`/v1/vaults/slug/${slugs().disabled[0]}`, 404, 'NOT_FOUND');
    await ctx.api.fails('/v1/vaults/slug/no-such-vault', 404, 'NOT_FOUND');
  });
});

describe('/v1/vaults/{vault_id} and its sub-resources', () => {
  it('a visible and a hidden vault are served, equal to their list rows', async () => {
    const all = (await ctx.api.ok('/v1/vaults?include_hidden=true')).data;
    for (const id of [idsOf(ctx.world, 'visible')[0]!, idsOf(ctx.world, 'hidden')[0]!]) {
      const body = await ctx.api.ok(`/v1/vaults/${id}`);
      expect(body.data).toEqual(all.find((x: { vault_id: string }) => x.vault_id === id));
      expect(Object.keys(body.meta).sort()).toEqual(['refreshed_at', 'request_id']);
    }
  });

  it('an upper-case address resolves to the canonical lowercase vault', async () => {
    const id = idsOf(ctx.world, 'visible')[0]!;
    const [chain, address] = id.split(':');
    const body = await ctx.api.ok(`/v1/vaults/${chain}:0x${address!.slice(2).toUpperCase()}`);
    expect(body.data.vault_id).toBe(id);
  });

  it('error: disabled and unknown vaults are 404 on every vault route', async () => {
    const unknown = '1:0x00000000000000000000000000000000000000ff';
    for (const id of [...idsOf(ctx.world, 'disabled'), unknown]) {
      for (const suffix of ['', '/definition', '/allocations', '/timeseries']) {
        await ctx.api.fails(`/v1/vaults/${id}${suffix}`, 404, 'NOT_FOUND');
      }
    }
  });

  it('error: a malformed vault id is 422 with details.parameter', async () => {
    for (const bad of ['abc', '1:0x123', '0:0x00000000000000000000000000000000000000ff', '1-0x00000000000000000000000000000000000000ff']) {
      for (const suffix of ['', '/definition', '/allocations', '/timeseries']) {
        const err = await ctx.api.fails(`/v1/vaults/${bad}${suffix}`, 422, 'INVALID_PARAMETER');
        expect(err.details).toEqual({ parameter: 'vault_id' });
      }
    }
  });

  it('definition: identity plus exactly the family fields of each vault_type', async () => {
    const enabled = ctx.world.vaults.filter((v) => v.visibility !== 'disabled');
    const types = [...new Set(enabled.map((v) => v.vault_type))].sort();
    expect(types).toEqual(['aera_v3', 'morpho_v1', 'morpho_v2', 'symbiotic']);
    for (const type of types) {
      const reg = enabled.find((v) => v.vault_type === type)!;
      const { data } = await ctx.api.ok(`/v1/vaults/${reg.vault_id}/definition`);
      expect(Object.keys(data).sort()).toEqual([...IDENTITY_KEYS, ...FAMILY_KEYS[type]!].sort());
      const detail = (await ctx.api.ok(`/v1/vaults/${reg.vault_id}`)).data;
      for (const k of ['vault_id', 'chain_id', 'address', 'vault_type', 'name', 'symbol', 'numeraire_token']) expect(data[k]).toEqual(detail[k]);
      if (type === 'aera_v3') expect(Object.keys(data.fees ?? {}).sort()).toEqual(['performance_fee_bps', 'tvl_fee_bps']);
      if (type.startsWith('morpho') && data.fee_wad !== null) expect(BigInt(data.fee_wad) <= 10n ** 18n).toBe(true);
    }
  });

  it('allocations: the vault, an as-of instant, asset targets with fractions', async () => {
    const id = idsOf(ctx.world, 'visible')[0]!;
    const { data } = await ctx.api.ok(`/v1/vaults/${id}/allocations`);
    expect(data.vault_id).toBe(id);
    expect(data.allocations.length).toBeGreaterThan(0);
    for (const a of data.allocations) {
      expect(a.target.kind).toBe('asset');
      expect(a.allocation).toBeGreaterThanOrEqual(0);
      expect(a.allocation).toBeLessThanOrEqual(1);
      if (a.target.flow) expect(['pending_deposit', 'pending_redemption']).toContain(a.target.flow.kind);
    }
  });
});
