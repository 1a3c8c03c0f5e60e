// The explorer's vault and wallet pages on the live feed (issue #35 item 4): on the living demo
// world (demo.hour_seconds 1) the vault page's TVL and metrics move without a reload, and what
// it shows is the vault's REST answer of the generation it was pushed with; the wallet page
// lists a pending request with its deadline and shows it turn settled without a reload, and as
// of a past instant lists the requests of then and opens no stream.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { timestamp } from '../explorer/format.js';
import { type Browser, launchBrowser } from './helpers/browser.js';
import { smallDemoDb, stopChildren, vaultd, vaultdSpawn, waitForListening } from './helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'vaultd-explorer-live-'));
let server: ChildProcess;
let base = '';
let browser: Browser;
let db = '';

beforeAll(async () => {
  db = join(dir, 'w.duckdb');
  smallDemoDb(db);
  // the tests look for their wallets over the API, beside the pages: more than 60 requests a minute
  writeFileSync(
    join(dir, 'c.json'),
    JSON.stringify({ server: { host: '127.0.0.1', port: 0 }, demo: { hour_seconds: 1 }, rate_limits: { anonymous_per_minute: 100_000 } }),
  );
  server = vaultdSpawn(['serve', '--config', join(dir, 'c.json'), '--db', db]);
  base = `http://127.0.0.1:${await waitForListening(server)}`;
  browser = await launchBrowser();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await stopChildren(server ? [server] : []);
  rmSync(dir, { recursive: true, force: true });
});

it('a vault page updates its TVL and metrics from the feed, without a reload', async () => {
  const list = (await (await fetch(`${base}/v1/vaults`)).json()) as { data: { vault_id: string }[] };
  const id = list.data[0]!.vault_id;
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  let navigations = 0;
  page.on('framenavigated', (f) => f === page.mainFrame() && navigations++);
  const sockets: string[] = [];
  page.on('websocket', (ws) => sockets.push(ws.url()));
  await page.goto(`${base}/vaults/${encodeURIComponent(id)}`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.evaluate(() => 1);
  expect(sockets).toEqual([`${base.replace('http', 'ws')}/v1/stream`]);
  const before = await page.$eval('[data-stat="as_of"]', (e) => e.textContent);
  await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
  // two pushes: the figures were replaced in place (same document: the marker is still there)
  const first = Number(await (await page.waitForFunction(() => document.querySelector('#facts')?.getAttribute('data-generation'))).jsonValue());
  await page.waitForFunction((g) => Number(document.querySelector('#facts')?.getAttribute('data-generation')) > g, first);
  expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
  expect(navigations).toBe(1);
  // what it shows is the REST answer for the metrics' instant it names
  let matched = 0;
  for (let tries = 0; tries < 20 && matched === 0; tries++) {
    const shown = await page.$eval('#facts', (e) => ({ asOf: e.getAttribute('data-as-of'), tvl: e.getAttribute('data-tvl') }));
    const rest = (await (await fetch(`${base}/v1/vaults/${id}`)).json()) as {
      data: { metrics: { as_of: number; tvl: { usd: string | null; native: string | null } } };
    };
    if (String(rest.data.metrics.as_of) !== shown.asOf) continue;
    expect(shown.tvl).toBe(rest.data.metrics.tvl.usd ?? rest.data.metrics.tvl.native);
    matched++;
  }
  expect(matched).toBe(1);
  expect(await page.$eval('[data-stat="as_of"]', (e) => e.textContent)).not.toBe(before);
  expect(errors).toEqual([]);
  await page.close();
}, 300_000);

interface Req {
  request_hash: string;
  vault_id: string;
  status: string;
  requested: { timestamp: string };
  resolved: { timestamp: string } | null;
  deadline: string | null;
}
const getJson = async <T>(path: string) => (await (await fetch(`${base}${path}`)).json()) as T;

it('a wallet page lists a pending request with its deadline and shows it turn settled, without a reload', async () => {
  // A request that will settle, not be refunded: the demo gives a request it will refund a
  // deadline at most a third of its 24–120 h wait after it (jobs/demo/simulateVault.ts terms()),
  // so a pending one whose deadline is over 41 h after it settles. The nearest deadlines first.
  const H41 = 41 * 3600_000;
  const wallets = vaultd(['wallets', '--db', db]).stdout.split('\n').filter(Boolean);
  const candidates: { w: string; r: Req }[] = [];
  for (const w of wallets)
    for (const r of (await getJson<{ data: Req[] }>(`/v1/users/${w}/requests?status=pending&include_hidden=true&limit=1000`)).data)
      if (r.deadline !== null && Date.parse(r.deadline) - Date.parse(r.requested.timestamp) > H41) candidates.push({ w, r });
  candidates.sort((a, b) => a.r.deadline!.localeCompare(b.r.deadline!));
  expect(candidates.length, 'a pending request that will settle in the demo world').toBeGreaterThan(0);

  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  let navigations = 0;
  page.on('framenavigated', (f) => f === page.mainFrame() && navigations++);
  // the first candidate still pending when its page is shown (the world moves on while it loads)
  let pick: { w: string; r: Req } | null = null;
  for (const c of candidates.slice(0, 5)) {
    navigations = 0;
    await page.goto(`${base}/wallets/${c.w}`);
    await page.waitForSelector('body[data-ready="true"]');
    const status = await page.getAttribute(`#request-table tr[data-request-hash="${c.r.request_hash}"]`, 'data-status');
    if (status === 'pending') {
      pick = c;
      break;
    }
  }
  if (pick === null) return expect.fail('every candidate request left pending before its page was shown; the world moved too fast');
  const row = `#request-table tr[data-request-hash="${pick.r.request_hash}"]`;
  // listed as pending, with its deadline through the one formatter
  expect(await page.textContent(`${row} [data-col="status"] .badge`)).toBe('pending');
  expect(await page.textContent(`${row} [data-col="deadline"] time`)).toBe(timestamp(pick.r.deadline));
  expect(await page.getAttribute(`${row} [data-col="deadline"] time`, 'datetime')).toBe(pick.r.deadline);
  expect(await page.textContent(`${row} [data-col="deadline"] .sub`)).toMatch(/ left$/);
  await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));

  // the feed turns it settled in place: same document, one navigation
  await page.waitForSelector(`${row}[data-status="settled"]`, { timeout: 280_000 });
  expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
  expect(navigations).toBe(1);
  expect(await page.textContent(`${row} [data-col="status"] .badge`)).toBe('settled');
  // as REST has it now
  const rest = (await getJson<{ data: Req[] }>(`/v1/users/${pick.w}/requests?include_hidden=true&limit=1000`)).data.find(
    (r) => r.request_hash === pick!.r.request_hash,
  )!;
  expect(rest.status).toBe('settled');
  expect(await page.textContent(`${row} [data-col="status"] .sub`)).toBe(timestamp(rest.resolved!.timestamp));
  expect(await page.getAttribute('#requests', 'data-generation')).toMatch(/^\d+$/);
  expect(errors).toEqual([]);
  await page.close();
}, 600_000);

