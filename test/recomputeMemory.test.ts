// `vaultd recompute --full` holds memory set by its configuration, not by the world (issue #39):
// on a 400-vault world of two years (6.8 M hourly snapshots, ~880 MB of series and events held
// at once), with `recompute.pass_memory_mb: 32` the run's peak resident memory — as the process
// itself reads it from getrusage at its end, every thread and DuckDB included — stays under
// 1 GiB (measured: 0.74 GiB), while one pass holding the whole world goes past it (1.32 GiB):
// the bound tells the two apart. Bytes, not seconds: no clock is asserted.
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vaultd } from './helpers/cli.js';
import { tempDir } from './helpers/common.js';

const BOUND = 2 ** 30;

let dir: string;
let world: string;

beforeAll(() => {
  dir = tempDir('vaultd-recompute-memory-');
  world = join(dir, 'world.duckdb');
  const r = vaultd(['demo', '--db', world, '--vaults', '400', '--wallets', '4000', '--days', '730', '--now', '2026-11-28T12:00:00Z']);
  expect(r.status, r.stderr).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `recompute --full` on a copy of the world with `pass_memory_mb`: its passes and the peak it logs. */
function recompute(passMemoryMb: number): { passes: number; maxRss: number } {
  const db = join(dir, `run-${passMemoryMb}.duckdb`);
  copyFileSync(world, db);
  const config = join(dir, `run-${passMemoryMb}.json`);
  writeFileSync(config, JSON.stringify({ recompute: { pass_memory_mb: passMemoryMb } }));
  const r = vaultd(['recompute', '--full', '--db', db, '--config', config], { VAULTD_LOG_LEVEL: 'info' });
  expect(r.status, r.stderr).toBe(0);
  const peak = /"max_rss_bytes":(\d+)[^\n]*"msg":"recompute peak memory"/.exec(r.stderr);
  expect(peak, r.stderr).not.toBeNull();
  rmSync(db, { force: true });
  return { passes: Number(/; (\d+) pass(?:es)? of at most/.exec(r.stdout)?.[1]), maxRss: Number(peak![1]) };
}

describe('recompute --full memory', () => {
  it('stays under 1 GiB with 32 MiB passes on a world whose series and events alone are ~880 MB; one pass of all of it does not', () => {
    const small = recompute(32);
    expect(small.passes).toBeGreaterThan(10);
    expect(small.maxRss).toBeLessThan(BOUND);
    const whole = recompute(4096);
    expect(whole.passes).toBe(1);
    expect(whole.maxRss).toBeGreaterThan(BOUND);
  }, 240_000);
});
