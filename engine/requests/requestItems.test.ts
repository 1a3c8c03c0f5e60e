// Request state derivation (DESIGN §11.8) against a naive oracle: for random request histories
// (settled, refunded, unresolved, resolutions with no request seen, deadlines or none, any "now"),
// the items made from the wallet's rows say what a scan of every row for each hash says.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventTableOf, identity } from '../../model/events.js';
import type { EventKind, EventRow } from '../../model/rows.js';
import { requestTermsKey, type RequestTerms } from '../../model/world.js';
import { requestItemOf, requestStatus, walletRequestRows } from './requestItems.js';

const VAULT = '1:0x00000000000000000000000000000000000000a1';
const WALLET = '0x00000000000000000000000000000000000000b2';
const hex = (n: number, tag: number) => `0x${tag.toString(16).padStart(8, '0')}${n.toString(16).padStart(56, '0')}`;

interface Spec {
  deposit: boolean;
  at: number;
  /** null: unresolved */
  fate: { refund: boolean; after: number } | null;
  deadline: number | null;
  amount: bigint;
}

const spec = fc.record({
  deposit: fc.boolean(),
  at: fc.integer({ min: 1_000, max: 100_000 }),
  fate: fc.option(fc.record({ refund: fc.boolean(), after: fc.integer({ min: 1, max: 50_000 }) })),
  deadline: fc.option(fc.integer({ min: 0, max: 200_000 })),
  amount: fc.bigInt({ min: 1n, max: 10n ** 24n }),
});

function rowsOf(specs: Spec[], orphans: number[]): EventRow[] {
  const rows: EventRow[] = [];
  const row = (kind: EventKind, ts: number, request: string, assets: bigint, shares: bigint): EventRow => ({
    chain_id: 1,
    block_number: ts,
    log_index: rows.length,
    sub_index: 0,
    block_hash: hex(ts, 1),
    tx_hash: hex(rows.length, 2),
    ts,
    vault_id: VAULT,
    kind,
    wallet: WALLET,
    counterparty: null,
    token: '0x00000000000000000000000000000000000000c3',
    assets,
    shares,
    request_hash: request,
  });
  specs.forEach((q, k) => {
    const h = hex(k, 3);
    rows.push(q.deposit ? row('deposit_pending', q.at, h, q.amount, 0n) : row('withdraw_pending', q.at, h, 0n, q.amount));
    if (q.fate) {
      const ts = q.at + q.fate.after;
      const kind: EventKind = q.deposit ? (q.fate.refund ? 'deposit_refunded' : 'deposit') : q.fate.refund ? 'withdraw_refunded' : 'withdraw';
      rows.push(row(kind, ts, h, q.amount, q.amount));
    }
  });
  // resolutions of requests made before the data: not requests of this wallet
  for (const [k, ts] of orphans.entries()) rows.push(row('deposit', ts, hex(k, 4), 1n, 1n));
  return rows.sort((a, b) => a.ts - b.ts || a.log_index - b.log_index);
}

describe('request items', () => {
  it('requestStatus: resolved wins; unresolved is expired only strictly past a deadline', () => {
    expect(requestStatus('settled', 0, 10)).toBe('settled');
    expect(requestStatus('refunded', null, 10)).toBe('refunded');
    expect(requestStatus(null, null, 1e12)).toBe('pending');
    expect(requestStatus(null, 10, 10)).toBe('pending');
    expect(requestStatus(null, 10, 11)).toBe('expired');
  });

  it('match a naive scan of every row (property)', () => {
    fc.assert(
      fc.property(
        fc.array(spec, { maxLength: 25 }),
        fc.array(fc.integer({ min: 1_000, max: 150_000 }), { maxLength: 4 }),
        fc.integer({ min: 0, max: 250_000 }),
        (specs, orphans, now) => {
          const rows = rowsOf(specs, orphans);
          const t = eventTableOf(rows);
          const terms = new Map<string, RequestTerms>(
            specs.map((q, k) => [requestTermsKey(VAULT, hex(k, 3)), { deadline: q.deadline, solver_tip: q.amount / 100n }]),
          );
          const got = walletRequestRows(t, identity(rows.length), 0, rows.length).map((r) => requestItemOf(t, r, 6, terms, now));
          // the oracle: every pending row is a request; its resolution is any other row of its hash
          const want = rows
            .filter((r) => r.kind.endsWith('_pending'))
            .map((open) => {
              const end = rows.find((r) => r.request_hash === open.request_hash && r !== open) ?? null;
              const k = Number.parseInt(open.request_hash!.slice(10), 16);
              const deadline = specs[k]!.deadline;
              const status = end ? (end.kind.endsWith('_refunded') ? 'refunded' : 'settled') : deadline !== null && now > deadline ? 'expired' : 'pending';
              return {
                hash: open.request_hash,
                type: open.kind === 'deposit_pending' ? 'deposit' : 'redeem',
                status,
                resolvedAt: end?.ts ?? null,
                age: Math.max(0, (end ? end.ts : now) - open.ts),
                refundable: status === 'expired',
              };
            });
          expect(
            got.map((q) => ({
              hash: q.request_hash,
              type: q.type,
              status: q.status,
              resolvedAt: q.resolved ? Date.parse(q.resolved.timestamp) / 1000 : null,
              age: q.age_seconds,
              refundable: q.refundable,
            })),
          ).toEqual(want);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('amounts: a deposit in numeraire units, a redeem in shares; the tip in the numeraire', () => {
    const rows = rowsOf(
      [
        { deposit: true, at: 1000, fate: null, deadline: 5000, amount: 1_234_500n },
        { deposit: false, at: 2000, fate: null, deadline: null, amount: 15n * 10n ** 17n },
      ],
      [],
    );
    const t = eventTableOf(rows);
    const terms = new Map<string, RequestTerms>([[requestTermsKey(VAULT, hex(0, 3)), { deadline: 5000, solver_tip: 2_500n }]]);
    const [dep, red] = walletRequestRows(t, identity(rows.length), 0, rows.length).map((r) => requestItemOf(t, r, 6, terms, 6000));
    expect(dep).toMatchObject({
      amount: '1.2345',
      solver_tip: '0.0025',
      deadline: '1970-01-01T01:23:20Z',
      status: 'expired',
      refundable: true,
      age_seconds: 5000,
    });
    expect(red).toMatchObject({ amount: '1.5', solver_tip: null, deadline: null, status: 'pending', refundable: false, age_seconds: 4000 });
  });
});
