// Authentication and rate limits (DESIGN §5.5, §5.3) on three servers over copies of one
// world: default settings, low limits, and anonymous access off.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vaultd } from '../helpers/cli.js';
import { buildWorld, copyDb, createKey, startServer, type Res, type Server, type World } from './server.js';

const RATE_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
let world: World;
let plain: Server; // defaults: anonymous on, 60/min anonymous, 600/min keyed
let low: Server; // 5/min anonymous, 8/min keyed
let closed: Server; // anonymous off
let lowKey: string;
let closedKey: string;

beforeAll(async () => {
  world = await buildWorld('auth');
  const lowDb = copyDb(world, 'low');
  const closedDb = copyDb(world, 'closed');
  lowKey = createKey(lowDb, 'low tier').secret;
  closedKey = createKey(closedDb, 'closed tier').secret;
  [plain, low, closed] = await Promise.all([
    startServer(world.db, { dir: world.dir, name: 'plain' }),
    startServer(lowDb, { dir: world.dir, name: 'low', config: { rate_limits: { anonymous_per_minute: 5, keyed_per_minute: 8 } } }),
    startServer(closedDb, { dir: world.dir, name: 'closed', config: { auth: { anonymous: false } } }),
  ]);
});

afterAll(async () => {
  try {
    await Promise.all([plain, low, closed].map((s) => s?.stop()));
  } finally {
    if (world) rmSync(world.dir, { recursive: true, force: true });
  }
});

function rateHeaders(res: Res): Record<string, string | null> {
  return Object.fromEntries(RATE_HEADERS.map((h) => [h, res.headers.get(h)]));
}

function expectRateHeaders(res: Res, limit: number): void {
  const h = rateHeaders(res);
  expect(h['ratelimit-limit']).toBe(String(limit));
  for (const name of ['limit', 'remaining', 'reset']) {
    expect(h[`ratelimit-${name}`], name).toMatch(/^\d+$/);
    expect(h[`x-ratelimit-${name}`], name).toBe(h[`ratelimit-${name}`]);
  }
}

function expectNoRateHeaders(res: Res): void {
  for (const [name, value] of Object.entries(rateHeaders(res))) expect(value, name).toBeNull();
}

