// Opt-in audit detail over HTTP (DESIGN §11.1–§11.5), on the pinned demo world: plain answers
// stay byte-identical, APY provenance recomputes to the published APY, quality flags equal a
// row-by-row scan of the plain points and the price feed, FIFO lots hold their invariants on
// every wallet, returns equal an IRR by bisection over the activity log. Every body is checked
// against /openapi.json by the api helper.
import { beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from './format.js';
import { UNKNOWN_WALLET, useServer } from './server.js';
import { walletFacts, type ActivityRow, type WalletFacts } from './walletFacts.js';

const ctx = useServer('audit');
let facts: WalletFacts;
let vaults: any[];
beforeAll(async () => {
  facts = await walletFacts(ctx.api, ctx.world);
  vaults = (await ctx.api.ok('/v1/vaults?include_hidden=true')).data;
});

const HOUR = 3600;
const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
const unix = (t: string) => Date.parse(t) / 1000;
const sum = (xs: string[]) => xs.reduce((s, x) => s.plus(x), new Decimal(0));

/** GET with the raw text: the body without its request id, and the ETag. */
async function raw(path: string): Promise<{ status: number; body: string; etag: string | null }> {
  const res = await ctx.api.get(path);
  return { status: res.status, body: res.text.replace(/"request_id":"[^"]*"/, ''), etag: res.headers.get('etag') };
}

/** Every page of a cursor list. */
async function walk(path: string): Promise<any[]> {
  const out: any[] = [];
  let next: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const body: any = await ctx.api.ok(`${path}${next ? `${sep}next=${encodeURIComponent(next)}` : ''}`);
    out.push(...body.data);
    next = body.meta.next_cursor;
  } while (next);
  return out;
}

describe('include (DESIGN §11.1)', () => {
  it('an absent or empty include (and the default cost basis method) answers byte for byte the same, ETag included, on every route', async () => {
    const wallet = facts.open[0]!.wallet;
    const vault = facts.open[0]!.vault_id;
    const exited = facts.exited[0]!;
    const v = vaults[0];
    const slug = (await ctx.api.ok('/v1/vaults/featured')).data[0]?.group_id;
    const paths = [
      '/v1/vaults',
      '/v1/vaults?limit=3',
      '/v1/vaults?include_hidden=true',
      '/v1/vaults/featured',
      ...(slug ? [`/v1/vaults/slug/${slug}`] : []),
      `/v1/vaults/${v.vault_id}`,
      `/v1/vaults/${v.vault_id}/definition`,
      `/v1/vaults/${v.vault_id}/allocations`,
      `/v1/vaults/${v.vault_id}/timeseries`,
      `/v1/vaults/${v.vault_id}/timeseries?granularity=hour&limit=50`,
      `/v1/vaults/${v.vault_id}/apy`,
      `/v1/users/${wallet}/positions`,
      `/v1/users/${wallet}/positions?include_hidden=true&limit=1`,
      `/v1/users/${wallet}/positions/${vault}`,
      `/v1/users/${wallet}/positions/${vault}/timeseries`,
      `/v1/users/${wallet}/positions/${vault}/timeseries?granularity=hour&limit=20`,
      `/v1/users/${exited.wallet}/positions/${exited.vault_id}/lots`,
      `/v1/users/${wallet}/activity`,
      '/v1/tvl',
      '/v1/strategies',
      `/v1/prices?chain_id=${v.chain_id}&address=${v.numeraire_token.address}`,
      `/v1/prices/timeseries?chain_id=${v.chain_id}&address=${v.numeraire_token.address}&start=2026-05-01&end=2026-05-02`,
    ];
    for (const path of paths) {
      const plain = await raw(path);
      expect(plain.status, path).toBe(200);
      const sep = path.includes('?') ? '&' : '?';
      const variants = [`${path}${sep}include=`];
      if (path.startsWith('/v1/users/') && !path.includes('/activity') && !path.includes('/lots')) variants.push(`${path}${sep}cost_basis_method=average`);
      for (const other of variants) {
        const got = await raw(other);
        expect(got.body, other).toBe(plain.body);
        expect(got.etag, other).toBe(plain.etag);
      }
    }
  });

  it('unknown or repeated include values, and unknown methods, are 422 INVALID_PARAMETER naming the parameter', async () => {
    const { wallet, vault_id } = facts.open[0]!;
    const bad = [
      ['/v1/vaults?include=returns', 'include'],
      ['/v1/vaults?include=quality,quality', 'include'],
      [`/v1/vaults/${vault_id}?include=returns`, 'include'],
      [`/v1/vaults/${vault_id}?include=provenance,,quality`, 'include'],
      [`/v1/vaults/${vault_id}/timeseries?include=provenance`, 'include'],
      [`/v1/users/${wallet}/positions?include=quality`, 'include'],
      [`/v1/users/${wallet}/positions?include=returns&include=returns`, 'include'],
      [`/v1/users/${wallet}/positions?cost_basis_method=lifo`, 'cost_basis_method'],
      [`/v1/users/${wallet}/positions/${vault_id}?cost_basis_method=FIFO`, 'cost_basis_method'],
      [`/v1/users/${wallet}/positions/${vault_id}/timeseries?cost_basis_method=hifo`, 'cost_basis_method'],
      [`/v1/users/${wallet}/positions/${vault_id}/lots?state=pending`, 'state'],
      [`/v1/vaults/${vault_id}/apy?at=yesterday`, 'at'],
    ];
    for (const [path, parameter] of bad) {
      const err = await ctx.api.fails(path!, 422, 'INVALID_PARAMETER');
      expect(err.details, path).toEqual({ parameter });
    }
  });

  it('the order of include values does not matter', async () => {
    const id = vaults[0].vault_id;
    const a = await raw(`/v1/vaults/${id}?include=provenance,quality`);
    const b = await raw(`/v1/vaults/${id}?include=quality,provenance`);
    expect(a.body).toBe(b.body);
    expect(a.etag).toBe(b.etag);
  });
});

describe('APY provenance (DESIGN §11.2)', () => {
  it('every window recomputes from its strings; at the latest snapshot it is the vault’s metrics.apy exactly', async () => {
    let checked = 0;
    for (const v of vaults) {
      if (v.metrics.as_of === null) {
        await ctx.api.fails(`/v1/vaults/${v.vault_id}/apy`, 404, 'NOT_FOUND');
        continue;
      }
      const body = await ctx.api.ok(`/v1/vaults/${v.vault_id}/apy`);
      expect(body.data.vault_id).toBe(v.vault_id);
      expect(body.data.at).toBe(iso(v.metrics.as_of));
      expect(body.data.windows.map((w: any) => w.window)).toEqual(['7d', '30d', '90d']);
      for (const w of body.data.windows) {
        expect(w.end.timestamp).toBe(iso(v.metrics.as_of));
        expect(w.end.unit_price).toBe(v.metrics.unit_price);
        expect(w.apy).toBe(v.metrics[`apy_${w.window}`]);
        if (w.apy === null) {
          expect(['warming_up', 'non_positive_price']).toContain(w.reason);
          continue;
        }
        expect(w.reason).toBeNull();
        expect(unix(w.start.timestamp)).toBeLessThanOrEqual(unix(w.end.timestamp) - w.days * 86400);
        expect(w.elapsed_seconds).toBe(unix(w.end.timestamp) - unix(w.start.timestamp));
        expect(w.start.block_number).toBeLessThan(w.end.block_number);
        const recomputed = (Number(w.end.unit_price) / Number(w.start.unit_price)) ** (365 / w.days) - 1;
        expect(Math.abs(recomputed - w.apy)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(w.apy)));
        checked++;
      }
      // the same windows on the vault route
      const detail = await ctx.api.ok(`/v1/vaults/${v.vault_id}?include=provenance`);
      expect(detail.data.metrics.apy_provenance).toEqual(body.data.windows);
      const { apy_provenance: _, ...plain } = detail.data.metrics;
      expect(plain).toEqual(v.metrics);
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('points counts the hourly snapshots in (start, end]; `at` picks the as-of snapshot, as Unix seconds or ISO 8601', async () => {
    const v = vaults.find((x) => x.metrics.apy_30d !== null)!;
    const at = v.metrics.as_of - 10 * 86400 - 1800; // half past an hour: the snapshot of the hour before
    const body = await ctx.api.ok(`/v1/vaults/${v.vault_id}/apy?at=${at}`);
    expect(body.data.at).toBe(iso(at));
    expect(await ctx.api.ok(`/v1/vaults/${v.vault_id}/apy?at=${iso(at)}`).then((b) => b.data)).toEqual(body.data);
    const w7 = body.data.windows[0];
    expect(w7.end.timestamp).toBe(iso(at - 1800));
    const hours = await walk(`/v1/vaults/${v.vault_id}/timeseries?granularity=hour&limit=10000&start=${w7.start.timestamp}&end=${w7.end.timestamp}`);
    expect(w7.points).toBe(hours.filter((p) => p.timestamp !== w7.start.timestamp).length);
    // the timeseries point of that hour carries the same APY bits
    expect(hours.at(-1).apy_7d).toBe(w7.apy);
    await ctx.api.fails(`/v1/vaults/${v.vault_id}/apy?at=2000-01-01`, 404, 'NOT_FOUND');
  });
});

/** The flags of DESIGN §11.3 from a row-by-row scan of plain points (ascending) and the raw price feed. */
function expectedQuality(points: any[], hourly: Map<number, { price: number; apyNull: boolean }>, snapTimes: number[], priceTimes: number[]) {
  let k = -1; // the as-of snapshot of the point
  let j = -1; // the as-of price of that snapshot
  return points.map((p) => {
    const t = unix(p.timestamp);
    while (k + 1 < snapTimes.length && snapTimes[k + 1]! <= t) k++;
    const snap = snapTimes[k]!;
    while (j + 1 < priceTimes.length && priceTimes[j + 1]! <= snap) j++;
    const priceAt = j >= 0 ? priceTimes[j]! : null;
    const flags: string[] = [];
    if (Math.floor(t / HOUR) * HOUR > snap) flags.push('carried');
    if (t - snap > 2 * HOUR) flags.push('stale_snapshot');
    if (priceAt === null || snap - priceAt > 48 * HOUR) flags.push('unpriced');
    else if (snap - priceAt > 6 * HOUR) flags.push('stale_price');
    if (k > 0) {
      const ratio = hourly.get(snap)!.price / hourly.get(snapTimes[k - 1]!)!.price;
      if (Math.abs(ratio - 1) > 0.05) flags.push('jump');
    }
    if (hourly.get(snap)!.apyNull) flags.push('warming_up');
    return { flags, snapshot_age_seconds: t - snap, price_age_seconds: priceAt === null ? null : t - priceAt };
  });
}

describe('data quality (DESIGN §11.3)', () => {
  it('vault timeseries flags equal a row-by-row scan, at hour and day granularity; values are unchanged', async () => {
    const seen = new Set<string>();
    for (const v of vaults.filter((x) => x.metrics.as_of !== null)) {
      const hours = await walk(`/v1/vaults/${v.vault_id}/timeseries?granularity=hour&limit=10000`);
      const hourly = new Map(
        hours.map((p) => [unix(p.timestamp), { price: Number(p.unit_price), apyNull: p.apy_7d === null || p.apy_30d === null || p.apy_90d === null }]),
      );
      const snapTimes = hours.map((p) => unix(p.timestamp));
      const first = snapTimes[0]!;
      const last = snapTimes.at(-1)!;
      const prices = await ctx.api.get(
        `/v1/prices/timeseries?chain_id=${v.chain_id}&address=${v.numeraire_token.address}&start=${iso(first - 3 * 86400)}&end=${iso(last)}&limit=5000`,
      );
      const priceTimes = prices.status === 200 ? prices.body.data.map((p: any) => unix(p.timestamp)) : [];
      if (prices.status === 200) expect(prices.body.data.length).toBeLessThan(5000);
      for (const granularity of ['hour', 'day']) {
        const plain = granularity === 'hour' ? hours : await walk(`/v1/vaults/${v.vault_id}/timeseries?granularity=day&limit=10000`);
        const withQuality = await walk(`/v1/vaults/${v.vault_id}/timeseries?granularity=${granularity}&limit=10000&include=quality`);
        expect(withQuality.map(({ quality: _, ...rest }) => rest)).toEqual(plain);
        expect(withQuality.map((p) => p.quality)).toEqual(expectedQuality(plain, hourly, snapTimes, priceTimes));
        for (const p of withQuality) for (const f of p.quality.flags) seen.add(f);
      }
    }
    // the demo world holds every flag: its price-feed gap, unpriced token, warm-up, missed snapshot stretch and jump (DESIGN §7)
    for (const f of ['carried', 'stale_snapshot', 'unpriced', 'stale_price', 'jump', 'warming_up']) expect(seen).toContain(f);
  });

  it('metrics carry quality and stale_reason; the list and the vault route agree', async () => {
    const list = await walk('/v1/vaults?include_hidden=true&include=quality&limit=5');
    expect(list.map((d) => d.vault_id)).toEqual(vaults.map((d) => d.vault_id));
    for (const d of list) {
      const { quality, stale_reason, ...metrics } = d.metrics;
      expect(metrics).toEqual(vaults.find((x) => x.vault_id === d.vault_id).metrics);
      const one = await ctx.api.ok(`/v1/vaults/${d.vault_id}?include=quality`);
      expect(one.data).toEqual(d);
      if (d.metrics.as_of === null) {
        expect(quality).toBeNull();
        expect(stale_reason).toBe('never_read');
      } else {
        expect(quality.flags.includes('unpriced')).toBe(d.metrics.tvl.usd === null);
        expect(stale_reason === 'unpriced').toBe(d.metrics.tvl.usd === null);
        expect(quality.flags.includes('warming_up')).toBe(d.metrics.apy_7d === null || d.metrics.apy_30d === null || d.metrics.apy_90d === null);
      }
    }
  });

  it('position timeseries: quality per point, values unchanged', async () => {
    const { wallet, vault_id } = facts.open[0]!;
    const path = `/v1/users/${wallet}/positions/${vault_id}/timeseries?granularity=day&limit=10000`;
    const plain = await walk(path);
    const withQuality = await walk(`${path}&include=quality`);
    expect(withQuality.map(({ quality: _, ...rest }) => rest)).toEqual(plain);
    for (const p of withQuality) expect(p.quality.snapshot_age_seconds).toBeGreaterThanOrEqual(0);
    // hourly, a position point's instant is its snapshot's time: the vault point's flags exactly
    const hourly = await walk(`/v1/users/${wallet}/positions/${vault_id}/timeseries?granularity=hour&limit=10000&include=quality`);
    const vault = await walk(`/v1/vaults/${vault_id}/timeseries?granularity=hour&limit=10000&include=quality&start=${hourly[0].timestamp}`);
    const byTime = new Map(vault.map((p) => [p.timestamp, p.quality]));
    expect(hourly.length).toBeGreaterThan(24);
    for (const p of hourly) expect(p.quality, p.timestamp).toEqual(byTime.get(p.timestamp));
  });
});

describe('cost-basis method and lots (DESIGN §11.4)', () => {
  it('on every wallet of the demo world: Σ shares_open, Σ open cost and Σ realized of the lots equal the FIFO position', async () => {
    let positions = 0;
    for (const wallet of ctx.world.wallets) {
      const plain = await walk(`/v1/users/${wallet}/positions?include_hidden=true&limit=500`);
      const fifo = await walk(`/v1/users/${wallet}/positions?include_hidden=true&limit=500&cost_basis_method=fifo`);
      expect(fifo.map((p) => p.vault_id)).toEqual(plain.map((p) => p.vault_id));
      for (const [k, p] of fifo.entries()) {
        const avg = plain[k];
        // only the cost basis and realized/unrealized PnL depend on the method
        const strip = (m: any) => ({ ...m, cost_basis: null, pnl: null });
        expect(strip(p.metrics)).toEqual(strip(avg.metrics));
        const one = await ctx.api.ok(`/v1/users/${wallet}/positions/${p.vault_id}?cost_basis_method=fifo`);
        expect(one.data).toEqual(p);
        const lots = await walk(`/v1/users/${wallet}/positions/${p.vault_id}/lots?limit=1000`);
        const m = p.metrics;
        expect(sum(lots.map((l) => l.shares_open)).toFixed()).toBe(new Decimal(m.shares_owned).plus(m.pending_redeem_shares).toFixed());
        expect(sum(lots.map((l) => l.cost_open.native)).toFixed()).toBe(new Decimal(m.cost_basis.native).toFixed());
        const realized = lots.flatMap((l) => l.disposals.map((x: any) => x.realized.native));
        expect(sum(realized).toFixed()).toBe(new Decimal(m.pnl.realized.native).toFixed());
        if (m.cost_basis.usd !== null) {
          expect(sum(lots.map((l) => l.cost_open.usd)).toFixed()).toBe(new Decimal(m.cost_basis.usd).toFixed());
          expect(sum(lots.flatMap((l) => l.disposals.map((x: any) => x.realized.usd))).toFixed()).toBe(new Decimal(m.pnl.realized.usd).toFixed());
        }
        for (const l of lots) {
          const disposed = sum(l.disposals.map((x: any) => x.shares));
          expect(disposed.plus(l.shares_open).toFixed()).toBe(new Decimal(l.shares_acquired).toFixed());
          expect(
            sum(l.disposals.map((x: any) => x.cost.native))
              .plus(l.cost_open.native)
              .toFixed(),
          ).toBe(new Decimal(l.cost.native).toFixed());
        }
        positions++;
      }
    }
    expect(positions).toBeGreaterThan(50);
  });

  it('an exited position keeps its closed lots; state filters; a wallet that never touched the vault is 404', async () => {
    const { wallet, vault_id } = facts.exited[0]!;
    const all = await walk(`/v1/users/${wallet}/positions/${vault_id}/lots`);
    expect(all.length).toBeGreaterThan(0);
    expect(all.every((l) => l.shares_open === '0')).toBe(true);
    expect((await ctx.api.ok(`/v1/users/${wallet}/positions/${vault_id}/lots?state=open`)).data).toEqual([]);
    expect(await walk(`/v1/users/${wallet}/positions/${vault_id}/lots?state=closed`)).toEqual(all);
    const untouched = facts.untouched[0]!;
    await ctx.api.fails(`/v1/users/${untouched.wallet}/positions/${untouched.vault_id}/lots`, 404, 'NOT_FOUND');
    await ctx.api.fails(`/v1/users/${UNKNOWN_WALLET}/positions/${vault_id}/lots`, 404, 'NOT_FOUND');
  });

  it('pages of /lots walk the whole list in acquisition order; a cursor is bound to its state', async () => {
    // the position with the most activity rows
    let best = { wallet: '', vault_id: '', n: 0 };
    for (const [wallet, rows] of facts.activity) {
      const by = new Map<string, number>();
      for (const r of rows) by.set(r.vault_id, (by.get(r.vault_id) ?? 0) + 1);
      for (const [vault_id, n] of by)
        if (n > best.n && !facts.untouched.some((u) => u.wallet === wallet && u.vault_id === vault_id)) best = { wallet, vault_id, n };
    }
    const path = `/v1/users/${best.wallet}/positions/${best.vault_id}/lots`;
    const whole = (await ctx.api.ok(`${path}?limit=1000`)).data;
    expect(whole.length).toBeGreaterThan(2);
    const paged = await walk(`${path}?limit=1`);
    expect(paged).toEqual(whole);
    const acquired = whole.map((l: any) => [unix(l.acquired.timestamp), l.acquired.block_number, l.acquired.log_index]);
    expect(acquired).toEqual([...acquired].sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]));
    const first = await ctx.api.ok(`${path}?limit=1&state=all`);
    await ctx.api.fails(`${path}?limit=1&state=open&next=${encodeURIComponent(first.meta.next_cursor)}`, 422, 'INVALID_CURSOR');
    // a lot's id is its acquiring row's activity id
    const activityIds = new Set(facts.activity.get(best.wallet)!.map((r) => r.id));
    for (const l of whole) expect(activityIds.has(l.lot_id)).toBe(true);
  });

  it('the position timeseries under FIFO ends at the FIFO position', async () => {
    const { wallet, vault_id } = facts.open[0]!;
    const fifo = await ctx.api.ok(`/v1/users/${wallet}/positions/${vault_id}?cost_basis_method=fifo`);
    const points = await walk(`/v1/users/${wallet}/positions/${vault_id}/timeseries?granularity=hour&cost_basis_method=fifo&limit=10000`);
    const last = points.at(-1);
    expect(last.cost_basis).toEqual(fifo.data.metrics.cost_basis);
    expect(last.pnl).toEqual(fifo.data.metrics.pnl);
  });
});

/** IRR by plain bisection over (−0.9999, 1e6): the first sign change on a dense grid. */
function bisectionIrr(flows: { t: number; amount: number }[]): number | null {
  const t0 = Math.min(...flows.map((f) => f.t));
  const f = (r: number) => flows.reduce((s, x) => s + x.amount / (1 + r) ** ((x.t - t0) / (365 * 86400)), 0);
  let a = -0.9999;
  for (let k = 1; k <= 3000; k++) {
    const b = k === 3000 ? 1e6 : Math.expm1(Math.log(1e-4) + ((Math.log1p(1e6) - Math.log(1e-4)) * k) / 3000);
    if (Math.sign(f(a)) !== Math.sign(f(b))) {
      let lo = a;
      let hi = b;
      for (let n = 0; n < 300; n++) {
        const m = (lo + hi) / 2;
        if (Math.sign(f(m)) === Math.sign(f(lo))) lo = m;
        else hi = m;
      }
      return (lo + hi) / 2;
    }
    a = b;
  }
  return null;
}

describe('returns (DESIGN §11.5)', () => {
  it('TWR is roi_pct; MWR is the IRR of the activity log’s flows and the end value, by bisection', async () => {
    let compared = 0;
    for (const wallet of ctx.world.wallets.slice(0, 40)) {
      const items = await walk(`/v1/users/${wallet}/positions?include_hidden=true&include=returns&limit=500`);
      const plain = await walk(`/v1/users/${wallet}/positions?include_hidden=true&limit=500`);
      expect(items.map(({ returns: _, ...rest }) => rest)).toEqual(plain);
      for (const p of items) {
        const r = p.returns;
        expect(r.twr_pct).toEqual(p.metrics.roi_pct);
        expect(await ctx.api.ok(`/v1/users/${wallet}/positions/${p.vault_id}?include=returns`).then((b) => b.data)).toEqual(p);
        const rows = (facts.activity.get(wallet) ?? []).filter((x: ActivityRow) => x.vault_id === p.vault_id);
        // a foreign-token request has no value in the log (DESIGN §4.6): leave those to the unit oracle
        if (rows.length === 0 || rows.some((x) => x.type === 'deposit_pending' && x.assets_delta.native === '0')) continue;
        const vault = vaults.find((v) => v.vault_id === p.vault_id);
        const d = vault.numeraire_token.decimals;
        const flows = rows.map((x) => ({ t: x.block_timestamp, amount: -Number(x.assets_delta.native) }));
        const invested = rows.reduce((s, x) => s.plus(x.assets_delta.native), new Decimal(0));
        expect(new Decimal(r.net_invested.native).toFixed()).toBe(invested.toFixed());
        const held = new Decimal(p.metrics.shares_owned).plus(p.metrics.pending_redeem_shares);
        const end = held.times(vault.metrics.unit_price).toDecimalPlaces(d, Decimal.ROUND_DOWN).plus(p.metrics.pending_deposit_assets.native);
        flows.push({ t: vault.metrics.as_of, amount: end.toNumber() });
        expect(r.period.end).toBe(iso(vault.metrics.as_of));
        expect(r.period.start).toBe(iso(Math.min(...rows.map((x) => x.block_timestamp))));
        const days = r.period.days;
        if (days < 1) {
          expect(r.mwr_annualized_pct.native).toBeNull();
          continue;
        }
        const want = bisectionIrr(flows);
        if (want === null) expect(r.mwr_annualized_pct.native).toBeNull();
        else {
          expect(Math.abs(r.mwr_annualized_pct.native / 100 - want)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(want)));
          compared++;
        }
        if (r.twr_pct.native !== null) expect(r.twr_annualized_pct.native).toBeCloseTo(((1 + r.twr_pct.native / 100) ** (365 / days) - 1) * 100, 6);
        // USD legs follow the USD rule of §4.4
        if (p.metrics.roi_pct.usd === null) expect(r.twr_annualized_pct.usd).toBeNull();
        if (r.net_invested.usd === null) expect(r.mwr_annualized_pct.usd).toBeNull();
      }
    }
    expect(compared).toBeGreaterThan(20);
  });
});
