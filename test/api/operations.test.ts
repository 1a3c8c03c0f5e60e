// Issue #38 items 6 and 7 over real HTTP: 405 answers name the allowed methods (Allow, RFC 9110
// §15.5.6); every answer says X-Content-Type-Options: nosniff; a 429 is counted under its route
// in /metrics; `server.metrics_public: false` puts /metrics behind a key; a process with no
// snapshot answers /health 503; and `eip155:{chainId}:{address}` names the same vault as
// `{chainId}:{address}` wherever a vault id is read, answers carrying the canonical form.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../common/version.js';
import { buildOpenApi } from '../../server/openapi.js';
import { HEALTH_DEGRADED } from '../../server/openapiOperations.js';
import { vaultdSpawn, waitForListening } from '../helpers/cli.js';
import { copyDb, createKey, idsOf, rawRequest, startServer, useServer, type Server } from './server.js';
import { walletFacts, type Pair } from './walletFacts.js';

const ctx = useServer('operations');
let open: Pair;
beforeAll(async () => {
  open = (await walletFacts(ctx.api, ctx.world, 10)).open[0]!;
});

describe('405 Allow and nosniff', () => {
  it('a 405 carries Allow: GET, HEAD, OPTIONS, on /v1 and outside it', async () => {
    for (const path of ['/v1/vaults', '/health', '/metrics', '/v1/nope']) {
      for (const method of ['POST', 'DELETE']) {
        const res = await ctx.api.get(path, { method });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow'), `${method} ${path}`).toBe('GET, HEAD, OPTIONS');
      }
    }
    // only a 405 names them
    expect((await ctx.api.get('/v1/vaults')).headers.get('allow')).toBeNull();
  });

  it('JSON (pages, per-request bodies, errors, 304s), the document, metrics and scripts: X-Content-Type-Options: nosniff', async () => {
    const vault = idsOf(ctx.world, 'visible')[0]!;
    const page = await ctx.api.get(`/v1/vaults/${vault}`);
    const paths = [
      '/v1/vaults',
      `/v1/vaults/${vault}/timeseries?limit=5`,
      `/v1/users/${open.wallet}/positions`,
      '/v1/nope',
      `/v1/vaults/${vault}/nope`,
      '/health',
      '/health/chains',
      '/openapi.json',
      '/metrics',
      '/client/index.js',
      '/',
    ];
    for (const path of paths) {
      const res = await rawRequest(ctx.api.base, path, { headers: { 'accept-encoding': 'gzip' } });
      expect(res.headers['x-content-type-options'], path).toBe('nosniff');
    }
    const cached = await rawRequest(ctx.api.base, `/v1/vaults/${vault}`, { headers: { 'if-none-match': page.headers.get('etag')! } });
    expect(cached.status).toBe(304);
    expect(cached.headers['x-content-type-options']).toBe('nosniff');
    const script = await rawRequest(ctx.api.base, '/client/index.js');
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });
});

describe('eip155:{chainId}:{address} (the upstream client’s form) names the same vault', () => {
  it('in every path parameter: the same status, ETag and body as the canonical id', async () => {
    const vault = idsOf(ctx.world, 'visible')[0]!;
    const same = async (canonical: string, alias: string) => {
      const headers = { 'x-request-id': 'same', 'accept-encoding': 'identity' };
      const [a, b] = await Promise.all([ctx.api.get(canonical, { headers }), ctx.api.get(alias, { headers })]);
      expect(a.status, canonical).toBe(200);
      expect(b.status, alias).toBe(200);
      expect(b.headers.get('etag'), alias).toBe(a.headers.get('etag'));
      expect(b.text, alias).toBe(a.text);
      return b.body;
    };
    const [chain, address] = vault.split(':') as [string, string];
    const upper = `eip155:${chain}:${address.toUpperCase().replace('0X', '0x')}`;
    const detail = await same(`/v1/vaults/${vault}`, `/v1/vaults/${upper}`);
    // answers carry the canonical form
    expect(detail.data.vault_id).toBe(vault);
    await same(`/v1/vaults/${vault}/definition`, `/v1/vaults/eip155:${vault}/definition`);
    await same(`/v1/vaults/${vault}/allocations`, `/v1/vaults/eip155:${vault}/allocations`);
    const series = await same(`/v1/vaults/${vault}/timeseries?limit=3`, `/v1/vaults/eip155:${vault}/timeseries?limit=3`);
    // a cursor cut on the alias walks on the canonical path (it is bound to the vault, not its spelling)
    const next = await ctx.api.get(`/v1/vaults/${vault}/timeseries?limit=3&next=${encodeURIComponent(series.meta.next_cursor)}`);
    expect(next.status).toBe(200);
    await same(`/v1/users/${open.wallet}/positions/${open.vault_id}`, `/v1/users/${open.wallet}/positions/eip155:${open.vault_id}`);
    await same(
      `/v1/users/${open.wallet}/positions/${open.vault_id}/timeseries?limit=5`,
      `/v1/users/${open.wallet}/positions/eip155:${open.vault_id}/timeseries?limit=5`,
    );
  });

  it('in the vault_id query parameter of the activity log', async () => {
    const canonical = await ctx.api.get(`/v1/users/${open.wallet}/activity?vault_id=${open.vault_id}&include_hidden=true`);
    const alias = await ctx.api.get(`/v1/users/${open.wallet}/activity?vault_id=eip155:${open.vault_id}&include_hidden=true`);
    expect(canonical.status).toBe(200);
    expect(alias.status).toBe(200);
    expect(alias.headers.get('etag')).toBe(canonical.headers.get('etag'));
    expect(alias.body.data).toEqual(canonical.body.data);
    expect(alias.body.data.length).toBeGreaterThan(0);
    for (const row of alias.body.data) expect(row.vault_id).toBe(open.vault_id);
  });

  it('error: other namespaces and malformed forms stay 422 INVALID_PARAMETER', async () => {
    const vault = idsOf(ctx.world, 'visible')[0]!;
    for (const bad of [`eip155:${vault}x`, `solana:${vault}`, `eip155:eip155:${vault}`, 'eip155:0:0x0000000000000000000000000000000000000001']) {
      const err = await ctx.api.fails(`/v1/vaults/${encodeURIComponent(bad)}`, 422, 'INVALID_PARAMETER');
      expect(err.details).toEqual({ parameter: 'vault_id' });
    }
  });

  it('the document says so: the path parameter takes both forms', () => {
    const doc = buildOpenApi() as { components: { parameters: { VaultId: { description: string; schema: { pattern: string } } } } };
    const p = doc.components.parameters.VaultId;
    expect(p.description).toContain('`eip155:{chainId}:{address}`');
    const pattern = new RegExp(p.schema.pattern);
    expect(pattern.test('eip155:1:0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458')).toBe(true);
    expect(pattern.test('1:0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458')).toBe(true);
    expect(pattern.test('eip155:0:0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458')).toBe(false);
  });
});

