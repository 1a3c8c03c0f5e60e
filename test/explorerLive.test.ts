// The explorer's vault page on the live feed (issue #35 item 4): on the living demo world
// (demo.hour_seconds 1) its TVL and metrics move without a reload, and what it shows is the
// vault's REST answer of the generation it was pushed with.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Browser, launchBrowser } from './helpers/browser.js';
import { smallDemoDb, stopChildren, vaultdSpawn, waitForListening } from './helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'vaultd-explorer-live-'));
let server: ChildProcess;
let base = '';
let browser: Browser;

beforeAll(async () => {
  const db = join(dir, 'w.duckdb');
  smallDemoDb(db);
  writeFileSync(join(dir, 'c.json'), JSON.stringify({ server: { host: '127.0.0.1', port: 0 }, demo: { hour_seconds: 1 } }));
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
  await page.goto(`${base}/vaults/${encodeURIComponent(id)}`);
  await page.waitForSelector('body[data-ready="true"]');
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
