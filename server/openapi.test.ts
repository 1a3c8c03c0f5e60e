import { compileErrors, validate as validateOpenApi } from '@readme/openapi-parser';
import * as v from 'valibot';
import { describe, expect, test } from 'vitest';
import { buildOpenApi, queryParameters } from './openapi.js';
import { OPERATIONS } from './openapiOperations.js';
import { parseVaultId, parseWallet, QUERY_SCHEMAS, type QueryRoute } from './params.js';
import { matchRoute } from './router.js';
import { COMPONENTS } from './schemas/responses.js';

type Json = Record<string, any>;
const doc = () => buildOpenApi() as Json;
const get = (path: string): Json => doc().paths[path].get;

const VAULT_ID = '1:0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458';
const WALLET = '0x1111111111111111111111111111111111111111';
const concrete = (template: string) => template.replace('{vault_id}', VAULT_ID).replace('{wallet_address}', WALLET).replace('{slug}', 'gauntlet-usdc-prime');

describe('the document', () => {
  test('passes a real OpenAPI 3.1 validator (@readme/openapi-parser)', async () => {
    const result = await validateOpenApi(structuredClone(doc()) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(result.specification).toBe('OpenAPI');
  });

  test('the validator is not a rubber stamp: a path parameter without its declaration fails', async () => {
    const broken = structuredClone(doc());
    broken.paths['/v1/vaults/{vault_id}'].get.parameters = [];
    expect((await validateOpenApi(broken as never)).valid).toBe(false);
  });

  test('is OpenAPI 3.1.0, version 1.0.0, with a relative server', () => {
    expect(doc().openapi).toBe('3.1.0');
    expect(doc().info.version).toBe('1.0.0');
    expect(doc().servers).toEqual([{ url: '/' }]);
  });

  test('is built once and frozen', () => {
    expect(buildOpenApi()).toBe(buildOpenApi());
    expect(Object.isFrozen(doc().paths)).toBe(true);
  });

  test('every route of the seed and of router.ts resolves to a documented GET operation', () => {
    const seedPaths = [
      '/health',
      '/health/chains',
      '/health/slo',
      '/metrics',
      '/openapi.json',
      '/docs',
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
      // wave 3 (DESIGN §11.2, §11.4)
      '/v1/vaults/{vault_id}/apy',
      '/v1/users/{wallet_address}/positions/{vault_id}/lots',
      // DESIGN §11.8
      '/v1/users/{wallet_address}/requests',
    ];
    // the live feed's routes are served beside the pipeline (server/stream/), not by router.ts
    expect(Object.keys(doc().paths).sort()).toEqual([...seedPaths, '/v1/stream', '/v1/stream/sse'].sort());
    for (const path of seedPaths) {
      const route = matchRoute(concrete(path));
      expect(route, path).not.toBeNull();
      expect(OPERATIONS[route!.name].path, path).toBe(path);
      expect(Object.keys(doc().paths[path]), path).toEqual(['get']);
      expect(get(path).operationId).toBe(OPERATIONS[route!.name].operationId);
    }
    const ids = Object.values(OPERATIONS).map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('security: both schemes optional on /v1, none declared on the vault list or outside /v1', () => {
    expect(doc().components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
    });
    expect(doc().security).toBeUndefined();
    for (const [path, item] of Object.entries(doc().paths as Record<string, Json>)) {
      const expected = path.startsWith('/v1/') && path !== '/v1/vaults' ? [{}, { bearer: [] }, { apiKey: [] }] : undefined;
      expect(item.get.security, path).toEqual(expected);
    }
  });

  test('error responses: 401/414/429/503/500 and a bodyless 304 on /v1; 404 and 422 where they apply', () => {
    expect(Object.keys(get('/v1/vaults').responses)).toEqual(['200', '304', '401', '409', '414', '422', '429', '500', '503']);
    expect(Object.keys(get('/v1/vaults/{vault_id}').responses)).toEqual(['200', '304', '401', '404', '414', '422', '429', '500', '503']);
    // as_of after the newest data is a 422 on every route that takes it (DESIGN §11.6)
    expect(Object.keys(get('/v1/strategies').responses)).toEqual(['200', '304', '401', '414', '422', '429', '500', '503']);
    // a cursor's walk is pinned: 409 CURSOR_STALE when a reorg removed rows inside it
    expect(Object.keys(get('/v1/users/{wallet_address}/activity').responses)).toEqual(['200', '304', '401', '409', '414', '422', '429', '500', '503']);
    expect(get('/v1/vaults').responses['409'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ConflictError' });
    // /health answers 503 with its own body when the process cannot serve its routes (no snapshot)
    expect(Object.keys(get('/health').responses)).toEqual(['200', '414', '500', '503']);
    expect(get('/health').responses['503'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Health' });
    expect(Object.keys(get('/health/chains').responses)).toEqual(['200', '414', '500']);
    // /metrics: 401 when a server keeps it for keys (server.metrics_public: false)
    expect(Object.keys(get('/metrics').responses)).toEqual(['200', '401', '414', '500']);
    expect(get('/v1/tvl').responses['304'].content).toBeUndefined();
    expect(get('/v1/vaults/slug/{slug}').responses['404'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/NotFoundError' });
  });

  test('headers: X-Request-Id, ETag and RateLimit-* on /v1 200s; no RateLimit-* on a 401; Retry-After on a 429', () => {
    const r = get('/v1/vaults/{vault_id}').responses;
    expect(Object.keys(r['200'].headers)).toEqual(
      expect.arrayContaining(['X-Request-Id', 'ETag', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
    );
    expect(Object.keys(r['401'].headers)).toEqual(['X-Request-Id']);
    expect(Object.keys(r['429'].headers)).toContain('Retry-After');
    expect(Object.keys(get('/v1/tvl').responses['200'].headers)).toEqual(expect.arrayContaining(['Deprecation', 'Link']));
  });

  test('/metrics is text/plain; every JSON 200 references a component schema', () => {
    expect(Object.keys(get('/metrics').responses['200'].content)).toEqual(['text/plain']);
    for (const op of Object.values(OPERATIONS)) {
      if (typeof op.body !== 'string') continue;
      expect(get(op.path).responses['200'].content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${op.body}` });
      expect(doc().components.schemas[op.body], op.body).toBeDefined();
    }
  });

  test('components.schemas are generated from every valibot response schema, strict objects', () => {
    // and the live feed's frames (server/openapiStream.ts): WebSocket frames are no valibot-parsed body
    expect(Object.keys(doc().components.schemas)).toEqual([...Object.keys(COMPONENTS), 'StreamMessage', 'StreamClientOp', 'StreamServerOp']);
    expect(doc().components.schemas.VaultDetail.additionalProperties).toBe(false);
    expect(doc().components.schemas.VaultDetail.required).not.toContain('group');
    expect(doc().components.schemas.VaultDetail.required).toContain('strategy');
  });
});

describe('parameters', () => {
  const routes = Object.values(OPERATIONS).filter((o) => o.query);

  test.each(routes.map((o) => [o.operationId, o] as const))('%s: names, required-ness, enums and defaults match QUERY_SCHEMAS', (_, op) => {
    const schema = QUERY_SCHEMAS[op.query!];
    const params = (get(op.path).parameters as Json[]).filter((p) => p.in === 'query');
    expect(params.map((p) => p.name)).toEqual(Object.keys(schema.entries));
    const defaults = v.parse(schema, requiredInputs(op.query!)) as Record<string, unknown>;
    for (const p of params) {
      const entry = (schema.entries as Record<string, Json>)[p.name]!;
      expect(p.required, p.name).toBe(entry.type !== 'optional');
      const inner = entry.type === 'optional' ? entry.wrapped : entry;
      const picklist = inner.type === 'picklist' ? inner : inner.pipe?.[0]?.type === 'picklist' ? inner.pipe[0] : null;
      if (p.schema.type === 'string' && picklist) expect(p.schema.enum, p.name).toEqual(picklist.options);
      if (entry.type === 'optional' && entry.default !== undefined) expect(p.schema.default, p.name).toEqual(defaults[p.name]);
    }
  });

  test('the position timeseries takes the vault timeseries parameters, and the cost-basis method', () => {
    const params = get('/v1/users/{wallet_address}/positions/{vault_id}/timeseries').parameters.slice(2) as Json[];
    expect(params.filter((p) => p.name !== 'cost_basis_method')).toEqual(queryParameters('vaults.timeseries'));
    expect(params.find((p) => p.name === 'cost_basis_method')).toMatchObject({
      required: false,
      schema: { enum: ['average', 'fifo'], default: 'average' },
    });
  });

  test('include_sources is deprecated, include_breakdown is not', () => {
    const byName = Object.fromEntries((get('/v1/tvl').parameters as Json[]).map((p) => [p.name, p]));
    expect(byName.include_sources.deprecated).toBe(true);
    expect(byName.include_breakdown.deprecated).toBeUndefined();
  });

  // A value the document allows must be one the server accepts; where both define a set, they agree.
  const CANDIDATES = [
    '0',
    '1',
    '01',
    '100',
    '500',
    '501',
    '1000',
    '1001',
    '5000',
    '5001',
    '10000',
    '10001',
    '-1',
    '1.5',
    'abc',
    'true',
    'false',
    'TRUE',
    'asc',
    'desc',
    'up',
    'raw',
    'hour',
    'day',
    'week',
    'month',
    'year',
    '',
  ];
  test.each(routes.map((o) => [o.operationId, o] as const))('%s: the documented schema and params.ts agree on sample values', (_, op) => {
    const params = (get(op.path).parameters as Json[]).filter((p) => p.in === 'query');
    for (const p of params) {
      if (p.schema.type === 'string' && !p.schema.enum) continue;
      for (const raw of CANDIDATES) {
        const documented = documentedAccepts(p.schema, raw);
        const server = v.safeParse(QUERY_SCHEMAS[op.query!], { ...requiredInputs(op.query!), [p.name]: raw }).success;
        if (documented) expect(server, `${p.name}=${raw}`).toBe(true);
        else if (!['1', '0', '01'].includes(raw)) expect(server, `${p.name}=${raw}`).toBe(false);
      }
    }
  });

  test('path parameter patterns accept exactly what parseVaultId and parseWallet accept', () => {
    const params = doc().components.parameters;
    const vaultRe = new RegExp(params.VaultId.schema.pattern);
    const walletRe = new RegExp(params.WalletAddress.schema.pattern);
    const accepts = (f: (s: string) => string, s: string) => {
      try {
        f(s);
        return true;
      } catch {
        return false;
      }
    };
    const addr = '0x8EB67A509616cd6a7c1b3c8c21d48ff57df3d458';
    for (const s of [
      `1:${addr}`,
      `8453:${addr.toLowerCase()}`,
      `0:${addr}`,
      `00:${addr}`,
      `01:${addr}`,
      `1234567890123:${addr}`,
      `1:${addr}0`,
      `1:${addr.slice(2)}`,
      'x:0x',
      addr,
    ]) {
      expect(vaultRe.test(s), s).toBe(accepts(parseVaultId, s));
    }
    for (const s of [addr, addr.toLowerCase(), addr.slice(0, -1), `${addr}0`, addr.slice(2), `0X${addr.slice(2)}`]) {
      expect(walletRe.test(s), s).toBe(accepts(parseWallet, s));
    }
  });
});

function requiredInputs(route: QueryRoute): Record<string, string> {
  if (route === 'prices') return { address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', chain_id: '1' };
  if (route === 'prices.timeseries') return { address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', chain_id: '1', start: '2026-01-01', end: '2026-01-02' };
  return {};
}

/** How a client reads a query parameter's schema (OpenAPI form style, simple scalars). */
function documentedAccepts(schema: Json, raw: string): boolean {
  if (schema.type === 'integer') {
    if (!/^-?\d+$/.test(raw)) return false;
    const n = Number(raw);
    return (schema.minimum === undefined || n >= schema.minimum) && (schema.maximum === undefined || n <= schema.maximum);
  }
  if (schema.type === 'boolean') return raw === 'true' || raw === 'false';
  if (schema.enum) return schema.enum.includes(raw);
  return true;
}
