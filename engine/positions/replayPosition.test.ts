import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventRow } from '../../model/rows.js';
import { demoPositions, makePrices, makeSeries } from '../../test/helpers/positionFixtures.js';
import { digits, H, NUM, row, T0, worldArb } from '../../test/helpers/ledgerArb.js';
import { eventTableOf } from '../../model/events.js';
import { positionMetrics, positionNow, type PositionMetrics } from './positionMetrics.js';
import { applyRow, createPositionState, isPositionOpen, replayPosition, type PositionContext } from './replayPosition.js';

// ---------------------------------------------------------------------------------------------
// The oracle: DESIGN §4.4 restated with exact rationals, linear scans and string formatting,
// written without looking at the implementation's fixed point or lookups.
// ---------------------------------------------------------------------------------------------

interface Q {
  n: bigint;
  d: bigint;
}
const abs = (x: bigint) => (x < 0n ? -x : x);
function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}
function q(n: bigint, d = 1n): Q {
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}
const add = (a: Q, b: Q) => q(a.n * b.d + b.n * a.d, a.d * b.d);
const sub = (a: Q, b: Q) => q(a.n * b.d - b.n * a.d, a.d * b.d);
const mul = (a: Q, b: Q) => q(a.n * b.n, a.d * b.d);
const div = (a: Q, b: Q) => q(a.n * b.d, a.d * b.n);
const ZERO = q(0n);
function dec(s: string): Q {
  const [i, f = ''] = s.replace('-', '').split('.');
  const v = q(BigInt(i! + f), 10n ** BigInt(f.length));
  return s.startsWith('-') ? q(-v.n, v.d) : v;
}
/** toward zero at dp places */
function truncStr(x: Q, dp: number): string {
  return digits((x.n * 10n ** BigInt(dp)) / x.d, dp);
}
/** half to even at dp places */
function evenStr(x: Q, dp: number): string {
  const scaled = x.n * 10n ** BigInt(dp);
  let v = abs(scaled) / x.d;
  const rem2 = (abs(scaled) % x.d) * 2n;
  if (rem2 > x.d || (rem2 === x.d && v % 2n === 1n)) v += 1n;
  return digits(scaled < 0n ? -v : v, dp);
}
const sumStr = (a: string, b: string) => {
  const s = add(dec(a), dec(b));
  return truncStr(s, 40);
};

interface OracleResult {
  m: PositionMetrics;
  open: boolean;
  skipped: number;
  S: bigint;
}

