// The wallet index (index arrays) equals a naive model of DESIGN §4.6 and §5.2: each wallet's
// rows in wallet-wide order, positions numbered by first appearance in the event stream, each
// position's rows in (block_number, log_index, sub_index) order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventRows, eventTableOf } from '../../model/events.js';
import type { EventRow } from '../../model/rows.js';
import { eventRowsArb, worldOrder } from '../../test/helpers/eventArb.js';
import { buildWalletIndex } from './walletIndex.js';

function naive(rows: EventRow[]) {
  const activity = new Map<string, EventRow[]>();
  const positions: { wallet: string; vault: string; rows: EventRow[] }[] = [];
  for (const e of rows) {
    activity.set(e.wallet, [...(activity.get(e.wallet) ?? []), e]);
    let p = positions.find((x) => x.wallet === e.wallet && x.vault === e.vault_id);
    if (!p) positions.push((p = { wallet: e.wallet, vault: e.vault_id, rows: [] }));
    p.rows.push(e);
  }
  for (const p of positions) p.rows.sort((a, b) => a.block_number - b.block_number || a.log_index - b.log_index || a.sub_index - b.sub_index);
  return { activity, positions };
}

describe('buildWalletIndex', () => {
  it('equals the naive grouping (oracle), ids included', () => {
    fc.assert(
      fc.property(eventRowsArb({ maxLength: 80 }), (raw) => {
        const rows = [...raw].sort(worldOrder);
        const t = eventTableOf(rows);
        const x = buildWalletIndex(t);
        const all = eventRows(t);
        const want = naive(rows);
        const wallets = t.dict.wallets.values;
        for (let w = 0; w < x.wallets; w++) {
          const got = [...x.activity.subarray(x.activityStart[w], x.activityStart[w + 1])].map((i) => all[i]);
          expect(got).toEqual(want.activity.get(wallets[w]!) ?? []);
          const mine = [...x.walletPos.subarray(x.walletPosStart[w], x.walletPosStart[w + 1])];
          expect(mine.map((p) => p + 1)).toEqual(want.positions.flatMap((p, k) => (p.wallet === wallets[w] ? [k + 1] : [])));
        }
        expect(x.positions).toBe(want.positions.length);
        want.positions.forEach((p, k) => {
          expect(wallets[x.posWallet[k]!]).toBe(p.wallet);
          expect(t.dict.vaults.values[x.posVault[k]!]).toBe(p.vault);
          expect([...x.rows.subarray(x.rowStart[k], x.rowStart[k + 1])].map((i) => all[i])).toEqual(p.rows);
        });
      }),
      { numRuns: 200 },
    );
  });
});
