// Random ledgers of one wallet in one vault (DESIGN §4.4 row kinds): sync and async deposits
// and redeems that settle or are refunded, transfers in and out, foreign-token deposits and a few
// corrupt rows, over a noisy hourly unit price and a USD feed that may have gaps or be missing.
// Shared by the cost-basis replay's tests and the FIFO/returns audit's (engine/audit).
import fc from 'fast-check';
import type { EventKind, EventRow } from '../../model/rows.js';
import type { PriceSeries } from '../../model/world.js';
import type { PositionContext } from '../../engine/positions/replayPosition.js';
import { makePrices, makeSeries } from './positionFixtures.js';

const abs = (x: bigint) => (x < 0n ? -x : x);

/** A base-unit integer as a plain decimal string at `dp` places. */
export function digits(v: bigint, dp: number): string {
  const neg = v < 0n;
  const s = abs(v)
    .toString()
    .padStart(dp + 1, '0');
  const int = s.slice(0, s.length - dp);
  const frac = s.slice(s.length - dp).replace(/0+$/, '');
  const out = frac ? `${int}.${frac}` : int;
  return neg && out !== '0' ? '-' + out : out;
}

export const H = 3600;
export const T0 = 1_699_999_200; // on the hour
export const NUM = '0xnum';
export const WALLET = '0xw';

let seq = 0;
export function row(kind: EventKind, ts: number, assets: bigint, shares: bigint, extra: Partial<EventRow> = {}): EventRow {
  seq++;
  return {
    chain_id: 1,
    block_number: 1000 + seq,
    log_index: 0,
    sub_index: 0,
    block_hash: '0xb' + seq,
    tx_hash: '0xt' + seq,
    ts,
    vault_id: '1:0xvault',
    kind,
    wallet: WALLET,
    counterparty: kind.startsWith('transfer') ? '0xother' : null,
    token: NUM,
    assets,
    shares,
    request_hash: null,
    ...extra,
  };
}

export interface LedgerWorld {
  ctx: PositionContext;
  rows: EventRow[];
  now: number;
}

const opArb = fc.record({
  op: fc.constantFrom(
    'deposit',
    'deposit',
    'request_deposit',
    'settle_deposit',
    'refund_deposit',
    'withdraw',
    'withdraw_all',
    'request_redeem',
    'settle_redeem',
    'refund_redeem',
    'transfer_in',
    'transfer_out',
    'foreign_deposit',
    'corrupt',
  ),
  amount: fc.bigInt({ min: 1n, max: 10n ** 9n }),
  permille: fc.integer({ min: 1, max: 1000 }),
  dt: fc.integer({ min: 0, max: 6 * H }),
  pick: fc.nat(),
});

