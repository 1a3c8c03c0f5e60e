// A command's whole output reaches a slow reader through a pipe: the CLI ends with
// process.exit(), which used to drop what the pipe had not taken yet (a `vaultd wallets`
// listing piped into a reader that waits was cut at the pipe's 64 KiB).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/common.js';
import { BIN, vaultd } from './helpers/cli.js';

let db: string;
beforeAll(() => {
  db = join(tempDir('vaultd-pipe-'), 'w.duckdb');
  const r = vaultd(['demo', '--db', db, '--seed', '3', '--now', '2026-06-01T00:00:00Z', '--vaults', '20', '--wallets', '12000', '--days', '120']);
  expect(r.status, r.stderr).toBe(0);
});

/** stdout of `vaultd …` through a shell pipe whose reader starts after a second (the pipe fills and the writer must wait). */
function slowRead(args: string[]): { status: number | null; text: string } {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const r = spawnSync('sh', ['-c', `${quoted} | (sleep 1; cat)`], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, VAULTD_LOG_LEVEL: 'warn' },
  });
  return { status: r.status, text: r.stdout };
}

describe('output through a pipe', () => {
  it('a slow reader gets every line of `vaultd wallets`', () => {
    const direct = vaultd(['wallets', '--db', db, '--limit', '10000']);
    expect(direct.status, direct.stderr).toBe(0);
    const lines = direct.stdout.trim().split('\n');
    // more than a pipe holds (64 KiB), so the writer has to wait for the reader
    expect(direct.stdout.length).toBeGreaterThan(64 * 1024);
    const slow = slowRead(['wallets', '--db', db, '--limit', '10000']);
    expect(slow.status).toBe(0);
    expect(slow.text.trim().split('\n')).toEqual(lines);
  });
});
