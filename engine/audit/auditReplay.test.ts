// FIFO lots and money-weighted returns (DESIGN §11.4, §11.5) against a naive oracle written row
// by row with bigint: its own validity rules, linear as-of scans and its own rounding; IRR by
// plain bisection on a dense grid. Random ledgers from test/helpers/ledgerArb.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventRow } from '../../model/rows.js';
import { formatUnits } from '../../model/format/numbers.js';
import { positionMetrics } from '../positions/positionMetrics.js';
import type { PositionContext } from '../positions/replayPosition.js';
import { H, NUM, row, T0, worldArb } from '../../test/helpers/ledgerArb.js';
import { makePrices, makeSeries } from '../../test/helpers/positionFixtures.js';
import { auditReplay } from './auditReplay.js';
import { fifoMetrics, lotsOut, positionReturns } from './positionAudit.js';

// ---- the oracle ----

interface OLot {
  shares: bigint;
  open: bigint;
  cost: bigint;
  costOpen: bigint;
  costUsd: bigint | null;
  costOpenUsd: bigint | null;
  realized: bigint[];
}

function halfEvenDiv(x: bigint, m: bigint): bigint {
  const neg = x < 0n;
  const a = neg ? -x : x;
  let q = a / m;
  const r2 = (a - q * m) * 2n;
  if (r2 > m || (r2 === m && q % 2n === 1n)) q += 1n;
  return neg ? -q : q;
}

function e18(s: string): bigint {
  const [i, f = ''] = s.split('.');
  return BigInt(i! + f.padEnd(18, '0').slice(0, 18));
}