function oracle(rows: readonly EventRow[], ctx: PositionContext, now: number): OracleResult {
  const { series, prices } = ctx;
  const d = ctx.numeraire.decimals;
  const priceAt = (t: number): bigint => {
    let p = 10n ** 18n;
    for (let i = 0; i < series.length; i++) if (series.ts[i]! <= t) p = series.unit_price.get(i);
    return p;
  };
  const usdAt = (t: number): string | null => {
    if (!prices) return null;
    let best = -1;
    for (let i = 0; i < prices.ts.length; i++) if (prices.ts[i]! <= t) best = i;
    return best >= 0 && t - prices.ts[best]! <= 48 * 3600 ? prices.usd[best]! : null;
  };
  const mv = (s: bigint, t: number) => (s * priceAt(t)) / 10n ** BigInt(36 - d);
  const nat = (base: bigint) => q(base, 10n ** BigInt(d));

  let S = 0n;
  let Pr = 0n;
  let Pd = ZERO;
  let C = ZERO;
  let R = ZERO;
  let Cu = ZERO;
  let Ru = ZERO;
  let usdOk = prices !== undefined;
  let skipped = 0;
  const deps = new Map<string, { a: Q; u: string | null; foreign: boolean }>();
  const reds = new Map<string, bigint>();
  const boundaries: { t: number; held: bigint }[] = [];

  for (const r of rows) {
    const foreign = r.token.toLowerCase() !== ctx.numeraire.address.toLowerCase();
    const u = usdAt(r.ts);
    const usdOf = (x: Q, price: string | null) => (price === null ? ZERO : mul(x, dec(price)));
    let ok = true;
    let boundary = false;
    const dispose = (s: bigint, a: Q, fromPr: boolean) => {
      const b = div(mul(C, q(s)), q(S + Pr));
      const bu = div(mul(Cu, q(s)), q(S + Pr));
      C = sub(C, b);
      Cu = sub(Cu, bu);
      R = add(R, sub(a, b));
      Ru = add(Ru, sub(usdOf(a, u), bu));
      if (fromPr) Pr -= s;
      else S -= s;
      boundary = true;
    };
    const acquire = (s: bigint, a: Q, price: string | null) => {
      S += s;
      C = add(C, a);
      Cu = add(Cu, usdOf(a, price));
      boundary = true;
    };
    const h = r.request_hash;
    switch (r.kind) {
      case 'deposit':
        if (r.shares <= 0n) ok = false;
        else if (h === null) {
          if (r.assets <= 0n) ok = false;
          else acquire(r.shares, nat(foreign ? mv(r.shares, r.ts) : r.assets), u);
        } else {
          const req = deps.get(h);
          if (!req) ok = false;
          else {
            deps.delete(h);
            Pd = sub(Pd, req.a);
            acquire(r.shares, req.foreign ? nat(mv(r.shares, r.ts)) : req.a, req.u);
          }
        }
        break;
      case 'deposit_pending':
        if (h === null || r.assets <= 0n || deps.has(h)) ok = false;
        else {
          const a = foreign ? ZERO : nat(r.assets);
          deps.set(h, { a, u, foreign });
          Pd = add(Pd, a);
        }
        break;
      case 'deposit_refunded': {
        const req = h === null ? undefined : deps.get(h);
        if (!req) ok = false;
        else {
          deps.delete(h!);
          Pd = sub(Pd, req.a);
        }
        break;
      }
      case 'withdraw':
        if (r.assets < 0n) ok = false;
        else if (h === null) {
          if (r.shares <= 0n || r.shares > S) ok = false;
          else dispose(r.shares, nat(foreign ? mv(r.shares, r.ts) : r.assets), false);
        } else {
          const s = reds.get(h);
          if (s === undefined) ok = false;
          else {
            reds.delete(h);
            dispose(s, nat(foreign ? mv(s, r.ts) : r.assets), true);
          }
        }
        break;
      case 'withdraw_pending':
        if (h === null || r.shares <= 0n || r.shares > S || reds.has(h)) ok = false;
        else {
          reds.set(h, r.shares);
          S -= r.shares;
          Pr += r.shares;
        }
        break;
      case 'withdraw_refunded': {
        const s = h === null ? undefined : reds.get(h);
        if (s === undefined) ok = false;
        else {
          reds.delete(h!);
          Pr -= s;
          S += s;
        }
        break;
      }
      case 'transfer_in':
        if (r.shares <= 0n) ok = false;
        else acquire(r.shares, nat(mv(r.shares, r.ts)), u);
        break;
      case 'transfer_out':
        if (r.shares <= 0n || r.shares > S) ok = false;
        else dispose(r.shares, nat(mv(r.shares, r.ts)), false);
        break;
    }
    if (!ok) {
      skipped++;
      continue;
    }
    if (u === null) usdOk = false;
    if (boundary) boundaries.push({ t: r.ts, held: S + Pr });
  }

  const up = priceAt(now);
  const spot = usdAt(now);
  const held = S + Pr;
  const valueNative = truncStr(q(S * up, 10n ** 36n), d);
  const unrealized = sub(q(held * up, 10n ** 36n), C);
  const realizedStr = { native: truncStr(R, d), usd: usdOk ? evenStr(Ru, 6) : null };
  const unrealizedStr = {
    native: truncStr(unrealized, d),
    usd: usdOk && spot !== null ? evenStr(sub(mul(q(held * up, 10n ** 36n), dec(spot)), Cu), 6) : null,
  };

  // TWR over periods between boundary rows (the last ends now), counted while S + Pr > 0
  const pf = (t: number) => Number(priceAt(t)) / 1e18;
  const everHeld = boundaries.some((b) => b.held > 0n);
  let roi: number | null = null;
  let roiUsd: number | null = null;
  if (everHeld) {
    let prod = 1;
    let prodUsd = 1;
    boundaries.forEach((b, k) => {
      if (b.held <= 0n) return;
      const end = k + 1 < boundaries.length ? boundaries[k + 1]!.t : now;
      prod *= pf(end) / pf(b.t);
      if (usdOk && spot !== null) prodUsd *= (pf(end) * Number(usdAt(end))) / (pf(b.t) * Number(usdAt(b.t)));
    });
    roi = (prod - 1) * 100;
    roiUsd = usdOk && spot !== null ? (prodUsd - 1) * 100 : null;
  }

  return {
    m: {
      shares_owned: digits(S, 18),
      value: { native: valueNative, usd: spot === null ? null : evenStr(mul(dec(valueNative), dec(spot)), 6) },
      cost_basis: { native: truncStr(C, d), usd: usdOk ? evenStr(Cu, 6) : null },
      pending_deposit_assets: { native: truncStr(Pd, d), usd: spot === null ? null : evenStr(mul(Pd, dec(spot)), 6) },
      pending_redeem_shares: digits(Pr, 18),
      pnl: {
        realized: realizedStr,
        unrealized: unrealizedStr,
        total: {
          native: sumStr(realizedStr.native, unrealizedStr.native),
          usd: realizedStr.usd === null || unrealizedStr.usd === null ? null : sumStr(realizedStr.usd, unrealizedStr.usd),
        },
      },
      roi_pct: { native: roi, usd: roiUsd },
    },
    open: S > 0n || Pr > 0n || Pd.n > 0n || deps.size > 0,
    skipped,
    S,
  };
}

