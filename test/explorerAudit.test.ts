/// <reference lib="dom" />
// The explorer's audit detail (issue #36, DESIGN §11.2–§11.5) in real Chromium against `vaultd
// serve` on the pinned demo world: the vault page's APY provenance table shows the API's
// `/apy` windows cell for cell, its charts shade exactly the stretches the API flags
// (the demo world's missed snapshots and its price-feed gap), and the wallet page shows each
// position's FIFO lots (their open shares summing to the position's shares) and TWR beside MWR
// as the API has them, through the explorer's formatter. The API is read here independently.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duration, percent, percentOf, timestamp } from '../explorer/format.js';
import { useServer } from './api/server.js';
import { sumDecimals } from './helpers/decimalSum.js';
import { launchBrowser, openPage, type Browser } from './helpers/browser.js';

const ctx = useServer('explorer-audit');
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
}, 10 * 60_000);

afterAll(async () => {
  await browser?.close();
});

const visit = (path: string, ready?: string) => openPage(browser, ctx.server.base + path, ready);

/** Every page of a cursor list from the API. */
async function walk(path: string): Promise<any[]> {
  const out: any[] = [];
  let next: string | null = null;
  do {
    const body: any = await ctx.api.ok(`${path}${next ? `&next=${encodeURIComponent(next)}` : ''}`);
    out.push(...body.data);
    next = body.meta.next_cursor;
  } while (next);
  return out;
}

describe('vault page: APY provenance and quality on the charts', () => {
  it('the provenance table shows every window of /apy: APY, start and end snapshot, elapsed, points, method, reason', async () => {
    const vaults = (await ctx.api.ok('/v1/vaults?limit=1000')).data as any[];
    // one vault with every window computed and one still warming up (the young vault)
    const full = vaults.find((x) => x.metrics.apy_90d !== null)!;
    const young = vaults.find((x) => x.metrics.as_of !== null && x.metrics.apy_90d === null)!;
    for (const vault of [full, young]) {
      const apy = (await ctx.api.ok(`/v1/vaults/${vault.vault_id}/apy`)).data;
      const v = await visit(`/vaults/${encodeURIComponent(vault.vault_id)}`);
      const rows = await v.page.$$eval('#apy-provenance tbody tr', (trs) =>
        trs.map((tr) => {
          const cell = (c: string) => tr.querySelector(`td[data-col="${c}"]`)!;
          const snap = (c: string) => {
            const td = cell(c);
            const f = (k: string) => td.querySelector(`[data-field="${k}"]`)?.textContent ?? null;
            return { timestamp: f('timestamp'), block: f('block'), unit_price: f('unit_price'), text: td.textContent };
          };
          return {
            window: tr.getAttribute('data-window'),
            apy: cell('apy').textContent,
            start: snap('start'),
            end: snap('end'),
            elapsed: cell('elapsed').textContent,
            elapsedTitle: cell('elapsed').getAttribute('title'),
            points: cell('points').textContent,
            method: cell('method').textContent,
            reason: cell('reason').textContent,
          };
        }),
      );
      expect(rows.map((r) => r.window)).toEqual(apy.windows.map((w: any) => w.window));
      for (const [i, w] of apy.windows.entries()) {
        const r = rows[i]!;
        expect(r.apy, w.window).toBe(percent(w.apy));
        // metrics.apy_<N>d is the APY the provenance explains
        expect(w.apy).toBe(vault.metrics[`apy_${w.window}`]);
        expect(r.end).toMatchObject({ timestamp: timestamp(w.end.timestamp), block: String(w.end.block_number), unit_price: w.end.unit_price });
        if (w.start === null) expect(r.start.text).toBe('—');
        else expect(r.start).toMatchObject({ timestamp: timestamp(w.start.timestamp), block: String(w.start.block_number), unit_price: w.start.unit_price });
        expect(r.elapsed).toBe(duration(w.elapsed_seconds));
        expect(r.elapsedTitle).toBe(w.elapsed_seconds === null ? '' : `${w.elapsed_seconds} s`);
        expect(r.points).toBe(w.points === null ? '—' : String(w.points));
        expect(r.method).toBe(w.method);
        expect(r.reason === '—').toBe(w.reason === null);
      }
      if (vault === young) expect(rows.some((r) => r.reason!.startsWith('warming up'))).toBe(true);
      expect(v.errors).toEqual([]);
      await v.page.close();
    }
  });

  it('each chart shades exactly the stretches the API flags: the missed snapshots (carried) and the price-feed gap (unpriced, stale price)', async () => {
    const vaults = (await ctx.api.ok('/v1/vaults?limit=1000')).data as any[];
    const seen = new Set<string>();
    for (const vault of vaults.filter((x) => x.metrics.as_of !== null)) {
      const points = await walk(`/v1/vaults/${vault.vault_id}/timeseries?granularity=day&limit=10000&include=quality`);
      const has = (p: any, ...flags: string[]) => p.quality.flags.some((f: string) => flags.includes(f));
      // the runs of flagged points, as [first timestamp, last timestamp]
      const runs = (...flags: string[]) => {
        const out: [string, string][] = [];
        points.forEach((p, i) => {
          if (!has(p, ...flags)) return;
          if (i > 0 && has(points[i - 1], ...flags)) out.at(-1)![1] = p.timestamp;
          else out.push([p.timestamp, p.timestamp]);
        });
        return out;
      };
      const carried = runs('carried', 'stale_snapshot');
      const unpriced = runs('unpriced');
      const allUnpriced = unpriced.length === 1 && unpriced[0]![0] === points[0].timestamp && unpriced[0]![1] === points.at(-1).timestamp;
      if (carried.length === 0 && (unpriced.length === 0 || allUnpriced)) continue;
      const v = await visit(`/vaults/${encodeURIComponent(vault.vault_id)}`);
      const figures = await v.page.$$eval('figure.chart', (fs) =>
        fs.map((f) =>
          Array.from(f.querySelectorAll('.u-over .quality-band'), (b) => {
            const box = b.getBoundingClientRect();
            return {
              kind: b.getAttribute('data-kind'),
              from: b.getAttribute('data-from'),
              to: b.getAttribute('data-to'),
              width: box.width,
              height: box.height,
            };
          }),
        ),
      );
      expect(figures.length).toBe(3);
      for (const bands of figures) {
        const of = (kind: string) => bands.filter((b) => b.kind === kind).map((b) => [b.from, b.to]);
        expect(of('carried'), vault.vault_id).toEqual(carried);
        expect(of('unpriced'), vault.vault_id).toEqual(allUnpriced ? [] : unpriced);
        expect(of('stale_price'), vault.vault_id).toEqual(runs('stale_price'));
        // shown: every band has an area on the plot
        for (const b of bands) expect(b.width * b.height, `${vault.vault_id} ${b.kind} ${b.from}`).toBeGreaterThan(0);
        for (const b of bands) seen.add(b.kind!);
      }
      expect(await v.page.$$eval('.quality-note', (ns) => ns.length)).toBe(3);
      expect(v.errors).toEqual([]);
      await v.page.close();
    }
    // the demo world has both: a missed snapshot stretch and a price-feed gap
    expect(seen).toContain('carried');
    expect(seen).toContain('unpriced');
  });
});