describe('servers with their own configuration', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    for (const s of servers) await s.stop();
  });
  /** A server of its own on a copy of the world (each server owns its file). */
  const start = async (db: string, name: string, config: object) => {
    const s = await startServer(db, { dir: ctx.world.dir, config, name });
    servers.push(s);
    return s;
  };

  it('a 429 is counted under its route in /metrics, not "unmatched"', async () => {
    const s = await start(copyDb(ctx.world, 'limited'), 'limited', { rate_limits: { anonymous_per_minute: 2 } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await s.api.get('/v1/tvl')).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
    const metrics = (await s.api.get('/metrics')).text;
    expect(metrics).toMatch(/^vaultd_http_requests_total\{route="tvl",status="429"\} 2$/m);
    expect(metrics).not.toMatch(/route="unmatched",status="429"/);
  });

  it('server.metrics_public: false puts /metrics behind a key; the default keeps it public with anonymous access off', async () => {
    const db = copyDb(ctx.world, 'keyed-metrics');
    const { secret } = createKey(db, 'prometheus');
    const keyed = await start(db, 'keyed-metrics', { auth: { anonymous: false }, server: { metrics_public: false } });
    const anonymous = await rawRequest(keyed.base, '/metrics');
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.text).error.code).toBe('UNAUTHORIZED');
    expect(JSON.parse(anonymous.text).error.message).toBe(
      '/metrics requires a credential on this server (server.metrics_public is false); pass "Authorization: Bearer <key>" or "x-api-key: <key>"',
    );
    expect((await rawRequest(keyed.base, '/metrics', { headers: { authorization: 'Bearer vk_not_a_key' } })).status).toBe(401);
    const withKey = await rawRequest(keyed.base, '/metrics', { headers: { authorization: `Bearer ${secret}` } });
    expect(withKey.status).toBe(200);
    expect(withKey.text).toContain('vaultd_http_requests_total');
    expect((await rawRequest(keyed.base, '/metrics', { headers: { 'x-api-key': secret } })).status).toBe(200);
    // the 401s are counted under the metrics route
    expect(withKey.text).toMatch(/^vaultd_http_requests_total\{route="metrics",status="401"\} 2$/m);
    // /health stays public
    expect((await rawRequest(keyed.base, '/health')).status).toBe(200);

    const closed = await start(copyDb(ctx.world, 'closed'), 'closed', { auth: { anonymous: false } });
    expect((await rawRequest(closed.base, '/v1/tvl')).status).toBe(401);
    expect((await rawRequest(closed.base, '/metrics')).status).toBe(200);
  });
});

describe('/health answers 503 when the process cannot serve its routes', () => {
  it('degraded is described in the same words in /openapi.json and the README', () => {
    const doc = buildOpenApi() as { paths: Record<string, { get: { description: string } }> };
    expect(doc.paths['/health']!.get.description).toBe(`${HEALTH_DEGRADED} Not enveloped.`);
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    expect(readme).toContain(`Health: ${HEALTH_DEGRADED}`);
  });

  it('a reader with no snapshot yet: /health 503 degraded, /v1 503 NOT_READY', async () => {
    const empty = join(ctx.world.dir, 'no-snapshot');
    mkdirSync(empty);
    const reader = vaultdSpawn(['serve', '--snapshot', empty, '--port', '0', '--host', '127.0.0.1']);
    try {
      const port = await waitForListening(reader);
      const base = `http://127.0.0.1:${port}`;
      // (the shared server, which has a snapshot, for contrast)
      expect((await ctx.api.get('/health')).status).toBe(200);
      const res = await fetch(`${base}/health`);
      expect(res.status).toBe(503);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({ status: 'degraded', version: expect.any(String), uptime_seconds: expect.any(Number) });
      const v1 = await fetch(`${base}/v1/vaults`);
      expect(v1.status).toBe(503);
      expect(((await v1.json()) as { error: { code: string } }).error.code).toBe('NOT_READY');
    } finally {
      const exited = new Promise((r) => reader.once('exit', r));
      reader.kill('SIGTERM');
      await exited;
    }
  });
});