function oracle(rows: readonly EventRow[], ctx: PositionContext, now: number) {
  const d = ctx.numeraire.decimals;
  const series = ctx.series;
  const unitPrice = (t: number) => {
    let p = 10n ** 18n;
    for (let i = 0; i < series.length && series.ts[i]! <= t; i++) p = series.unit_price.get(i);
    return p;
  };
  const mv = (s: bigint, t: number) => (s * unitPrice(t)) / 10n ** BigInt(36 - d);
  const usdAt = (t: number): bigint | null => {
    const p = ctx.prices;
    if (!p) return null;
    let j = -1;
    for (let i = 0; i < p.ts.length && p.ts[i]! <= t; i++) j = i;
    return j >= 0 && t - p.ts[j]! <= 48 * 3600 ? e18(p.usd[j]!) : null;
  };
  const micro = (a: bigint, p: bigint | null) => (p === null ? null : halfEvenDiv(a * p, 10n ** BigInt(d + 12)));
  const foreign = (r: EventRow) => r.token.toLowerCase() !== NUM;
  const lots: OLot[] = [];
  let S = 0n;
  let Pr = 0n;
  let Pd = 0n;
  let usdOk = ctx.prices !== undefined;
  const deps = new Map<string, { a: bigint; foreign: boolean; price: bigint | null; flow: number }>();
  const reds = new Map<string, bigint>();
  const flows: { t: number; a: bigint }[] = [];
  let realized = 0n;
  const take = (s: bigint, proceeds: bigint) => {
    let left = s;
    let pLeft = proceeds;
    for (const lot of lots) {
      if (left === 0n) break;
      if (lot.open === 0n) continue;
      // biome-ignore lint/complexity/useMathMinMax: bigints (Math.min takes numbers)
      const n = left < lot.open ? left : lot.open;
      const c = n === lot.open ? lot.costOpen : (lot.costOpen * n) / lot.open;
      const p = n === left ? pLeft : (proceeds * n) / s;
      pLeft -= p;
      lot.open -= n;
      lot.costOpen -= c;
      lot.realized.push(p - c);
      realized += p - c;
      left -= n;
    }
  };
  for (const r of rows) {
    const h = r.request_hash;
    const t = r.ts;
    const price = usdAt(t);
    const touch = () => {
      if (price === null) usdOk = false;
    };
    switch (r.kind) {
      case 'deposit': {
        if (r.shares <= 0n) break;
        if (h === null) {
          if (r.assets <= 0n) break;
          const a = foreign(r) ? mv(r.shares, t) : r.assets;
          touch();
          lots.push({ shares: r.shares, open: r.shares, cost: a, costOpen: a, costUsd: micro(a, price), costOpenUsd: null, realized: [] });
          S += r.shares;
          flows.push({ t, a: -a });
        } else {
          const q = deps.get(h);
          if (!q) break;
          deps.delete(h);
          touch();
          const a = q.foreign ? mv(r.shares, t) : q.a;
          lots.push({ shares: r.shares, open: r.shares, cost: a, costOpen: a, costUsd: micro(a, q.price), costOpenUsd: null, realized: [] });
          S += r.shares;
          Pd -= q.foreign ? 0n : q.a;
          if (q.foreign) flows[q.flow]!.a = -a;
        }
        break;
      }
      case 'deposit_pending': {
        if (h === null || r.assets <= 0n || deps.has(h)) break;
        touch();
        const a = foreign(r) ? 0n : r.assets;
        deps.set(h, { a, foreign: foreign(r), price, flow: flows.length });
        flows.push({ t, a: -a });
        Pd += a;
        break;
      }
      case 'deposit_refunded': {
        const q = h === null ? undefined : deps.get(h);
        if (!q) break;
        deps.delete(h!);
        touch();
        Pd -= q.a;
        flows.push({ t, a: q.a });
        break;
      }
      case 'withdraw': {
        if (r.assets < 0n) break;
        if (h === null) {
          if (r.shares <= 0n || r.shares > S) break;
          touch();
          const a = foreign(r) ? mv(r.shares, t) : r.assets;
          take(r.shares, a);
          S -= r.shares;
          flows.push({ t, a });
        } else {
          const s = reds.get(h);
          if (s === undefined) break;
          reds.delete(h);
          touch();
          const a = foreign(r) ? mv(s, t) : r.assets;
          take(s, a);
          Pr -= s;
          flows.push({ t, a });
        }
        break;
      }
      case 'withdraw_pending': {
        if (h === null || r.shares <= 0n || r.shares > S || reds.has(h)) break;
        touch();
        reds.set(h, r.shares);
        S -= r.shares;
        Pr += r.shares;
        break;
      }
      case 'withdraw_refunded': {
        const s = h === null ? undefined : reds.get(h);
        if (s === undefined) break;
        reds.delete(h!);
        touch();
        Pr -= s;
        S += s;
        break;
      }
      case 'transfer_in': {
        if (r.shares <= 0n) break;
        touch();
        const a = mv(r.shares, t);
        lots.push({ shares: r.shares, open: r.shares, cost: a, costOpen: a, costUsd: micro(a, price), costOpenUsd: null, realized: [] });
        S += r.shares;
        flows.push({ t, a: -a });
        break;
      }
      case 'transfer_out': {
        if (r.shares <= 0n || r.shares > S) break;
        touch();
        const a = mv(r.shares, t);
        take(r.shares, a);
        S -= r.shares;
        flows.push({ t, a });
        break;
      }
    }
  }
  const end = ((S + Pr) * unitPrice(now)) / 10n ** BigInt(36 - d) + Pd;
  return { lots, S, Pr, Pd, realized, flows, end, usdOk };
}

/** IRR by plain bisection: the first sign change of NPV on a dense grid of (−0.9999, 10⁶), then halving. */
function bisectionIrr(flows: { t: number; amount: number }[]): number | null {
  const t0 = Math.min(...flows.map((f) => f.t));
  const f = (r: number) => flows.reduce((sum, x) => sum + x.amount / (1 + r) ** ((x.t - t0) / (365 * 86400)), 0);
  const grid: number[] = [];
  for (let k = 0; k <= 4000; k++) grid.push(Math.expm1(Math.log(1e-4) + ((Math.log1p(1e6) - Math.log(1e-4)) * k) / 4000));
  grid[0] = -0.9999;
  grid[4000] = 1e6;
  for (let k = 1; k < grid.length; k++) {
    let a = grid[k - 1]!;
    let b = grid[k]!;
    if (Math.sign(f(a)) === Math.sign(f(b))) continue;
    for (let n = 0; n < 300; n++) {
      const m = (a + b) / 2;
      if (Math.sign(f(m)) === Math.sign(f(a))) a = m;
      else b = m;
    }
    return (a + b) / 2;
  }
  return null;
}

