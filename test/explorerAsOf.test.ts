/// <reference lib="dom" />
// The explorer's "as of" picker (DESIGN §11.6) in real Chromium against `vaultd serve` on the
// demo world: choosing an instant on the vault and the wallet page puts it in the URL, and the
// figures shown then equal the API's answer with that `as_of` (read here, independently of the
// page, and put through the one formatter); the URL alone shows the same (shareable); "Live"
// drops it and the live figures come back.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percent, usd } from '../explorer/format.js';
import { useServer } from './api/server.js';
import { sumDecimals } from './helpers/decimalSum.js';
import { launchBrowser, openPage, type Browser } from './helpers/browser.js';

const ctx = useServer('explorer-asof');
let browser: Browser;

/** A past instant of the pinned world (mid-hour), as typed into the picker and as the API echoes it. */
const TYPED = '2026-04-10T12:30';
const PAST = '2026-04-10T12:30:00Z';
const IN_URL = /[?&]as_of=2026-04-10T12%3A30%3A00Z(&|$)/;

beforeAll(async () => {
  browser = await launchBrowser();
}, 10 * 60_000);

afterAll(async () => {
  await browser?.close();
});

const open = (path: string) => openPage(browser, ctx.server.base + path);

/** Type an instant into the picker and show it: the page loads again with it in the URL. */
async function pick(page: Page, typed: string): Promise<void> {
  await page.fill('#as-of-input', typed);
  await Promise.all([page.waitForURL(IN_URL), page.click('#as-of button[type="submit"]')]);
  await page.waitForSelector('body[data-ready="true"]');
}

async function goLive(page: Page): Promise<void> {
  await Promise.all([page.waitForURL((u) => !u.searchParams.has('as_of')), page.click('#as-of-live')]);
  await page.waitForSelector('body[data-ready="true"]');
}

interface Metrics {
  tvl: { usd: string | null };
  apy_7d: number | null;
  apy_30d: number | null;
}

describe('vault page', () => {
  const facts = async (page: Page) => ({
    tvl: await page.textContent('#facts [data-stat="tvl"] .big'),
    apy_7d: await page.textContent('#facts [data-stat="apy_7d"] dd'),
    apy_30d: await page.textContent('#facts [data-stat="apy_30d"] dd'),
  });
  const expected = (m: Metrics) => ({ tvl: usd(m.tvl.usd!), apy_7d: percent(m.apy_7d), apy_30d: percent(m.apy_30d) });
  const points = async (page: Page) => Number(await page.getAttribute('figure.chart', 'data-points'));

  it('picking an instant shows the API figures as of it, the URL keeps it, Live brings the live ones back', async () => {
    const vaults = (await ctx.api.ok(`/v1/vaults?as_of=${PAST}`)).data as { vault_id: string; metrics: Metrics }[];
    const id = vaults.find((v) => v.metrics.tvl.usd !== null && v.metrics.apy_7d !== null)!.vault_id;
    const past = (await ctx.api.ok(`/v1/vaults/${id}?as_of=${PAST}`)).data.metrics as Metrics;
    const live = (await ctx.api.ok(`/v1/vaults/${id}`)).data.metrics as Metrics;
    expect(past.tvl.usd, 'the past differs from today (else the test proves nothing)').not.toBe(live.tvl.usd);
    const pastPoints = (await ctx.api.ok(`/v1/vaults/${id}/timeseries?granularity=day&limit=10000&as_of=${PAST}`)).data.length;
    const livePoints = (await ctx.api.ok(`/v1/vaults/${id}/timeseries?granularity=day&limit=10000`)).data.length;
    expect(pastPoints).toBeLessThan(livePoints);

    const o = await open(`/vaults/${encodeURIComponent(id)}`);
    expect(await facts(o.page)).toEqual(expected(live));
    expect(await o.page.isDisabled('#as-of-live')).toBe(true);
    expect(await o.page.$('#as-of-note')).toBeNull();

    const before = o.requests.length;
    await pick(o.page, TYPED);
    expect(await facts(o.page)).toEqual(expected(past));
    expect(await points(o.page)).toBe(pastPoints);
    expect(await o.page.inputValue('#as-of-input')).toBe(TYPED);
    expect(await o.page.textContent('#as-of-note')).toContain('2026-04-10 12:30 UTC');
    // every request about this vault carried the instant
    const asked = o.requests.slice(before).filter((u) => decodeURIComponent(new URL(u).pathname).startsWith(`/v1/vaults/${id}`));
    expect(asked.length).toBeGreaterThanOrEqual(4); // detail, definition, allocations, timeseries
    // (the APY provenance takes the instant as `at`)
    for (const u of asked) expect(new URL(u).searchParams.get(new URL(u).pathname.endsWith('/apy') ? 'at' : 'as_of'), u).toBe(PAST);
    // the range form keeps the instant
    await Promise.all([o.page.waitForURL(IN_URL), o.page.selectOption('#granularity', 'week')]);
    await o.page.waitForSelector('body[data-ready="true"]');
    expect(await facts(o.page)).toEqual(expected(past));
    const pastWeeks = (await ctx.api.ok(`/v1/vaults/${id}/timeseries?granularity=week&limit=10000&as_of=${PAST}`)).data.length;
    expect(await points(o.page)).toBe(pastWeeks);

    await goLive(o.page);
    expect(await facts(o.page)).toEqual(expected(live));
    expect(await o.page.$('#as-of-note')).toBeNull();
    expect(o.errors).toEqual([]);
    await o.page.close();

    // shareable: the URL alone shows the same past
    const shared = await open(`/vaults/${encodeURIComponent(id)}?as_of=${PAST}`);
    expect(await facts(shared.page)).toEqual(expected(past));
    expect(await points(shared.page)).toBe(pastPoints);
    expect(shared.errors).toEqual([]);
    await shared.page.close();
  });
});

