/// <reference lib="dom" />
// The explorer pages (/, /vaults/{id}, /wallets/{address}, /docs) in real Chromium against
// `vaultd serve` on the demo world: what they show equals what the API returns, charts have
// the API's point counts, every request stays on the server's origin, no console errors, a
// strict CSP, few requests per view, and a key unlocks them when anonymous access is off.
// VAULTD_SCREENSHOTS=dir also writes the README's screenshots there.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from './helpers/browser.js';
import { tempDir } from './helpers/common.js';
import { copyDb, createKey, startServer, useServer, type Server } from './api/server.js';

const ctx = useServer('explorer');
let browser: Browser;
let closed: Server;
let closedKey: string;
const shots = process.env.VAULTD_SCREENSHOTS ?? tempDir('vaultd-explorer-shots-');

beforeAll(async () => {
  browser = await launchBrowser();
  const db = copyDb(ctx.world, 'closed');
  closedKey = createKey(db, 'explorer').secret;
  closed = await startServer(db, { dir: ctx.world.dir, name: 'closed', config: { auth: { anonymous: false } } });
  mkdirSync(shots, { recursive: true });
}, 20 * 60_000);

afterAll(async () => {
  await browser?.close();
  await closed?.stop();
});

interface Visit {
  page: Page;
  requests: string[];
  errors: string[];
}

/** Open `path`, wait until the page script is done; every request and console error recorded. */
async function visit(base: string, path: string, width = 1200): Promise<Visit> {
  const page = await browser.newPage();
  await page.setViewportSize({ width, height: 900 });
  const v: Visit = { page, requests: [], errors: [] };
  page.on('request', (r) => v.requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') v.errors.push(m.text());
  });
  page.on('pageerror', (e) => v.errors.push(e.message));
  await page.goto(base + path);
  await page.waitForSelector('body[data-ready="true"]');
  return v;
}

function expectClean(v: Visit, base: string, maxApiCalls: number): void {
  expect(v.errors).toEqual([]);
  for (const url of v.requests) expect(url.startsWith(base + '/'), url).toBe(true);
  expect(v.requests.filter((u) => u.includes('/v1/')).length).toBeLessThanOrEqual(maxApiCalls);
}

/** The page's money format, rebuilt from the API's decimal string (cut to cents, grouped). */
function usd(v: string | null): string {
  if (v === null) return 'no USD price';
  const [int, frac = ''] = v.split('.');
  const cut = frac.slice(0, 2).replace(/0+$/, '');
  return `$${int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${cut ? `.${cut}` : ''}`;
}

