// Transport (DESIGN §5.1, §5.6, §5.3): request ids, ETag/304, precompressed gzip and br,
// Content-Type, Cache-Control, CORS and preflight, HEAD, 405 and unknown routes.
import { connect } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { idsOf, rawRequest, useServer, type RawRes } from './server.js';
import { walletFacts, type WalletFacts } from './walletFacts.js';

const ctx = useServer('transport');
const JSON_TYPE = 'application/json; charset=utf-8';
let facts: WalletFacts;
let routes: string[]; // one concrete path per GET route under /v1
beforeAll(async () => {
  facts = await walletFacts(ctx.api, ctx.world, 10);
  const vault = idsOf(ctx.world, 'visible')[0]!;
  const slug = ctx.world.vaults.find((v) => v.visibility === 'visible' && v.slug)!.slug;
  const { wallet, vault_id } = facts.open[0]!;
  const usdc = (await ctx.api.ok('/v1/vaults')).data.find((v: any) => v.numeraire_token.symbol === 'USDC' && v.metrics.tvl.usd !== null);
  const token = `address=${usdc.numeraire_token.address}&chain_id=${usdc.chain_id}`;
  routes = [
    '/v1/vaults',
    '/v1/vaults?limit=2',
    '/v1/vaults/featured',
    `/v1/vaults/slug/${slug}`,
    `/v1/vaults/${vault}`,
    `/v1/vaults/${vault}/definition`,
    `/v1/vaults/${vault}/allocations`,
    `/v1/vaults/${vault}/timeseries?limit=30`,
    `/v1/users/${wallet}/positions`,
    `/v1/users/${wallet}/positions/${vault_id}`,
    `/v1/users/${wallet}/positions/${vault_id}/timeseries?limit=30`,
    `/v1/users/${wallet}/activity?limit=30`,
    '/v1/tvl',
    '/v1/tvl?include_sources=true',
    '/v1/strategies',
    `/v1/prices?${token}`,
    `/v1/prices?${token}&at=2026-03-01`,
    `/v1/prices/timeseries?${token}&start=2026-05-01&end=2026-05-03`,
  ];
});

const header = (res: RawRes, name: string) => {
  const v = res.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};
const withoutRequestId = (body: any) => ({ ...body, meta: body.meta ? { ...body.meta, request_id: undefined } : undefined });

describe('request ids', () => {
  it('generated, unique per response, and equal to meta.request_id', async () => {
    const seen = new Set<string>();
    for (const path of [...routes, ...routes]) {
      const res = await ctx.api.get(path);
      const id = res.headers.get('x-request-id')!;
      expect(id).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
      if (res.body.meta) expect(res.body.meta.request_id).toBe(id);
      seen.add(id);
    }
    expect(seen.size).toBe(routes.length * 2);
  });

  it('a valid incoming id is echoed in the header and the body', async () => {
    for (const id of ['e2e-Test_1.2', 'x'.repeat(128)]) {
      for (const path of ['/v1/vaults', `/v1/vaults/${idsOf(ctx.world, 'visible')[0]}/timeseries?limit=3`, '/v1/vaults/nope']) {
        const res = await ctx.api.get(path, { headers: { 'x-request-id': id } });
        expect(res.headers.get('x-request-id')).toBe(id);
        if (res.status === 200) expect(res.body.meta.request_id).toBe(id);
      }
    }
  });

  it('an invalid incoming id is replaced by a fresh one', async () => {
    for (const id of ['bad id!', 'x'.repeat(129), 'a/b', '{"x":1}']) {
      const res = await ctx.api.get('/v1/strategies', { headers: { 'x-request-id': id } });
      const got = res.headers.get('x-request-id')!;
      expect(got).not.toBe(id);
      expect(got).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
      expect(res.body.meta.request_id).toBe(got);
    }
  });
});

