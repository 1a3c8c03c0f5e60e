// Test helper: arbitrary raw event rows (fast-check) — canonical and odd hashes, NULL
// counterparties and request hashes, shared wallets and requests, any 128-bit magnitudes —
// for the event table, its loader and the wallet index.
import fc from 'fast-check';
import { EVENT_KINDS, type EventRow } from '../../model/rows.js';

const hex = (n: number) => fc.array(fc.constantFrom(...'0123456789abcdef'), { minLength: n, maxLength: n }).map((a) => a.join(''));
const hash = fc.oneof(
  { weight: 9, arbitrary: hex(64).map((h) => `0x${h}`) },
  { weight: 1, arbitrary: fc.constantFrom('0xABC', 'not-a-hash', `0x${'F'.repeat(64)}`) },
);
const amount = fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.constantFrom(0n, 1n, (1n << 127n) - 1n, -5n));

/** Rows with distinct keys, in no particular order. */
export const eventRowsArb = (opts: { maxLength?: number } = {}) =>
  fc
    .record({
      wallets: fc.uniqueArray(
        hex(40).map((h) => `0x${h}`),
        { minLength: 1, maxLength: 6 },
      ),
      vaults: fc.uniqueArray(
        fc.integer({ min: 1, max: 9 }).map((k) => `1:0x${String(k).repeat(40)}`),
        { minLength: 1, maxLength: 3 },
      ),
      requests: fc.uniqueArray(hash, { minLength: 1, maxLength: 4 }),
      rows: fc.array(
        fc.record({
          ts: fc.integer({ min: 0, max: 20 }).map((h) => 1_700_000_000 + h * 3600),
          block: fc.integer({ min: 1, max: 40 }),
          kind: fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...EVENT_KINDS) }, { weight: 1, arbitrary: fc.constant('mystery') }),
          w: fc.nat(),
          cp: fc.option(fc.nat(), { nil: null }),
          v: fc.nat(),
          req: fc.option(fc.nat(), { nil: null }),
          token: fc.constantFrom('0xnum', '0xNUM', '0xother'),
          assets: amount,
          shares: amount,
          block_hash: hash,
          tx_hash: hash,
        }),
        { maxLength: opts.maxLength ?? 60 },
      ),
    })
    .map(({ wallets, vaults, requests, rows }) =>
      rows.map(
        (r, k): EventRow => ({
          chain_id: 1,
          block_number: r.block,
          log_index: k,
          sub_index: k % 2,
          block_hash: r.block_hash,
          tx_hash: r.tx_hash,
          ts: r.ts,
          vault_id: vaults[r.v % vaults.length]!,
          kind: r.kind as EventRow['kind'],
          wallet: wallets[r.w % wallets.length]!,
          counterparty: r.cp === null ? null : wallets[r.cp % wallets.length]!,
          token: r.token,
          assets: r.assets,
          shares: r.shares,
          request_hash: r.req === null ? null : requests[r.req % requests.length]!,
        }),
      ),
    );

/** World order (DESIGN §4.6). */
export const worldOrder = (a: EventRow, b: EventRow) =>
  a.ts - b.ts || a.chain_id - b.chain_id || a.block_number - b.block_number || a.log_index - b.log_index || a.sub_index - b.sub_index;
