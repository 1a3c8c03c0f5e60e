// The positions and activity tables of `vaultd recompute --full` equal the ones DuckDB SQL alone
// computes (bench/scale/sqlPositions.ts, sqlActivity.ts — the scale bench's baselines): every
// column, EXCEPT ALL both ways. On the demo world, and on small random worlds (fast-check): the
// demo world with random events added to three of its vaults — any kind (an unknown one too),
// numeraire tokens in either letter case and foreign ones, shared requests, NULL and odd hashes,
// zero, negative and large amounts — so the replay's skip and request-matching rules are hit.
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareDerivedTables } from '../bench/scale/sqlDerived.js';
import type { EventRow } from '../model/rows.js';
import { createRawWriter } from '../store/rawWriter.js';
import { createStore } from '../store/store.js';
import { vaultd, smallDemoDb } from './helpers/cli.js';
import { tempDir, testCommon } from './helpers/common.js';
import { eventRowsArb } from './helpers/eventArb.js';

const dir = tempDir();
const template = join(dir, 'demo.duckdb');
/** the random events' base: the same world over 4 days, enough for the 60 h the events land in */
const base = join(dir, 'base.duckdb');
beforeAll(() => {
  // small, so the SQL replay (a recursive CTE, one row of every position an iteration, ~0.2 s
  // each: the iterations are the most rows of one position) stays quick
  smallDemoDb(template, ['--seed', '7', '--now', '2026-06-01T00:00:00Z', '--wallets', '12', '--days', '10']);
  // 18 iterations before the random rows instead of 59: the random worlds' rules are hit alike
  smallDemoDb(base, ['--seed', '7', '--now', '2026-06-01T00:00:00Z', '--wallets', '12', '--days', '4']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** recompute --full on `db`, then both SQL tables against vaultd's */
async function recomputeAndCompare(db: string) {
  const r = vaultd(['recompute', '--full', '--db', db]);
  expect(r.status, r.stderr).toBe(0);
  const store = await createStore(testCommon(), { path: db, mustExist: true });
  try {
    return await compareDerivedTables(store);
  } finally {
    await store.close();
  }
}

/** the SQL replay raises past S + Pr ≥ 2^95 at a partial disposal: random amounts stay below it */
const CAP = 10n ** 26n;

describe('recompute --full equals DuckDB SQL alone (positions, activity)', () => {
  it('on the demo world', async () => {
    const db = join(dir, 'plain.duckdb');
    copyFileSync(template, db);
    const out = await recomputeAndCompare(db);
    expect(out.activity.diff.rows_a).toBeGreaterThan(100);
    expect(out.positions.diff.rows_a).toBeGreaterThan(20);
    expect(out.activity.diff).toMatchObject({ only_a: 0, only_b: 0, rows_b: out.activity.diff.rows_a });
    expect(out.positions.diff).toMatchObject({ only_a: 0, only_b: 0, rows_b: out.positions.diff.rows_a });
  });

  it('on random small worlds', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(eventRowsArb({ maxLength: 40 }), async (rows) => {
        const db = join(dir, `random-${run++}.duckdb`);
        copyFileSync(base, db);
        const store = await createStore(testCommon(), { path: db, mustExist: true });
        let added: EventRow[];
        try {
          const vaults = await store.rows<{ vault_id: string; numeraire_address: string; t: bigint }>(
            'test.vaults',
            'SELECT vault_id, numeraire_address, (SELECT epoch(max(ts))::BIGINT FROM vault_snapshots) AS t FROM vaults ORDER BY vault_id LIMIT 3',
          );
          const end = Number(vaults[0]!.t);
          const arbVaults = [...new Set(rows.map((r) => r.vault_id))];
          added = rows.map((r) => {
            const v = vaults[arbVaults.indexOf(r.vault_id) % vaults.length]!;
            const num = v.numeraire_address;
            const token = r.token === '0xnum' ? num : r.token === '0xNUM' ? `0x${num.slice(2).toUpperCase()}` : `0x${'ab'.repeat(20)}`;
            const cap = (x: bigint) => (x > CAP ? x % CAP : x);
            // chain 1's demo blocks stay below 10^9; the random hours end within the demo's last days
            return {
              ...r,
              vault_id: v.vault_id,
              block_number: 1_000_000_000 + r.block_number,
              ts: end - 60 * 3600 + (r.ts - 1_700_000_000) * 2,
              token,
              assets: cap(r.assets),
              shares: cap(r.shares),
            };
          });
          const writer = await createRawWriter(store, 'append');
          for (const r of added) writer.sink.event(r);
          await writer.finish();
        } finally {
          await store.close();
        }
        const out = await recomputeAndCompare(db);
        rmSync(db, { force: true });
        expect(
          out.activity.diff,
          JSON.stringify(added.slice(0, 5), (_, x) => (typeof x === 'bigint' ? String(x) : x)),
        ).toMatchObject({ only_a: 0, only_b: 0 });
        expect(out.positions.diff).toMatchObject({ only_a: 0, only_b: 0 });
        expect(out.positions.diff.rows_a).toBe(out.positions.diff.rows_b);
      }),
      { numRuns: 4 },
    );
  }, 600_000); // four recomputes and SQL replays: minutes on a loaded machine
});