describe('FIFO lots against the row-by-row oracle (DESIGN §11.4)', () => {
  it('lots, open cost and realized equal the oracle to the base unit; the three invariants hold', () => {
    fc.assert(
      fc.property(worldArb, ({ ctx, rows, now }) => {
        const st = auditReplay(rows, ctx);
        const want = oracle(rows, ctx, now);
        const d = ctx.numeraire.decimals;
        expect(st.lots.map((l) => [l.sharesAcquired, l.sharesOpen, l.cost, l.costOpen])).toEqual(want.lots.map((l) => [l.shares, l.open, l.cost, l.costOpen]));
        expect(st.lots.map((l) => l.disposals.map((x) => x.proceeds - x.cost))).toEqual(want.lots.map((l) => l.realized));
        const m = fifoMetrics(st, ctx, now);
        const avg = positionMetrics(st.avg, ctx, now);
        const lots = lotsOut(st, ctx);
        // Σ shares_open = shares_owned + pending_redeem_shares
        const open = st.lots.reduce((s, l) => s + l.sharesOpen, 0n);
        expect(open).toBe(want.S + want.Pr);
        expect(formatUnits(st.avg.shares, 18)).toBe(m.shares_owned);
        // Σ open cost = FIFO cost_basis; Σ realized = FIFO pnl.realized (the published strings)
        const sumOpen = st.lots.reduce((s, l) => s + l.costOpen, 0n);
        expect(formatUnits(sumOpen, d)).toBe(m.cost_basis.native);
        expect(formatUnits(want.realized, d)).toBe(m.pnl.realized.native);
        // value, shares, pending amounts and roi are the average method's
        expect({ ...m, cost_basis: null, pnl: null }).toEqual({ ...avg, cost_basis: null, pnl: null });
        if (m.cost_basis.usd !== null) {
          const sum = st.lots.reduce((s, l) => s + l.costOpenUsd!, 0n);
          expect(formatUnits(sum, 6)).toBe(m.cost_basis.usd);
          const realizedUsd = st.lots.reduce((s, l) => s + l.disposals.reduce((r, x) => r + x.proceedsUsd! - x.costUsd!, 0n), 0n);
          expect(formatUnits(realizedUsd, 6)).toBe(m.pnl.realized.usd);
          // a lot's USD cost is its native cost at the acquisition's price, as the oracle books it
          expect(st.lots.map((l) => l.costUsd)).toEqual(want.lots.map((l) => l.costUsd));
        } else expect(lots.every((l) => l.cost.usd === null)).toBe(true);
        expect(m.cost_basis.usd === null).toBe(!want.usdOk || avg.cost_basis.usd === null);
        // a lot's disposals never consume more than it acquired; cost never goes negative
        for (const l of st.lots) {
          expect(l.disposals.reduce((s, x) => s + x.shares, 0n) + l.sharesOpen).toBe(l.sharesAcquired);
          expect(l.disposals.reduce((s, x) => s + x.cost, 0n) + l.costOpen).toBe(l.cost);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a partial disposal gives up floor(cost × s / shares_open) and keeps the remainder', () => {
    const ctx: PositionContext = {
      series: makeSeries([T0, T0 + H], ['1', '1'], 6),
      prices: makePrices([T0, T0 + H], ['1', '1'], 1, NUM),
      numeraire: { address: NUM, decimals: 6, symbol: 'N' },
    };
    // 3 shares for 10 base units; sell 1 share: floor(10 / 3) = 3 leaves, 7 stays
    const rows = [row('deposit', T0 + 1, 10n, 3n * 10n ** 18n), row('withdraw', T0 + 2, 5n, 10n ** 18n)];
    const st = auditReplay(rows, ctx);
    expect(st.lots[0]!.disposals[0]!.cost).toBe(3n);
    expect(st.lots[0]!.costOpen).toBe(7n);
    expect(st.realized).toBe(2n);
  });

  it('escrowed shares stay in their lots until settlement; a refund consumes nothing', () => {
    const ctx: PositionContext = {
      series: makeSeries([T0, T0 + H], ['1', '2'], 6),
      prices: makePrices([T0, T0 + H], ['1', '1'], 1, NUM),
      numeraire: { address: NUM, decimals: 6, symbol: 'N' },
    };
    const s = 10n ** 18n;
    const rows = [
      row('deposit', T0 + 1, 1_000_000n, s),
      row('deposit', T0 + 2, 3_000_000n, s),
      row('withdraw_pending', T0 + 3, 0n, s, { request_hash: '0xr1' }),
      row('withdraw_refunded', T0 + 4, 0n, s, { request_hash: '0xr1' }),
      row('withdraw_pending', T0 + 5, 0n, s, { request_hash: '0xr2' }),
    ];
    const st = auditReplay(rows, ctx);
    expect(st.lots.map((l) => l.sharesOpen)).toEqual([s, s]);
    const settled = auditReplay([...rows, row('withdraw', T0 + H + 1, 2_000_000n, 0n, { request_hash: '0xr2' })], ctx);
    // the oldest lot goes first: cost 1, proceeds 2
    expect(settled.lots.map((l) => l.sharesOpen)).toEqual([0n, s]);
    expect(settled.realized).toBe(1_000_000n);
  });
});

describe('returns against the oracle (DESIGN §11.5)', () => {
  it('net invested and the money-weighted return equal the oracle (bisection) on random ledgers', () => {
    let compared = 0;
    fc.assert(
      fc.property(worldArb, ({ ctx, rows, now }) => {
        const st = auditReplay(rows, ctx);
        const want = oracle(rows, ctx, now);
        const r = positionReturns(st, ctx, now);
        const d = ctx.numeraire.decimals;
        expect(r.net_invested.native).toBe(formatUnits(-want.flows.reduce((s, f) => s + f.a, 0n), d));
        expect(r.twr_pct.native).toBe(positionMetrics(st.avg, ctx, now).roi_pct.native);
        const t0 = want.flows[0]?.t;
        if (t0 === undefined || (now - t0) / 86400 < 1) {
          expect(r.mwr_annualized_pct.native).toBeNull();
          expect(r.twr_annualized_pct.native).toBeNull();
          return;
        }
        const scale = 10 ** d;
        const flows = [...want.flows.map((f) => ({ t: f.t, amount: Number(f.a) / scale })), { t: now, amount: Number(want.end) / scale }];
        const irr = bisectionIrr(flows);
        if (irr === null) expect(r.mwr_annualized_pct.native).toBeNull();
        else {
          compared++;
          expect(r.mwr_annualized_pct.native).not.toBeNull();
          expect(Math.abs(r.mwr_annualized_pct.native! / 100 - irr)).toBeLessThanOrEqual(1e-7 * Math.max(1, Math.abs(irr)));
        }
      }),
      { numRuns: 150 },
    );
    expect(compared).toBeGreaterThan(10);
  });

  it('annualized TWR: (1 + twr)^(365/days) − 1; null under one day', () => {
    const ctx: PositionContext = {
      series: makeSeries(
        Array.from({ length: 24 * 30 + 1 }, (_, i) => T0 + i * H),
        Array.from({ length: 24 * 30 + 1 }, (_, i) => (1 + i / 7200).toFixed(6)),
        6,
      ),
      prices: undefined,
      numeraire: { address: NUM, decimals: 6, symbol: 'N' },
    };
    const rows = [row('deposit', T0, 1_000_000n, 10n ** 18n)];
    const now = T0 + 30 * 86400;
    const r = positionReturns(auditReplay(rows, ctx), ctx, now);
    expect(r.period).toEqual({ start: '2023-11-14T22:00:00Z', end: '2023-12-14T22:00:00Z', days: 30 });
    expect(r.twr_annualized_pct.native).toBeCloseTo(((1 + r.twr_pct.native! / 100) ** (365 / 30) - 1) * 100, 9);
    // a deposit of 1 growing to 1.1 in 30 days: MWR = TWR annualized when there is one flow each way
    expect(r.mwr_annualized_pct.native).toBeCloseTo(r.twr_annualized_pct.native!, 6);
    expect(r.mwr_annualized_pct.usd).toBeNull();
    const young = positionReturns(auditReplay(rows, ctx), ctx, T0 + 3600);
    expect(young.twr_annualized_pct.native).toBeNull();
    expect(young.mwr_annualized_pct.native).toBeNull();
  });
});
