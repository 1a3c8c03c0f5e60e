/// <reference lib="dom" />
// The explorer's /status page (DESIGN §11.9) in real Chromium against `vaultd serve` on the demo
// world: the configured objectives, a row per window with the figures /health/slo gives, the
// route groups' latencies, the three charts, and a refresh that brings a new reading without a
// reload; every request on the server's origin, no console errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNLIMITED, useServer } from './api/server.js';
import { launchBrowser, type Browser } from './helpers/browser.js';

const ctx = useServer('status', { ...UNLIMITED, slo: { availability: 0.995, latency_p99_ms: 80, freshness_seconds: 3600 } });
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
}, 10 * 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('/status', () => {
  it('shows the objectives beside the live figures of each window, charts them, and refreshes in place', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`${ctx.server.base}/status`);
    await page.waitForSelector('body[data-ready="true"]');

    expect(await page.textContent('table.slo caption')).toBe('Objectives: 99.5 % answered without a 5xx, p99 ≤ 80 ms, data lag ≤ 1 hour');
    const rows = await page.$$eval('table.slo tbody tr', (trs) => trs.map((tr) => Array.from(tr.children, (c) => c.textContent ?? '')));
    expect(rows.map((r) => r[0])).toEqual(['5m', '1h', '24h']);
    // the figures the server gave the page: every request so far answered without a 5xx
    const slo = await ctx.api.ok('/health/slo');
    for (const r of rows) {
      expect(Number(r[1])).toBeGreaterThan(0);
      expect(Number(r[1])).toBeLessThan(slo.windows['24h'].requests);
      expect(r[2]).toBe('100 % ✓');
      expect(r[3]).toBe('100 %');
      expect(r[4]).toBe('0');
    }
    const groups = await page.$$eval('table.slo-groups tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-group')));
    expect(groups).toEqual(['health', 'vaults', 'users', 'aggregates', 'prices', 'other']);
    const charts = await page.$$eval('figure.chart', (fs) => fs.map((f) => f.getAttribute('data-title')));
    expect(charts).toEqual(['p99 time to build a response, 5 min (ms)', 'Answered without a 5xx, 5 min (%)', 'Data lag per chain, max over 5 min (s)']);
    // the demo world's chains each have a lag line
    const chains = (await ctx.api.ok('/health/chains')) as { chain_id: number }[];
    const lagItems = await page.$$eval('figure.chart[data-title^="Data lag"] .legend-item', (is) => is.map((i) => i.getAttribute('data-series')));
    expect(lagItems).toEqual(chains.map((c) => `chain ${c.chain_id}`));

    // the next reading arrives without a reload: the health group counts the page's own calls
    const before = await page.$eval('table.slo-groups tr[data-group="health"] td', (td) => Number(td.textContent));
    await page.waitForSelector('main[data-readings="2"]');
    const after = await page.$eval('table.slo-groups tr[data-group="health"] td', (td) => Number(td.textContent));
    expect(after).toBeGreaterThan(before);
    expect(await page.$eval('figure.chart', (f) => f.getAttribute('data-points'))).toBe('2');

    expect(errors).toEqual([]);
    for (const url of requests) expect(url.startsWith(`${ctx.server.base}/`), url).toBe(true);
    await page.close();
  });
});