export const worldArb = fc
  .record({
    decimals: fc.constantFrom(2, 6, 8, 18),
    hours: fc.integer({ min: 2, max: 150 }),
    steps: fc.array(fc.integer({ min: -40, max: 60 }), { minLength: 150, maxLength: 150 }),
    usdMode: fc.constantFrom('full', 'full', 'gappy', 'none'),
    usdSeed: fc.array(fc.integer({ min: 1, max: 5_000_000 }), { minLength: 150, maxLength: 150 }),
    // a block of missing hourly prices, often longer than the 48 h staleness limit
    gap: fc.record({ at: fc.integer({ min: 1, max: 100 }), len: fc.integer({ min: 20, max: 100 }) }),
    ops: fc.array(opArb, { minLength: 1, maxLength: 60, size: 'max' }),
    start: fc.integer({ min: -2 * H, max: 10 * H }),
  })
  .map((w): LedgerWorld => {
    const ts = Array.from({ length: w.hours }, (_, i) => T0 + i * H);
    let p = 10n ** 18n;
    const unit = ts.map((_, i) => {
      p = (p * (100_000n + BigInt(w.steps[i]!))) / 100_000n + BigInt(w.steps[i]! * 7919); // odd digits
      return p;
    });
    const series = makeSeries(
      ts,
      unit.map((x) => digits(x, 18)),
      w.decimals,
    );
    let prices: PriceSeries | undefined;
    if (w.usdMode !== 'none') {
      const keep = ts.map((t, i) => ({ t, i })).filter(({ i }) => w.usdMode === 'full' || i < w.gap.at || i >= w.gap.at + w.gap.len);
      prices = makePrices(
        keep.map((k) => k.t),
        keep.map((k) => digits(BigInt(w.usdSeed[k.i]!) * 1_234_567_891n, 15)),
        1,
        NUM,
      );
    }
    const ctx: PositionContext = { series, prices, numeraire: { address: NUM, decimals: w.decimals, symbol: 'N' } };
    // realize the ops into rows that are mostly valid, tracking an estimate of the state
    const rows: EventRow[] = [];
    let t = T0 + w.start;
    let S = 0n;
    let n = 0;
    const deps: { h: string; a: bigint }[] = [];
    const reds: { h: string; s: bigint }[] = [];
    const base = 10n ** BigInt(w.decimals);
    const sharesFor = (a: bigint) => (a * 10n ** 18n) / base + 1n;
    for (const o of w.ops) {
      // rows stay within the series, a few in the half hour after its last snapshot
      t = Math.min(t + o.dt, T0 + (w.hours - 1) * H + 1800);
      const mk = (kind: EventKind, assets: bigint, shares: bigint, extra: Partial<EventRow> = {}) => {
        n++;
        rows.push({ ...row(kind, t, assets, shares, extra), block_number: 5000 + n, log_index: n });
      };
      const part = (x: bigint) => (x * BigInt(o.permille)) / 1000n;
      switch (o.op) {
        case 'deposit': {
          const s = sharesFor(o.amount);
          mk('deposit', o.amount, s);
          S += s;
          break;
        }
        case 'foreign_deposit': {
          const s = sharesFor(o.amount);
          mk('deposit', o.amount * 3n, s, { token: '0xforeign' });
          S += s;
          break;
        }
        case 'request_deposit': {
          const h = `0xd${n}`;
          deps.push({ h, a: o.amount });
          mk('deposit_pending', o.amount, 0n, { request_hash: h, token: o.permille % 5 === 0 ? '0xforeign' : NUM });
          break;
        }
        case 'settle_deposit':
        case 'refund_deposit': {
          const r = deps.splice(o.pick % Math.max(1, deps.length), 1)[0];
          if (!r) break;
          const s = sharesFor(r.a);
          if (o.op === 'settle_deposit') {
            mk('deposit', r.a, s, { request_hash: r.h });
            S += s;
          } else mk('deposit_refunded', r.a, 0n, { request_hash: r.h });
          break;
        }
        case 'withdraw':
        case 'withdraw_all': {
          const s = o.op === 'withdraw_all' ? S : part(S);
          if (s === 0n) break;
          mk('withdraw', part(o.amount * 2n), s);
          S -= s;
          break;
        }
        case 'request_redeem': {
          const s = part(S);
          if (s === 0n) break;
          const h = `0xr${n}`;
          reds.push({ h, s });
          mk('withdraw_pending', 0n, s, { request_hash: h });
          S -= s;
          break;
        }
        case 'settle_redeem':
        case 'refund_redeem': {
          const r = reds.splice(o.pick % Math.max(1, reds.length), 1)[0];
          if (!r) break;
          if (o.op === 'settle_redeem') mk('withdraw', o.amount, r.s, { request_hash: r.h });
          else {
            mk('withdraw_refunded', 0n, r.s, { request_hash: r.h });
            S += r.s;
          }
          break;
        }
        case 'transfer_in':
          mk('transfer_in', 0n, sharesFor(o.amount));
          S += sharesFor(o.amount);
          break;
        case 'transfer_out': {
          const s = o.permille > 900 ? S : part(S);
          if (s === 0n) break;
          mk('transfer_out', 0n, s);
          S -= s;
          break;
        }
        case 'corrupt': {
          const variants: [EventKind, bigint, bigint, Partial<EventRow>][] = [
            ['deposit', o.amount, sharesFor(o.amount), { request_hash: '0xghost' }],
            ['withdraw', o.amount, S + 1n, {}],
            ['transfer_out', 0n, S + o.amount, {}],
            ['deposit', 0n, 1n, {}],
            ['withdraw_refunded', 0n, 5n, { request_hash: '0xghost' }],
            ['deposit_pending', o.amount, 0n, { request_hash: null }],
          ];
          const [k, a, s, x] = variants[o.pick % variants.length]!;
          mk(k, a, s, x);
          break;
        }
      }
    }
    return { ctx, rows, now: ts[ts.length - 1]! };
  });