describe('credentials', () => {
  it('no credential: anonymous 200 with RateLimit-* and X-RateLimit-* of the anonymous tier', async () => {
    const res = await plain.api.get('/v1/vaults?limit=1');
    expect(res.status).toBe(200);
    expectRateHeaders(res, 60);
  });

  it('error: a bad credential is 401 UNAUTHORIZED with no rate-limit headers, though anonymous is on', async () => {
    const bad: Record<string, string>[] = [
      { authorization: 'Bearer vk_notakeyatall' },
      { 'x-api-key': 'vk_notakeyatall' },
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 'Bearer' },
      { authorization: 'Bearer a b' },
      { authorization: `Bearer ${'x'.repeat(600)}` },
    ];
    for (const headers of bad) {
      const res = await plain.api.get('/v1/vaults?limit=1', { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body.error).toEqual({
        code: 'UNAUTHORIZED',
        message: 'the credential is unknown or revoked; pass a valid key as "Authorization: Bearer <key>" or "x-api-key: <key>"',
      });
      expectNoRateHeaders(res);
      expect(res.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._-]+$/);
    }
    // outside /v1 no credential is checked at all
    expect((await plain.api.get('/health', { headers: bad[0] })).status).toBe(200);
  });

  it('a created key works as Bearer and as x-api-key, on the keyed tier; revoked, it is 401', async () => {
    const { id, secret } = createKey(world.db, 'e2e bot');
    // at once: the first request after `keys create` returns (no polling)
    expect((await plain.api.get('/v1/vaults?limit=1', { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200);
    const ways: Record<string, string>[] = [
      { authorization: `Bearer ${secret}` },
      { 'x-api-key': secret },
      { authorization: `bearer ${secret}`, 'x-api-key': secret },
    ];
    for (const headers of ways) {
      const res = await plain.api.get('/v1/tvl', { headers });
      expect(res.status, JSON.stringify(Object.keys(headers))).toBe(200);
      expectRateHeaders(res, 600);
    }
    const mixed = await plain.api.get('/v1/tvl', { headers: { authorization: `Bearer ${secret}`, 'x-api-key': 'vk_other' } });
    expect(mixed.status).toBe(401);
    const revoked = vaultd(['keys', 'revoke', id, '--db', world.db]);
    expect(revoked.status).toBe(0);
    expect((await plain.api.get('/v1/vaults?limit=1', { headers: { 'x-api-key': secret } })).status).toBe(401);
    const res = await plain.api.get('/v1/vaults?limit=1', { headers: { authorization: `Bearer ${secret}` } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
    expectNoRateHeaders(res);
  });
});

describe('rate limits', () => {
  it('error: over the anonymous budget is 429 RATE_LIMITED with Retry-After; the keyed tier has its own budget', async () => {
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await low.api.get('/v1/strategies');
      expect(res.status, `request ${i + 1}`).toBe(200);
      expectRateHeaders(res, 5);
      remaining.push(res.headers.get('ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const limited = await low.api.get('/v1/strategies');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expectRateHeaders(limited, 5);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    // every /v1 route shares the caller's budget; health is not limited
    expect((await low.api.get('/v1/vaults/featured')).status).toBe(429);
    expect((await low.api.get('/health')).status).toBe(200);
    // unknown paths outside /v1 are not free either: the same budget is spent
    const junk = await low.api.get(`/junk-${'x'.repeat(3000)}`);
    expect(junk.status).toBe(429);
    expect(junk.body.error.code).toBe('RATE_LIMITED');

    for (let i = 0; i < 8; i++) {
      const res = await low.api.get('/v1/strategies', { headers: { authorization: `Bearer ${lowKey}` } });
      expect(res.status, `keyed request ${i + 1}`).toBe(200);
      expectRateHeaders(res, 8);
    }
    const keyedLimited = await low.api.get('/v1/strategies', { headers: { 'x-api-key': lowKey } });
    expect(keyedLimited.status).toBe(429);
    expect(keyedLimited.body.error.code).toBe('RATE_LIMITED');
    expect(keyedLimited.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expectRateHeaders(keyedLimited, 8);
  });
});

describe('weighted costs', () => {
  it('a position timeseries (replayed per request) spends 10 tokens: one key gets 60 a minute, then 429', async () => {
    const { secret } = createKey(world.db, 'series bot');
    const wallet = world.wallets[0]!;
    const [position] = (await plain.api.ok(`/v1/users/${wallet}/positions`)).data;
    const path = `/v1/users/${wallet}/positions/${position.vault_id}/timeseries?granularity=day`;
    const headers = { authorization: `Bearer ${secret}` };
    // The key refills 600/min, one token per 100 ms: between two requests' takes it regains at
    // most (time from the first's send to the second's answer) / 100 ms tokens, plus one for
    // rounding. Bounds from measured times, so a loaded machine cannot make this flaky.
    const refillBound = (ms: number) => Math.ceil(ms / 100) + 1;
    let previous: { remaining: number; sent: number } | null = null;
    let allowed = 0;
    const t0 = performance.now();
    let refused: Awaited<ReturnType<typeof plain.api.get>> | null = null;
    for (let i = 0; i < 200 && refused === null; i++) {
      const sent = performance.now();
      const res = await plain.api.get(path, { headers });
      if (res.status === 429) {
        refused = res;
        break;
      }
      expect(res.status, `request ${i + 1}`).toBe(200);
      allowed++;
      const remaining = Number(res.headers.get('ratelimit-remaining'));
      if (previous === null)
        expect(remaining).toBe(590); // a fresh bucket: 600 − 10
      else {
        expect(remaining).toBeLessThanOrEqual(previous.remaining - 10 + refillBound(performance.now() - previous.sent));
        expect(remaining).toBeGreaterThanOrEqual(previous.remaining - 10);
      }
      previous = { remaining, sent };
    }
    expect(refused?.status).toBe(429);
    // 600 tokens buy 60 requests, and whatever refilled meanwhile at most a tenth as many more
    expect(allowed).toBeGreaterThanOrEqual(60);
    expect(allowed).toBeLessThanOrEqual(60 + Math.ceil(refillBound(performance.now() - t0) / 10));
    // a cheap route still has its single token's worth only once the bucket refills: same budget
    expect(refused!.headers.get('ratelimit-remaining')).toMatch(/^\d$/);
  });
});

describe('request targets', () => {
  it('error: a target over 8 KiB is 414 URI_TOO_LONG at once, on /v1 and elsewhere', async () => {
    for (const path of [`/v1/vaults?x=${'a'.repeat(9000)}`, `/${'b'.repeat(9000)}`]) {
      const res = await plain.api.get(path);
      expect(res.status, path.slice(0, 10)).toBe(414);
      expect(res.body.error).toEqual({ code: 'URI_TOO_LONG', message: expect.stringMatching(/^the request target is \d+ bytes; the limit is 8192$/) });
    }
  });

  it('unknown paths outside /v1 count against the anonymous budget; known ones (health, document) do not', async () => {
    const seen: number[] = [];
    for (let i = 0; i < 7; i++) seen.push((await low.api.get(`/unique-${i}-${'y'.repeat(2000)}`)).status);
    expect(seen.at(-1)).toBe(429);
    expect(seen.filter((s) => s !== 404 && s !== 429)).toEqual([]);
    expect((await low.api.get('/health')).status).toBe(200);
    expect((await low.api.get('/openapi.json')).status).toBe(200);
  });
});

describe('anonymous access off', () => {
  it('error: no credential is 401 on /v1, without rate-limit headers', async () => {
    for (const path of ['/v1/vaults', '/v1/tvl', `/v1/users/${world.wallets[0]}/positions`, '/v1/no-such-route']) {
      const res = await closed.api.get(path);
      expect(res.status, path).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
      expectNoRateHeaders(res);
    }
  });

  it("a browser's preflight (no credential) is answered before auth: 204 with CORS, not 401", async () => {
    const res = await closed.api.get('/v1/vaults', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    expectRateHeaders(res, 60);
  });

  it('health, chains, metrics and the document need no credential', async () => {
    for (const path of ['/health', '/health/chains', '/openapi.json', '/metrics']) expect((await closed.api.get(path)).status, path).toBe(200);
  });

  it('a key still works', async () => {
    const res = await closed.api.get('/v1/vaults?limit=1', { headers: { 'x-api-key': closedKey } });
    expect(res.status).toBe(200);
    expectRateHeaders(res, 600);
  });
});
