// The client SDK in a real browser: Chromium loads it from vaultd itself (/client/index.js, the
// build's ES modules) and calls the API, same-origin and from another origin (CORS preflight
// for Authorization and If-None-Match, rate-limit headers readable through Expose-Headers).
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type Browser } from '../helpers/browser.js';
import { listenOnLoopback, type Loopback } from '../helpers/loopback.js';
import { useServer } from '../api/server.js';

const ctx = useServer('client-browser');
let browser: Browser;
let otherOrigin: Loopback;

beforeAll(async () => {
  browser = await launchBrowser();
  otherOrigin = await listenOnLoopback(
    createServer((_, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>another origin</title>');
    }),
  );
}, 20 * 60_000);

afterAll(async () => {
  await browser?.close();
  await otherOrigin?.close();
});

// Written as a string: vitest rewrites `import()` in test code, and this runs in the page.
const SCRIPT = (base: string, clientOptions: string) => `(async () => {
  const m = await import(${JSON.stringify(base)} + '/client/index.js');
  const c = m.createClient(Object.assign({ baseUrl: ${JSON.stringify(base)} }, ${clientOptions}));
  const out = {};
  try {
    out.health = (await c.health()).status;
    out.vaults = [];
    for await (const v of c.iterate.vaults({ limit: 4 })) out.vaults.push(v.vault_id);
    const first = await c.withResponse.vault(out.vaults[0]);
    out.tvl = first.body.data.metrics.tvl.native;
    out.units = String(m.toBaseUnits(out.tvl, first.body.data.numeraire_token.decimals));
    out.roundTrip = m.fromBaseUnits(BigInt(out.units), first.body.data.numeraire_token.decimals);
    out.rateLimit = first.response.rateLimit;
    out.requestId = first.response.requestId;
    const again = await c.withResponse.vault(out.vaults[0]);
    out.fromCache = again.response.fromCache;
    out.status = again.response.status;
  } catch (e) {
    out.error = { name: e.name, code: e.code, status: e.status, message: e.message, requestId: e.requestId };
  }
  try {
    await c.vault('1:0x' + '0'.repeat(40));
  } catch (e) {
    out.notFound = { name: e.name, code: e.code, status: e.status, isApiError: e instanceof m.VaultdApiError };
  }
  return out;
})()`;

describe('client SDK in Chromium, served by vaultd', () => {
  it('vaultd serves the built client as JavaScript, compressed when large', async () => {
    const res = await fetch(`${ctx.server.base}/client/createClient.js`, { headers: { 'Accept-Encoding': 'br' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(await res.text()).toContain('export function createClient');
    const again = await fetch(`${ctx.server.base}/client/createClient.js`, { headers: { 'If-None-Match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('same origin: import, calls, an iterator, exact amounts, the ETag cache, a typed error', async () => {
    const page = await browser.newPage();
    await page.goto(`${ctx.server.base}/health`);
    const out: any = await page.evaluate(SCRIPT(ctx.server.base, '{ etagCache: true }'));
    await page.close();
    expect(out.error).toBeUndefined();
    const vaults = (await ctx.api.ok('/v1/vaults')).data.map((v: { vault_id: string }) => v.vault_id);
    expect(out).toMatchObject({ health: 'ok', vaults, fromCache: true, status: 304 });
    expect(out.roundTrip).toBe(out.tvl);
    expect(out.rateLimit).toEqual({ limit: 1_000_000, remaining: expect.any(Number), reset: expect.any(Number) });
    expect(out.notFound).toEqual({ name: 'VaultdApiError', code: 'NOT_FOUND', status: 404, isApiError: true });
  });

  it('another origin: CORS lets the module load and the calls through; a bad key is a typed 401', async () => {
    const page = await browser.newPage();
    await page.goto(otherOrigin.url);
    const out: any = await page.evaluate(SCRIPT(ctx.server.base, '{ etagCache: true }'));
    expect(out.error).toBeUndefined();
    expect(out).toMatchObject({ health: 'ok', fromCache: true, requestId: expect.any(String) });
    expect(out.rateLimit?.limit).toBe(1_000_000);
    // Chromium's HTTP cache holds the anonymous bodies of a moment ago (public, max-age); /v1
    // answers vary on the credential headers, so the key's requests are not answered from it.
    const denied: any = await page.evaluate(SCRIPT(ctx.server.base, "{ apiKey: 'not-a-key' }"));
    await page.close();
    expect(denied.health).toBe('ok'); // /health needs no credential
    expect(denied.error).toMatchObject({ name: 'VaultdApiError', code: 'UNAUTHORIZED', status: 401 });
  });
});