describe('wallet page', () => {
  interface ApiPosition {
    vault_id: string;
    metrics: { value: { usd: string | null }; cost_basis: { usd: string | null }; pnl: { total: { usd: string | null } } };
  }
  const summary = async (page: Page) => ({
    value: await page.textContent('#portfolio [data-stat="value"] .big'),
    cost_basis: await page.textContent('#portfolio [data-stat="cost_basis"] .big'),
    pnl: await page.textContent('#portfolio [data-stat="pnl"] .big'),
    positions: await page.textContent('#portfolio [data-stat="positions"] dd'),
  });
  const expected = (positions: ApiPosition[]) => {
    const legs = (f: (p: ApiPosition) => string | null) => positions.map(f).filter((x): x is string => x !== null);
    return {
      value: usd(sumDecimals(legs((p) => p.metrics.value.usd))),
      cost_basis: usd(sumDecimals(legs((p) => p.metrics.cost_basis.usd))),
      pnl: usd(sumDecimals(legs((p) => p.metrics.pnl.total.usd))),
      positions: String(positions.length),
    };
  };
  const rows = (page: Page) => page.$$eval('#positions tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-vault-id')).sort());

  it('picking an instant shows the positions and totals the API answers as of it; Live brings today back', async () => {
    const wallet = ctx.world.wallets[0]!;
    const past = (await ctx.api.ok(`/v1/users/${wallet}/positions?include_hidden=true&limit=500&as_of=${PAST}`)).data as ApiPosition[];
    const live = (await ctx.api.ok(`/v1/users/${wallet}/positions?include_hidden=true&limit=500`)).data as ApiPosition[];
    expect(past.length).toBeGreaterThan(0);
    expect(expected(past), 'the past differs from today').not.toEqual(expected(live));

    const o = await open(`/wallets/${wallet}`);
    expect(await summary(o.page)).toEqual(expected(live));
    const before = o.requests.length;
    await pick(o.page, TYPED);
    expect(await summary(o.page)).toEqual(expected(past));
    expect(await rows(o.page)).toEqual(past.map((p) => p.vault_id).sort());
    const asked = o.requests.slice(before).filter((u) => new URL(u).pathname.startsWith(`/v1/users/${wallet}`));
    expect(asked.length).toBeGreaterThanOrEqual(3); // positions, activity, a position's series
    for (const u of asked) expect(new URL(u).searchParams.get('as_of'), u).toBe(PAST);
    // the newest flow shown is not after the instant
    const activity = (await ctx.api.ok(`/v1/users/${wallet}/activity?include_hidden=true&limit=1&as_of=${PAST}`)).data as { block_timestamp: number }[];
    expect(activity[0]!.block_timestamp).toBeLessThanOrEqual(Date.parse(PAST) / 1000);
    // the links to a vault keep the instant
    const href = await o.page.getAttribute('#positions tbody tr .vault-name a', 'href');
    expect(href).toContain(`as_of=${PAST}`);

    await goLive(o.page);
    expect(await summary(o.page)).toEqual(expected(live));
    expect(o.errors).toEqual([]);
    await o.page.close();
  });
});