function expectMatchesOracle(got: PositionMetrics, want: PositionMetrics): void {
  const { roi_pct: gotRoi, ...gotRest } = got;
  const { roi_pct: wantRoi, ...wantRest } = want;
  expect(gotRest).toEqual(wantRest);
  for (const k of ['native', 'usd'] as const) {
    const g = gotRoi[k];
    const w = wantRoi[k];
    if (w === null || g === null) expect(g).toBe(w);
    else expect(Math.abs(g - w)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(w)));
  }
}

// ---------------------------------------------------------------------------------------------
// Hand-made worlds
// ---------------------------------------------------------------------------------------------

const usdc = (x: number) => BigInt(Math.round(x * 1e6));
const sh = (x: number) => BigInt(Math.round(x * 1e6)) * 10n ** 12n;

function ctxOf(unitPrices: string[], usd: string[] | undefined, decimals = 6, priceTs?: number[]): PositionContext {
  const ts = unitPrices.map((_, i) => T0 + i * H);
  return {
    series: makeSeries(ts, unitPrices, decimals),
    prices: usd === undefined ? undefined : makePrices(priceTs ?? usd.map((_, i) => T0 + i * H), usd, 1, NUM),
    numeraire: { address: NUM, decimals, symbol: 'USDC' },
  };
}
const nowOf = (ctx: PositionContext) => ctx.series.ts[ctx.series.length - 1]!;

function run(rows: EventRow[], ctx: PositionContext) {
  const st = replayPosition(rows, ctx);
  const m = positionMetrics(st, ctx, nowOf(ctx));
  expectMatchesOracle(m, oracle(rows, ctx, nowOf(ctx)).m);
  return { st, m };
}