describe('caching', () => {
  it('ETag on every 200; If-None-Match answers 304 with no body and the rate-limit headers', async () => {
    for (const path of [...routes, '/openapi.json']) {
      const first = await rawRequest(ctx.api.base, path);
      const etag = header(first, 'etag');
      expect(etag, path).toMatch(/^"[^"]+"$/);
      const again = await rawRequest(ctx.api.base, path, { headers: { 'x-request-id': 'another-id' } });
      expect(header(again, 'etag'), `${path}: the ETag ignores the request id`).toBe(etag);
      for (const inm of [etag!, `W/${etag}`, `"nope", ${etag}`, '*']) {
        const res = await rawRequest(ctx.api.base, path, { headers: { 'if-none-match': inm } });
        expect(res.status, `${path} If-None-Match: ${inm}`).toBe(304);
        expect(res.body.length).toBe(0);
        expect(header(res, 'etag')).toBe(etag);
        if (path.startsWith('/v1')) expect(header(res, 'ratelimit-remaining')).toMatch(/^\d+$/);
      }
      expect((await rawRequest(ctx.api.base, path, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
    }
  });

  it('Cache-Control: public on vault, aggregate and price routes, private on wallet routes', async () => {
    for (const path of routes) {
      const res = await ctx.api.get(path);
      expect(res.headers.get('cache-control'), path).toBe(path.startsWith('/v1/users/') ? 'private, max-age=60' : 'public, max-age=60');
    }
    expect((await ctx.api.get('/health')).headers.get('cache-control')).toBe('no-store');
  });
});

describe('encodings and media type', () => {
  it('gzip and br decode to the identity JSON (apart from request_id) for large pages', async () => {
    for (const path of ['/v1/vaults?include_hidden=true', '/v1/vaults/featured', '/v1/strategies']) {
      const identity = await rawRequest(ctx.api.base, path, { headers: { 'accept-encoding': 'identity' } });
      expect(header(identity, 'content-encoding')).toBeUndefined();
      expect(identity.body.length).toBeGreaterThan(1024);
      const plain = JSON.parse(identity.body.toString('utf8'));
      for (const [encoding, decode] of [
        ['gzip', gunzipSync],
        ['br', brotliDecompressSync],
      ] as const) {
        const res = await rawRequest(ctx.api.base, path, { headers: { 'accept-encoding': encoding } });
        expect(res.status).toBe(200);
        expect(header(res, 'content-encoding'), `${path} ${encoding}`).toBe(encoding);
        expect(header(res, 'vary')).toBe('Accept-Encoding, Authorization, X-API-Key');
        expect(res.body.length).toBeLessThan(identity.body.length);
        const body = JSON.parse(decode(res.body).toString('utf8'));
        expect(body.meta.request_id).toBe(header(res, 'x-request-id'));
        expect(withoutRequestId(body)).toEqual(withoutRequestId(plain));
      }
    }
    const both = await rawRequest(ctx.api.base, '/v1/vaults', { headers: { 'accept-encoding': 'gzip;q=0.5, br;q=0.9' } });
    expect(header(both, 'content-encoding')).toBe('br');
  });

  it('timeseries windows and their cursor pages: gzip decodes to the identity body byte for byte, same ETag', async () => {
    const vault = idsOf(ctx.world, 'visible')[0]!;
    const id = 'window-id.1';
    const base = `/v1/vaults/${vault}/timeseries?granularity=hour&limit=700`;
    const first = await rawRequest(ctx.api.base, base, { headers: { 'accept-encoding': 'identity' } });
    const next = JSON.parse(first.text).meta.next_cursor as string;
    expect(next).toEqual(expect.any(String));
    const paths = [base, `${base}&order=desc`, `${base}&next=${encodeURIComponent(next)}`, `/v1/vaults/${vault}/timeseries?granularity=day&limit=37`];
    for (const path of paths) {
      const identity = await rawRequest(ctx.api.base, path, { headers: { 'accept-encoding': 'identity', 'x-request-id': id } });
      expect(identity.status).toBe(200);
      expect(header(identity, 'content-encoding')).toBeUndefined();
      for (const accept of ['gzip', 'gzip, deflate, br, zstd', '*']) {
        const gz = await rawRequest(ctx.api.base, path, { headers: { 'accept-encoding': accept, 'x-request-id': id } });
        expect(header(gz, 'content-encoding'), `${path} ${accept}`).toBe('gzip');
        expect(header(gz, 'etag')).toBe(header(identity, 'etag'));
        expect(header(gz, 'vary')).toBe('Accept-Encoding, Authorization, X-API-Key');
        expect(header(gz, 'content-length')).toBe(String(gz.body.length));
        expect(gz.body.length).toBeLessThan(identity.body.length / 2);
        expect(gunzipSync(gz.body).equals(identity.body), path).toBe(true);
      }
      // no brotli variant of a window: a brotli-only client gets identity
      const brOnly = await rawRequest(ctx.api.base, path, { headers: { 'accept-encoding': 'br', 'x-request-id': id } });
      expect(header(brOnly, 'content-encoding')).toBeUndefined();
      expect(brOnly.body.equals(identity.body)).toBe(true);
      const head = await rawRequest(ctx.api.base, path, { method: 'HEAD', headers: { 'accept-encoding': 'gzip', 'x-request-id': id } });
      const gz = await rawRequest(ctx.api.base, path, { headers: { 'accept-encoding': 'gzip', 'x-request-id': id } });
      expect(header(head, 'content-length')).toBe(String(gz.body.length));
      const notModified = await rawRequest(ctx.api.base, path, { headers: { 'accept-encoding': 'gzip', 'if-none-match': header(identity, 'etag')! } });
      expect(notModified.status).toBe(304);
    }
  });

  it('Content-Type application/json; charset=utf-8 on JSON answers, errors included', async () => {
    for (const path of [...routes, '/health', '/health/chains', '/openapi.json', '/v1/nope', '/v1/vaults/abc', '/v1/vaults?limit=0']) {
      expect((await ctx.api.get(path)).headers.get('content-type'), path).toBe(JSON_TYPE);
    }
  });
});

describe('CORS, methods and routes', () => {
  it('Access-Control-Allow-Origin * on answers; a preflight is 204 with the rate-limit headers under /v1', async () => {
    for (const path of ['/v1/vaults', '/v1/nope', '/health']) expect((await ctx.api.get(path)).headers.get('access-control-allow-origin')).toBe('*');
    const pre = await rawRequest(ctx.api.base, '/v1/vaults', {
      method: 'OPTIONS',
      headers: { origin: 'https://example.org', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(pre.status).toBe(204);
    expect(pre.body.length).toBe(0);
    expect(header(pre, 'access-control-allow-origin')).toBe('*');
    expect(header(pre, 'access-control-allow-methods')).toMatch(/\bGET\b/);
    expect(header(pre, 'access-control-allow-headers')).toMatch(/Authorization/i);
    expect(header(pre, 'access-control-allow-headers')).toMatch(/X-API-Key/i);
    for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-ratelimit-limit']) expect(header(pre, h), h).toMatch(/^\d+$/);
  });

  it('HEAD on GET routes: the GET headers and length, no body', async () => {
    for (const path of routes) {
      const headers = { 'x-request-id': 'same-id', 'accept-encoding': 'identity' };
      const get = await rawRequest(ctx.api.base, path, { headers });
      const head = await rawRequest(ctx.api.base, path, { method: 'HEAD', headers });
      expect(head.status, path).toBe(200);
      expect(head.body.length).toBe(0);
      expect(header(head, 'content-length'), path).toBe(String(get.body.length));
      expect(header(head, 'etag')).toBe(header(get, 'etag'));
      expect(header(head, 'content-type')).toBe(JSON_TYPE);
    }
    const missing = await rawRequest(ctx.api.base, '/v1/vaults/slug/no-such-slug', { method: 'HEAD' });
    expect(missing.status).toBe(404);
    expect(missing.body.length).toBe(0);
    expect((await rawRequest(ctx.api.base, '/health', { method: 'HEAD' })).status).toBe(200);
  });

  it('error: POST, PUT, PATCH and DELETE are 405 METHOD_NOT_ALLOWED, with rate-limit headers under /v1', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      for (const path of ['/v1/vaults', `/v1/users/${ctx.world.wallets[0]}/positions`, '/v1/nope']) {
        const res = await ctx.api.get(path, { method });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.body.error).toEqual({
          code: 'METHOD_NOT_ALLOWED',
          message: `method ${method} is not allowed; this API is read-only (GET, HEAD, OPTIONS)`,
          details: { allowed: ['GET', 'HEAD', 'OPTIONS'] },
        });
        expect(res.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
        expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      }
      const health = await ctx.api.get('/health', { method });
      expect(health.status).toBe(405);
      expect(health.headers.get('ratelimit-limit')).toBeNull();
    }
  });

  it('error: unknown routes are 404 NOT_FOUND', async () => {
    for (const path of [
      '/nope',
      '/v1',
      '/v1/nope',
      '/v2/vaults',
      '/v1/vaults/x/y/z',
      `/v1/users/${ctx.world.wallets[0]}`,
      `/v1/users/${ctx.world.wallets[0]}/nope`,
      '/v1/vaults/slug/a/b',
    ]) {
      const res = await ctx.api.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
      // every /v1 answer but a 401 carries the rate-limit headers (DESIGN §5.5)
      if (path.startsWith('/v1')) expect(res.headers.get('ratelimit-remaining'), path).toMatch(/^\d+$/);
      else expect(res.headers.get('ratelimit-remaining'), path).toBeNull();
    }
    const invalid = await ctx.api.get('/v1/vaults?limit=0');
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });
});

describe('large bodies and many clients', () => {
  const big = () => `/v1/vaults/${idsOf(ctx.world, 'visible')[0]}/timeseries?granularity=hour&limit=10000`;

  it('a body over 256 KiB (streamed with tryEnd/onWritable) arrives whole', async () => {
    const res = await rawRequest(ctx.api.base, big(), { headers: { 'accept-encoding': 'identity' } });
    expect(res.body.length).toBeGreaterThan(256 * 1024);
    expect(header(res, 'content-length')).toBe(String(res.body.length));
    const body = JSON.parse(res.text);
    expect(body.data.length).toBe(body.meta.count);
    expect(body.data.length).toBeGreaterThan(1000);
  });

  it('clients that vanish or stall mid-body do not hurt the server', async () => {
    const request = `GET ${big()} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    for (let i = 0; i < 10; i++) {
      await new Promise<void>((resolve) => {
        const socket = connect(ctx.server.port, '127.0.0.1');
        socket.once('data', () => socket.destroy());
        socket.on('error', () => undefined);
        socket.on('close', () => resolve());
        socket.write(request);
      });
    }
    const stalled = connect(ctx.server.port, '127.0.0.1');
    stalled.pause();
    stalled.write(request);
    await new Promise((r) => setTimeout(r, 200));
    expect((await ctx.api.get('/health')).status).toBe(200);
    stalled.destroy();
    expect((await ctx.api.get('/v1/strategies')).status).toBe(200);
  });

  it('100 concurrent requests are all answered, each with its own request id', async () => {
    const paths = Array.from({ length: 100 }, (_, i) => routes[i % routes.length]!);
    const answers = await Promise.all(paths.map((p) => ctx.api.get(p)));
    expect(answers.map((a) => a.status)).toEqual(paths.map(() => 200));
    expect(new Set(answers.map((a) => a.headers.get('x-request-id'))).size).toBe(100);
  });
});