describe('wallet page: FIFO lots and TWR beside MWR', () => {
  it('for the first positions: the returns as the API has them through the formatter, the lots listed with open shares summing to the position', async () => {
    const wallet = ctx.world.wallets[0]!;
    const positions = (await ctx.api.ok(`/v1/users/${wallet}/positions?include_hidden=true&limit=500&include=returns`)).data as any[];
    expect(positions.length).toBeGreaterThan(1);
    const v = await visit(`/wallets/${wallet}`, 'body[data-audit-ready]');
    const options = await v.page.$$eval('#audit-select option', (os) => os.map((o) => (o as HTMLOptionElement).value));
    expect([...options].sort()).toEqual(positions.map((p) => p.vault_id).sort());
    for (const id of options.slice(0, 3)) {
      if (id !== options[0]) {
        await v.page.selectOption('#audit-select', id);
        await v.page.waitForSelector(`body[data-audit-ready="${id}"]`);
      }
      const p = positions.find((x) => x.vault_id === id)!;
      const r = p.returns;
      const leg = (stat: string, l: string) => v.page.textContent(`#returns [data-stat="${stat}"] [data-leg="${l}"]`);
      const sym = p.numeraire_token?.symbol ?? 'token';
      for (const [stat, key] of [
        ['twr', 'twr_pct'],
        ['twr_annualized', 'twr_annualized_pct'],
        ['mwr_annualized', 'mwr_annualized_pct'],
      ] as const) {
        expect(await leg(stat, 'usd'), `${id} ${stat}`).toBe(percentOf(r[key].usd));
        expect(await leg(stat, 'native'), `${id} ${stat}`).toBe(`${percentOf(r[key].native)} in ${sym}`);
      }
      // TWR is the position's ROI (§11.5)
      expect(r.twr_pct).toEqual(p.metrics.roi_pct);
      const lots = await walk(`/v1/users/${wallet}/positions/${id}/lots?limit=500`);
      const shown = await v.page.$$eval('#lots tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-lot-id')));
      expect([...shown].sort()).toEqual(lots.map((l) => l.lot_id).sort());
      const open = sumDecimals(lots.map((l) => l.shares_open));
      expect(await v.page.textContent('#lots-open')).toBe(open);
      // Σ shares_open = shares owned + shares escrowed in redemption requests (§11.4)
      expect(open).toBe(sumDecimals([p.metrics.shares_owned, p.metrics.pending_redeem_shares]));
      // each row's open shares are the lot's, exactly (in the cell's title)
      const titles = await v.page.$$eval('#lots tbody tr', (trs) =>
        Object.fromEntries(trs.map((tr) => [tr.getAttribute('data-lot-id'), tr.querySelector('td[data-col="shares_open"] [title]')?.getAttribute('title')])),
      );
      for (const l of lots) expect(titles[l.lot_id]).toBe(l.shares_open);
    }
    expect(v.errors).toEqual([]);
    await v.page.close();
  });
});