describe('replayPosition: hand-made cases (DESIGN §4.4)', () => {
  it('partial withdraw: average cost over the remaining shares, realized on the part sold', () => {
    const ctx = ctxOf(['1', '1.1', '1.2'], ['1', '1', '1']);
    const { m } = run([row('deposit', T0 + 10, usdc(100), sh(100)), row('withdraw', T0 + H + 10, usdc(44), sh(40))], ctx);
    expect(m.shares_owned).toBe('60');
    expect(m.cost_basis).toEqual({ native: '60', usd: '60' });
    expect(m.value).toEqual({ native: '72', usd: '72' });
    expect(m.pnl.realized).toEqual({ native: '4', usd: '4' });
    expect(m.pnl.unrealized).toEqual({ native: '12', usd: '12' });
    expect(m.pnl.total).toEqual({ native: '16', usd: '16' });
    expect(m.roi_pct.native).toBeCloseTo(20, 9);
    expect(m.roi_pct.usd).toBeCloseTo(20, 9);
  });

  it('async deposit settled (USD cost at the request time) and one refunded', () => {
    const ctx = ctxOf(['1', '1', '1', '1', '1'], ['1', '2', '2', '2', '2']);
    const a = { request_hash: '0xa' };
    const b = { request_hash: '0xb' };
    const rows = [
      row('deposit_pending', T0 + 10, usdc(100), 0n, a),
      row('deposit_pending', T0 + 20, usdc(50), 0n, b),
      row('deposit', T0 + H + 10, usdc(100), sh(90), a),
      row('deposit_refunded', T0 + 2 * H + 10, usdc(50), 0n, b),
    ];
    const mid = replayPosition(rows.slice(0, 2), ctx);
    expect(positionMetrics(mid, ctx, T0 + 30).pending_deposit_assets).toEqual({ native: '150', usd: '150' });
    expect(positionMetrics(mid, ctx, T0 + 30).roi_pct).toEqual({ native: null, usd: null });
    expect(isPositionOpen(mid)).toBe(true);
    const { st, m } = run(rows, ctx);
    expect(m.shares_owned).toBe('90');
    expect(m.pending_deposit_assets).toEqual({ native: '0', usd: '0' });
    expect(m.cost_basis).toEqual({ native: '100', usd: '100' }); // not 200: priced when the assets left
    expect(st.openDeposits?.size ?? 0).toBe(0);
    expect(st.skipped).toBe(0);
  });

  it('async redeem settled (b = C·s/(S+Pr) before Pr −= s) and one refunded', () => {
    const ctx = ctxOf(['1', '1', '1', '1', '1', '1'], ['1', '1', '1', '1', '1', '1']);
    const a = { request_hash: '0xa' };
    const b = { request_hash: '0xb' };
    const rows = [
      row('deposit', T0 + 10, usdc(100), sh(100)),
      row('withdraw_pending', T0 + H, 0n, sh(30), a),
      row('withdraw_pending', T0 + H + 1, 0n, sh(20), b),
    ];
    const pending = replayPosition(rows, ctx);
    expect(positionMetrics(pending, ctx, nowOf(ctx)).shares_owned).toBe('50');
    expect(positionMetrics(pending, ctx, nowOf(ctx)).pending_redeem_shares).toBe('50');
    expect(positionMetrics(pending, ctx, nowOf(ctx)).cost_basis.native).toBe('100'); // escrowed basis stays in C
    rows.push(row('withdraw', T0 + 2 * H, usdc(36), sh(30), a));
    const settled = run(rows, ctx).m;
    // 100·30/(50+50) = 30, not 100·30/70 (Pr reduced first) nor 100·30/50 (S alone)
    expect(settled.cost_basis.native).toBe('70');
    expect(settled.pnl.realized.native).toBe('6');
    expect(settled.pending_redeem_shares).toBe('20');
    rows.push(row('withdraw_refunded', T0 + 3 * H, 0n, sh(20), b));
    const { st, m } = run(rows, ctx);
    expect(m.shares_owned).toBe('70');
    expect(m.pending_redeem_shares).toBe('0');
    expect(m.cost_basis.native).toBe('70');
    expect(st.openRedeems?.size ?? 0).toBe(0);
  });

  it('transfer in and out at market value: shares × the as-of published unit price, truncated', () => {
    const ctx = ctxOf(['1.234567891234567891', '1.3', '1.3'], ['1', '1', '1']);
    const { m } = run([row('transfer_in', T0 + 10, 0n, sh(10)), row('transfer_out', T0 + H + 10, 0n, sh(4))], ctx);
    // in: 10 × 1.234567891234567891 → 12.345678; out: 4 × 1.3 = 5.2 against b = 12.345678·4/10
    expect(m.cost_basis.native).toBe('7.407406'); // 7.4074068 truncated
    expect(m.pnl.realized.native).toBe('0.261728'); // 0.2617288 truncated
    expect(m.shares_owned).toBe('6');
  });

  it('price gap: a row without a USD price nulls every replay-derived USD leg, spot legs stay', () => {
    // USD prices at hours 0 and 3..5 only: a row in hour 2 + 30 min finds a price 50.5 h old
    const ctx = ctxOf(Array<string>(54).fill('1'), ['1', '1', '1'], 6, [T0, T0 + 52 * H, T0 + 53 * H]);
    const rows = [row('deposit', T0 + 10, usdc(100), sh(100)), row('deposit', T0 + 50 * H + 1800, usdc(10), sh(10))];
    const { m } = run(rows, ctx);
    expect(m.value).toEqual({ native: '110', usd: '110' });
    expect(m.cost_basis).toEqual({ native: '110', usd: null });
    expect(m.pnl.realized.usd).toBeNull();
    expect(m.pnl.unrealized.usd).toBeNull();
    expect(m.pnl.total.usd).toBeNull();
    expect(m.roi_pct.usd).toBeNull();
    expect(m.roi_pct.native).toBeCloseTo(0, 12);
    // 47 h old is still a price
    const ok = run([row('deposit', T0 + 47 * H, usdc(100), sh(100))], ctx).m;
    expect(ok.cost_basis.usd).toBe('100');
  });

  it('multi-token deposit: booked in numeraire units as units × unit_price(t)', () => {
    const ctx = ctxOf(['1.5', '1.5'], ['2', '2']);
    const { m } = run([row('deposit', T0 + 10, 5n * 10n ** 18n, sh(10), { token: '0xweth' })], ctx);
    expect(m.cost_basis).toEqual({ native: '15', usd: '30' });
    expect(m.pnl.unrealized.native).toBe('0');
  });

  it('corrupt rows are skipped and counted, never thrown, and leave the state alone', () => {
    const ctx = ctxOf(['1', '1', '1'], ['1', '1', '1']);
    const good = [row('deposit', T0 + 10, usdc(100), sh(100))];
    const bad = [
      row('deposit', T0 + 20, usdc(5), sh(5), { request_hash: '0xnone' }), // settlement without request
      row('deposit_refunded', T0 + 21, usdc(5), 0n, { request_hash: '0xnone' }),
      row('withdraw_refunded', T0 + 22, 0n, sh(5), { request_hash: '0xnone' }),
      row('withdraw', T0 + 23, usdc(5), sh(5), { request_hash: '0xnone' }),
      row('withdraw', T0 + 24, usdc(500), sh(101)), // more than held
      row('transfer_out', T0 + 25, 0n, sh(100.5)),
      row('withdraw_pending', T0 + 26, 0n, sh(200), { request_hash: '0xr' }),
      row('deposit', T0 + 27, 0n, sh(1)), // zero assets
      row('deposit', T0 + 28, -5n, sh(1)),
      row('transfer_in', T0 + 29, 0n, 0n),
      row('deposit_pending', T0 + 30, usdc(1), 0n), // no hash
      row('deposit_pending', T0 + 31, usdc(1), 0n, { request_hash: '0xd' }),
      row('deposit_pending', T0 + 32, usdc(1), 0n, { request_hash: '0xd' }), // duplicate
      row('withdraw', T0 + 33, -1n, sh(1)),
    ];
    const st = replayPosition([...good, ...bad], ctx);
    expect(st.skipped).toBe(bad.length - 1);
    expect(st.firstSkip).toEqual({ row: `1:${bad[0]!.block_number}:0:0`, reason: 'no_matching_request' });
    const m = positionMetrics(st, ctx, nowOf(ctx));
    expect(m.shares_owned).toBe('100');
    expect(m.cost_basis.native).toBe('100');
    expect(m.pending_deposit_assets.native).toBe('1');
    expectMatchesOracle(m, oracle([...good, ...bad], ctx, nowOf(ctx)).m);
  });

  it('a row before the first snapshot is valued at unit price 1 (DESIGN §4.1)', () => {
    const ctx = ctxOf(['2', '2'], ['1', '1'], 6, [T0 - H, T0]);
    const { m } = run([row('transfer_in', T0 - 60, 0n, sh(3))], ctx);
    expect(m.cost_basis.native).toBe('3');
    expect(m.value.native).toBe('6');
  });

  it('a fully exited position is not open, keeps its realized PnL and has zero cost basis', () => {
    const ctx = ctxOf(['1', '1.1', '1.2'], ['1', '1', '1']);
    const { st, m } = run(
      [row('deposit', T0 + 10, usdc(30), sh(30)), row('withdraw', T0 + H, usdc(11), sh(10)), row('transfer_out', T0 + 2 * H, 0n, sh(20))],
      ctx,
    );
    expect(isPositionOpen(st)).toBe(false);
    expect(m.cost_basis).toEqual({ native: '0', usd: '0' });
    expect(m.pnl.unrealized.native).toBe('0');
    expect(m.pnl.realized.native).toBe('5'); // 11 − 10 + 24 − 20
    expect(m.roi_pct.native).toBeCloseTo(20, 9);
  });

  it('USD strings round half to even at 6 places; a price exactly 48 h old still counts', () => {
    const ctx = ctxOf(['1', '1', '1'], ['0.5'], 6, [T0 - 48 * H]);
    // 1 base unit × 0.5 = 0.0000005 → 0 (even); 3 units → 0.0000015 → 0.000002
    const one = run([row('deposit', T0, 1n, 10n ** 12n)], ctx).m;
    expect(one.cost_basis.usd).toBe('0');
    const three = run([row('deposit', T0, 3n, 3n * 10n ** 12n)], ctx).m;
    expect(three.cost_basis.usd).toBe('0.000002');
    expect(run([row('deposit', T0 + 1, 3n, 3n * 10n ** 12n)], ctx).m.cost_basis.usd).toBeNull();
  });

  it('no USD series at all: every USD leg is null, native legs present', () => {
    const ctx = ctxOf(['1', '1'], undefined);
    const { m } = run([row('deposit', T0 + 10, usdc(7), sh(7))], ctx);
    expect(m.value).toEqual({ native: '7', usd: null });
    expect(positionNow(ctx)).toBe(T0 + H);
    expect(positionNow({ ...ctx, series: makeSeries([], [], 6) })).toBeNull();
    expect(m.pnl.total).toEqual({ native: '0', usd: null });
    expect(m.roi_pct.usd).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
// Random row sequences
// ---------------------------------------------------------------------------------------------

describe('replayPosition: random row sequences against the oracle', () => {
  it('metrics equal the exact oracle; pnl.total is the sum of the published parts', () => {
    fc.assert(
      fc.property(worldArb, ({ ctx, rows, now }) => {
        const st = replayPosition(rows, ctx);
        const m = positionMetrics(st, ctx, now);
        const want = oracle(rows, ctx, now);
        expectMatchesOracle(m, want.m);
        expect(st.skipped).toBe(want.skipped);
        expect(isPositionOpen(st)).toBe(want.open);
        expect(m.pnl.total.native).toBe(sumStr(m.pnl.realized.native, m.pnl.unrealized.native));
        if (m.pnl.total.usd !== null) expect(m.pnl.total.usd).toBe(sumStr(m.pnl.realized.usd!, m.pnl.unrealized.usd!));
      }),
      { numRuns: 250 },
    );
  });

  it('shares never go negative; disposing of every share leaves zero cost basis', () => {
    fc.assert(
      fc.property(worldArb, ({ ctx, rows }) => {
        const st = createPositionState(ctx);
        const table = eventTableOf(rows);
        for (let i = 0; i < table.length; i++) {
          applyRow(st, table, i, ctx);
          expect(st.shares >= 0n && st.pendingRedeemShares >= 0n && st.pendingDepositAssets >= 0n).toBe(true);
          expect(st.cost >= 0n).toBe(true);
          if (st.shares === 0n && st.pendingRedeemShares === 0n) {
            expect(st.cost).toBe(0n);
            if (st.usdComplete) expect(st.costUsd).toBe(0n);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('replayPosition: the demo world', () => {
  it('a few hundred demo positions: no throws, no skips, equal to the oracle, invariants hold', () => {
    const NOW = Date.UTC(2026, 0, 15, 10) / 1000;
    const w = demoPositions({ seed: 7, now: NOW, vaults: null, wallets: 300, days: 120 });
    // the richest positions first (async lifecycles, transfers), then a spread of the rest
    const sorted = [...w.positions].sort((a, b) => b.rows.length - a.rows.length);
    const chosen = [...sorted.slice(0, 150), ...sorted.filter((_, i) => i % 7 === 0).slice(0, 150)];
    const kinds = new Set<string>();
    let open = 0;
    let usdNull = 0;
    for (const p of chosen) {
      const ctx = w.contexts.get(p.vault_id)!;
      const now = ctx.series.ts[ctx.series.length - 1]!;
      const st = replayPosition(p.rows, ctx);
      const m = positionMetrics(st, ctx, now);
      expect(st.skipped).toBe(0);
      expectMatchesOracle(m, oracle(p.rows, ctx, now).m);
      expect(m.pnl.total.native).toBe(sumStr(m.pnl.realized.native, m.pnl.unrealized.native));
      for (const r of p.rows) kinds.add(`${r.kind}${r.request_hash ? '+hash' : ''}`);
      if (isPositionOpen(st)) open++;
      if (m.cost_basis.usd === null) usdNull++;
    }
    // the sample covers every lifecycle, open and exited positions, priced and unpriced vaults
    expect([...kinds].sort()).toEqual(
      [
        'deposit',
        'deposit+hash',
        'deposit_pending+hash',
        'deposit_refunded+hash',
        'transfer_in',
        'transfer_out',
        'withdraw',
        'withdraw+hash',
        'withdraw_pending+hash',
        'withdraw_refunded+hash',
      ].sort(),
    );
    expect(open).toBeGreaterThan(0);
    expect(open).toBeLessThan(chosen.length);
    expect(usdNull).toBeGreaterThan(0);
  });
});