it('a vault page as of a past instant opens no stream', async () => {
  const PAST = '2026-05-25T12:00:00Z';
  // a vault listed then (some came later)
  const list = (await (await fetch(`${base}/v1/vaults?as_of=${PAST}`)).json()) as { data: { vault_id: string }[] };
  const page = await browser.newPage();
  const sockets: string[] = [];
  page.on('websocket', (ws) => sockets.push(ws.url()));
  await page.goto(`${base}/vaults/${encodeURIComponent(list.data[0]!.vault_id)}?as_of=${PAST}`);
  await page.waitForSelector('body[data-ready="true"]');
  expect(await page.$('#facts'), 'the figures as of the instant').not.toBeNull();
  // (live, the first test sees its socket by this point: it is opened before the page is ready)
  await page.evaluate(() => 1);
  expect(sockets).toEqual([]);
  expect(await page.$eval('#facts', (e) => e.getAttribute('data-generation'))).toBeNull();
  await page.close();
}, 300_000);

it('a wallet page as of a past instant lists the requests of then and opens no stream', async () => {
  const wallets = vaultd(['wallets', '--db', db]).stdout.split('\n').filter(Boolean);
  const PAST = '2026-05-25T12:00:00Z';
  let wallet = '';
  let then: Req[] = [];
  for (const w of wallets) {
    then = (await getJson<{ data: Req[] }>(`/v1/users/${w}/requests?include_hidden=true&limit=50&as_of=${PAST}`)).data;
    if (then.some((r) => r.status === 'pending')) {
      wallet = w;
      break;
    }
  }
  expect(wallet, 'a wallet with a request pending as of the instant').not.toBe('');
  const page = await browser.newPage();
  const sockets: string[] = [];
  const asked: string[] = [];
  page.on('websocket', (ws) => sockets.push(ws.url()));
  page.on('request', (r) => asked.push(r.url()));
  await page.goto(`${base}/wallets/${wallet}?as_of=${PAST}`);
  await page.waitForSelector('body[data-ready="true"]');
  const shown = await page.$$eval('#request-table tbody tr', (trs) => trs.map((tr) => [tr.getAttribute('data-request-hash'), tr.getAttribute('data-status')]));
  expect(shown.sort()).toEqual(then.map((r) => [r.request_hash, r.status]).sort());
  const requestsAsked = asked.filter((u) => new URL(u).pathname === `/v1/users/${wallet}/requests`);
  expect(requestsAsked.length).toBe(1);
  expect(new URL(requestsAsked[0]!).searchParams.get('as_of')).toBe(PAST);
  expect(asked.filter((u) => new URL(u).pathname.startsWith('/v1/stream'))).toEqual([]);
  expect(sockets).toEqual([]);
  await page.close();
}, 300_000);
