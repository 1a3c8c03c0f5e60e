// `as_of` in /openapi.json (DESIGN §11.6): every route that takes it documents it, and what the
// server answers with it — 200s with `meta.as_of`, the 422 after the newest data and with the
// audit options — validates against the document (useServer checks every body it receives).
import { describe, expect, it } from 'vitest';
import { QUERY_SCHEMAS, type QueryRoute } from '../../server/params.js';
import { OPERATIONS } from '../../server/openapiOperations.js';
import { createResponseValidator } from '../../server/schemas/validateResponse.js';
import { NOW, useServer } from './server.js';

const ctx = useServer('asof-document');

/** A past instant of the pinned world (mid-hour, a month before its newest data). */
const PAST = '2026-05-01T12:30:00Z';
const PAST_ECHO = '2026-05-01T12:30:00Z';
/** After the newest data of the pinned world. */
const FUTURE = '2026-07-01T00:00:00Z';

const takesAsOf = Object.entries(OPERATIONS).filter(([, op]) => op.query && 'as_of' in QUERY_SCHEMAS[op.query as QueryRoute].entries);

describe('as_of in the document', () => {
  it('is a documented query parameter of every route but prices, the APY provenance and the lots', async () => {
    const doc = await ctx.api.ok('/openapi.json');
    expect(takesAsOf.map(([name]) => name).sort()).toEqual(
      [
        'strategies',
        'tvl',
        'users.activity',
        'users.position',
        'users.position.timeseries',
        'users.positions',
        'users.requests',
        'vaults.allocations',
        'vaults.definition',
        'vaults.featured',
        'vaults.get',
        'vaults.list',
        'vaults.slug',
        'vaults.timeseries',
      ].sort(),
    );
    for (const [name, op] of takesAsOf) {
      const param = doc.paths[op.path].get.parameters.find((p: { name: string }) => p.name === 'as_of');
      expect(param, name).toMatchObject({ in: 'query', required: false, schema: { type: 'string' } });
      expect(param.description, name).toMatch(/as of that instant.*After the newest data: 422/s);
      expect(Object.keys(doc.paths[op.path].get.responses), name).toContain('422');
    }
  });

  it('409 CURSOR_STALE is documented on every route whose walk a cursor pins', async () => {
    const doc = await ctx.api.ok('/openapi.json');
    for (const name of ['vaults.list', 'vaults.timeseries', 'users.positions', 'users.position.timeseries', 'users.activity'] as const) {
      const r = doc.paths[OPERATIONS[name].path].get.responses['409'];
      expect(r?.description, name).toMatch(/^CURSOR_STALE: .*start the walk again/);
      expect(r.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ConflictError' });
    }
    expect(doc.components.schemas.ConflictError.properties.error.properties.code.enum).toEqual(['CURSOR_STALE']);
    const validator = createResponseValidator();
    const stale = { error: { code: 'CURSOR_STALE', message: 'rows this walk began on are gone; start the walk again without next' } };
    expect(validator.validate('listActivity', 409, stale)).toEqual([]);
    expect(validator.validate('listActivity', 409, { error: { ...stale.error, code: 'INVALID_CURSOR' } })).not.toEqual([]);
    expect(validator.validate('listPositionLots', 409, stale)).not.toEqual([]); // lots are not pinned
    for (const meta of ['ItemMeta', 'TvlMeta', 'ListMeta', 'WindowListMeta', 'WalletListMeta']) {
      expect(doc.components.schemas[meta].properties.as_of, meta).toBeDefined();
      expect(doc.components.schemas[meta].required, meta).not.toContain('as_of');
    }
  });
});

describe('as_of answers validate against the document', () => {
  it('every route answers a past instant with meta.as_of, and a body the document allows', async () => {
    const vaults = (await ctx.api.ok('/v1/vaults?include_hidden=true')).data as { vault_id: string; slug: string | null; group: { slug: string } | null }[];
    const vault = vaults[0]!.vault_id;
    const slug = vaults.find((v) => v.group?.slug)?.group?.slug;
    const positions = await ctx.api.ok(`/v1/users/${ctx.world.wallets[0]}/positions?as_of=${PAST}`);
    expect(positions.data.length, 'the busiest wallet holds something a month back').toBeGreaterThan(0);
    const held = positions.data[0].vault_id as string;
    const wallet = ctx.world.wallets[0]!;
    const paths = [
      '/v1/vaults',
      '/v1/vaults?limit=2&include=quality',
      '/v1/vaults/featured',
      ...(slug ? [`/v1/vaults/slug/${slug}`] : []),
      `/v1/vaults/${vault}`,
      `/v1/vaults/${vault}?include=provenance,quality`,
      `/v1/vaults/${vault}/definition`,
      `/v1/vaults/${vault}/allocations`,
      `/v1/vaults/${vault}/timeseries?granularity=day&limit=5`,
      '/v1/strategies',
      '/v1/tvl?include_breakdown=true',
      `/v1/users/${wallet}/positions`,
      `/v1/users/${wallet}/positions/${held}`,
      `/v1/users/${wallet}/positions/${held}/timeseries?limit=5`,
      `/v1/users/${wallet}/activity?limit=5`,
    ];
    for (const path of paths) {
      const res = await ctx.api.get(`${path}${path.includes('?') ? '&' : '?'}as_of=${PAST}`); // validated by useServer
      expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(200);
      expect(res.body.meta.as_of, path).toBe(PAST_ECHO);
      // the echo sits before refreshed_at, and only when asked
      const keys = Object.keys(res.body.meta);
      expect(keys.indexOf('as_of'), path).toBe(keys.indexOf('refreshed_at') - 1);
      const live = await ctx.api.get(path);
      expect('as_of' in live.body.meta, path).toBe(false);
      // another body, another validator: the live ETag never earns the past answer a 304
      expect(res.headers.get('etag'), path).not.toBe(live.headers.get('etag'));
      const again = await ctx.api.get(`${path}${path.includes('?') ? '&' : '?'}as_of=${PAST}`, { headers: { 'If-None-Match': live.headers.get('etag')! } });
      expect(again.status, path).toBe(200);
    }
  });

  it('as_of after the newest data, and as_of with the audit options, are 422s the document allows', async () => {
    const wallet = ctx.world.wallets[0]!;
    const after = await ctx.api.fails(`/v1/vaults?as_of=${FUTURE}`, 422, 'INVALID_PARAMETER');
    expect(after.message).toMatch(/after the newest data/);
    await ctx.api.fails(`/v1/strategies?as_of=${FUTURE}`, 422, 'INVALID_PARAMETER');
    await ctx.api.fails(`/v1/vaults/featured?as_of=${FUTURE}`, 422, 'INVALID_PARAMETER');
    await ctx.api.fails(`/v1/users/${wallet}/positions?as_of=${PAST}&include=returns`, 422, 'INVALID_PARAMETER');
    await ctx.api.fails(`/v1/users/${wallet}/positions?as_of=${PAST}&cost_basis_method=fifo`, 422, 'INVALID_PARAMETER');
    // the pinned world ends at NOW: NOW itself is the newest instant asked for
    expect((await ctx.api.ok(`/v1/tvl?as_of=${NOW}`)).meta.as_of).toBe(NOW);
  });
});