describe('explorer pages', () => {
  it('/: the vault table lists every visible vault with the API TVL; a strict CSP; no other origin; narrow screens do not overflow', async () => {
    const res = await fetch(`${ctx.server.base}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'self'; script-src 'self'; style-src 'self'/);
    const api = (await ctx.api.ok('/v1/vaults?limit=1000')).data as { vault_id: string; metrics: { tvl: { usd: string | null } } }[];
    const v = await visit(ctx.server.base, '/');
    const rows = await v.page.$$eval('#vaults tbody tr', (trs) =>
      trs.map((tr) => ({ id: tr.getAttribute('data-vault-id'), tvl: tr.children[3]!.textContent })),
    );
    expect(rows.map((r) => r.id).sort()).toEqual(api.map((a) => a.vault_id).sort());
    for (const a of api) expect(rows.find((r) => r.id === a.vault_id)!.tvl, a.vault_id).toBe(usd(a.metrics.tvl.usd));
    const total = (await ctx.api.ok('/v1/tvl')).data.tvl.usd;
    expect(await v.page.textContent('#tvl h2')).toBe(`Total value locked: ${usd(total)}`);
    // the hidden toggle adds the hidden vaults
    await v.page.check('#show-hidden');
    const all = (await ctx.api.ok('/v1/vaults?limit=1000&include_hidden=true')).data.length;
    expect(await v.page.$$eval('#vaults tbody tr', (trs) => trs.length)).toBe(all);
    expectClean(v, ctx.server.base, 5);
    await v.page.close();
    const narrow = await visit(ctx.server.base, '/', 390);
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await narrow.page.close();
  });

  it('a vault page draws TVL, unit price and APY with the API series length; switching granularity refetches and redraws', async () => {
    const first = (await ctx.api.ok('/v1/vaults?limit=1')).data[0] as { vault_id: string; metrics: { tvl: { usd: string | null } } };
    const id = first.vault_id;
    const points = async (granularity: string) => {
      let n = 0;
      let next: string | null = null;
      do {
        const body: { data: unknown[]; meta: { next_cursor: string | null } } = await ctx.api.ok(
          `/v1/vaults/${id}/timeseries?granularity=${granularity}&limit=10000${next ? `&next=${next}` : ''}`,
        );
        n += body.data.length;
        next = body.meta.next_cursor;
      } while (next);
      return n;
    };
    const v = await visit(ctx.server.base, `/vaults/${encodeURIComponent(id)}`);
    const charts = () =>
      v.page.$$eval('figure.chart', (fs) =>
        fs.map((f) => ({ title: f.getAttribute('data-title'), points: Number(f.getAttribute('data-points')), canvas: f.querySelector('canvas') !== null })),
      );
    const day = await points('day');
    expect(day).toBeGreaterThan(10);
    expect((await charts()).map((c) => c.points)).toEqual([day, day, day]);
    expect((await charts()).every((c) => c.canvas)).toBe(true);
    expect(await v.page.textContent('#facts')).toContain(id);
    // a figure the API gives, shown exactly (from its decimal string)
    expect(await v.page.textContent('#facts')).toContain(usd(first.metrics.tvl.usd));
    await v.page.screenshot({ path: join(shots, 'explorer-vault.png'), fullPage: true });
    expectClean(v, ctx.server.base, 6);
    await Promise.all([v.page.waitForURL(/granularity=week/), v.page.selectOption('#granularity', 'week')]);
    await v.page.waitForSelector('body[data-ready="true"]');
    const week = await points('week');
    expect(week).toBeLessThan(day);
    expect((await charts()).map((c) => c.points)).toEqual([week, week, week]);
    expect(v.errors).toEqual([]);
    await v.page.close();
    const narrow = await visit(ctx.server.base, `/vaults/${encodeURIComponent(id)}`, 390);
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await narrow.page.close();
  });

  it('page routes are exact: other paths still get the JSON 404 envelope', async () => {
    for (const path of ['/nope', '/vaults', '/vaults/a/b', '/wallets/a/b', '/docs/x', '/index.html']) {
      await ctx.api.fails(path, 404, 'NOT_FOUND');
    }
  });

  it('a wallet page shows the positions the API returns and a chart; an unknown wallet the empty state', async () => {
    const wallet = ctx.world.wallets[0]!;
    const api = (await ctx.api.ok(`/v1/users/${wallet}/positions?include_hidden=true`)).data as { vault_id: string }[];
    expect(api.length).toBeGreaterThan(0);
    const v = await visit(ctx.server.base, `/wallets/${wallet}`);
    const shown = await v.page.$$eval('#positions tbody tr td:first-child', (tds) => tds.map((td) => td.textContent));
    expect(shown).toEqual(api.map((p) => p.vault_id));
    expect(await v.page.$$eval('figure.chart canvas', (c) => c.length)).toBe(1);
    expect(await v.page.$$eval('#flows tbody tr', (trs) => trs.length)).toBeGreaterThan(0);
    await v.page.screenshot({ path: join(shots, 'explorer-wallet.png') });
    expectClean(v, ctx.server.base, 4);
    await v.page.close();
    const narrow = await visit(ctx.server.base, `/wallets/${wallet}`, 390);
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await narrow.page.close();
    const empty = await visit(ctx.server.base, `/wallets/0x${'0'.repeat(39)}1`);
    expect(await empty.page.textContent('#empty')).toContain('No positions or activity');
    expectClean(empty, ctx.server.base, 3);
    await empty.page.close();
  });

  it('/docs lists every operation of /openapi.json and "try it" gets a 200 from /v1/vaults', async () => {
    const doc = (await ctx.api.ok('/openapi.json')) as { paths: Record<string, Record<string, { operationId: string }>> };
    const ops = Object.values(doc.paths).flatMap((p) => Object.values(p).map((o) => o.operationId));
    const v = await visit(ctx.server.base, '/docs');
    const listed = await v.page.$$eval('section.op', (ss) => ss.map((s) => s.id));
    expect(listed.sort()).toEqual(ops.sort());
    // examples are real answers of a demo world, captured at build time
    expect(await v.page.textContent('#getVault h3.example-title')).toMatch(/^Example response: GET \/v1\/vaults\/\d+:0x[0-9a-f]{40} on the demo world$/);
    const example = JSON.parse((await v.page.textContent('#getVault pre.example'))!);
    expect(example.data.vault_id).toMatch(/^\d+:0x[0-9a-f]{40}$/);
    expect(await v.page.$$eval('section.op h3', (hs) => hs.filter((h) => h.textContent!.endsWith('on the demo world')).length)).toBeGreaterThanOrEqual(15);
    // path parameters are named in the table and the form
    expect(await v.page.$$eval('#getVault form.try input[data-in="path"]', (is) => is.map((i) => i.getAttribute('name')))).toEqual(['vault_id']);
    const form = v.page.locator('form.try[data-path="/v1/vaults"]');
    await form.locator('input[name="limit"]').fill('2');
    await form.locator('button').click();
    await v.page.waitForSelector('form.try[data-path="/v1/vaults"] output[data-status]');
    expect(await form.locator('output').getAttribute('data-status')).toBe('200');
    expectClean(v, ctx.server.base, 1);
    await v.page.close();
  });

  it('with anonymous access off the page says a key is needed; given one, it works', async () => {
    const v = await visit(closed.base, '/');
    expect(await v.page.textContent('.error')).toContain('needs an API key');
    await v.page.fill('#api-key', closedKey);
    await Promise.all([v.page.waitForEvent('load'), v.page.click('#key-form button')]);
    await v.page.waitForSelector('body[data-ready="true"]');
    expect(await v.page.$$eval('#vaults tbody tr', (trs) => trs.length)).toBeGreaterThan(0);
    await v.page.close();
  });
});
