// The prefix-stable demo world (DESIGN §11.6, issue #34 item 2): `vaultd demo` of one seed and
// --start built to --now T0 holds exactly the rows with time ≤ T0 of the same world built to a
// later --now T1, table for table (EXCEPT ALL both ways), for an hour boundary and a mid-hour T0.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallDemoDb } from '../helpers/cli.js';
import { tempDir } from '../helpers/common.js';
import { compareUpTo } from './rawTables.js';

const dir = tempDir('vaultd-prefix-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WORLD = ['--seed', '7', '--start', '2026-05-01T00:00:00Z', '--wallets', '20', '--days', '12'];
const T1 = '2026-05-13T00:00:00Z';
const seconds = (iso: string) => Date.parse(iso) / 1000;

describe('vaultd demo: the world up to T0 does not depend on a later --now', () => {
  const b = join(dir, 'b.duckdb');
  beforeAll(() => smallDemoDb(b, [...WORLD, '--now', T1]));

  for (const t0 of ['2026-05-06T00:00:00Z', '2026-05-09T10:30:00Z', '2026-05-03T20:59:59Z']) {
    it(`--now ${t0} holds exactly the rows ≤ ${t0} of --now ${T1}`, async () => {
      const a = join(dir, `a-${seconds(t0)}.duckdb`);
      smallDemoDb(a, [...WORLD, '--now', t0]);
      const cmp = await compareUpTo(a, b, seconds(t0));
      expect(cmp.unknown, 'tables this test does not know (add them to test/timeTravel/rawTables.ts)').toEqual([]);
      expect(cmp.empty).toEqual([]);
      expect(cmp.diffs).toEqual([]);
      // nothing after T0 in the T0 world: its whole tables are the prefix
      const whole = await compareUpTo(a, a, null);
      expect(whole.counts).toEqual(cmp.counts);
      // the comparison sees a difference: one hour more of the later world is not in the T0 world
      const later = await compareUpTo(a, b, seconds(t0) + 3600);
      expect(later.diffs.map((d) => d.table)).toEqual(expect.arrayContaining(['vault_snapshots', 'prices']));
      expect(later.diffs.every((d) => d.onlyA === 0)).toBe(true);
    });
  }
});
