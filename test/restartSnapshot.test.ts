// Issue #9, restart without recompute: `vaultd serve` on a store whose inputs are unchanged
// serves the snapshot it saved at its last publish (no recompute) with the same identity —
// ETags and refreshed_at, its inputs' stamp read from where the last run saved it (not hashed
// again); a bit-flipped saved file is refused and the server recomputes (to the same identity);
// other inputs are recomputed.
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vaultd, vaultdSpawn, waitForListening } from './helpers/cli.js';
import { tempDir } from './helpers/common.js';

const NOW = '2026-06-01T00:00:00Z';
let dir: string;
let db: string;
let wallet: string;

beforeAll(() => {
  dir = tempDir();
  db = join(dir, 'world.duckdb');
  const r = vaultd(['demo', '--db', db, '--seed', '7', '--now', NOW, '--wallets', '50', '--days', '30']);
  expect(r.status, r.stderr).toBe(0);
  const w = vaultd(['wallets', '--db', db, '--limit', '1']);
  expect(w.status, w.stderr).toBe(0);
  wallet = w.stdout.trim();
});
afterAll(() => {});

interface Run {
  log: string;
  answers: Record<string, { etag: string | null; refreshed: string | null; body: string }>;
}

async function serveOnce(): Promise<Run> {
  const child: ChildProcess = vaultdSpawn(['serve', '--db', db, '--port', '0', '--no-jobs']);
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  try {
    const port = await waitForListening(child);
    const base = `http://127.0.0.1:${port}`;
    const vaults = (await (await fetch(`${base}/v1/vaults`)).json()) as { data: { vault_id: string }[] };
    const v = vaults.data[0]!.vault_id;
    const answers: Run['answers'] = {};
    const paths = [
      '/v1/vaults',
      `/v1/vaults/${v}`,
      `/v1/vaults/${v}/timeseries?granularity=hour&limit=500`,
      '/v1/tvl',
      // what snapshot files keep beyond the plain answers: snapshots' blocks, positions' returns (DESIGN §11)
      `/v1/vaults/${v}/apy`,
      `/v1/users/${wallet}/positions?include=returns`,
    ];
    for (const path of paths) {
      const res = await fetch(`${base}${path}`, { headers: { 'x-request-id': 'same' } });
      expect(res.status).toBe(200);
      const body = await res.text();
      answers[path] = { etag: res.headers.get('etag'), refreshed: /"refreshed_at":"([^"]+)"/.exec(body)?.[1] ?? null, body };
    }
    // the files of this publish are on disk before the process ends (SIGTERM flushes them)
    return { log, answers };
  } finally {
    await new Promise((r) => {
      child.once('exit', r);
      child.kill('SIGTERM');
    });
  }
}

describe('restart without recompute', () => {
  it('serves the saved snapshot with the same ETags and refreshed_at; refuses a damaged file', async () => {
    const first = await serveOnce();
    expect(first.log).toMatch(/"msg":"recomputed"/);
    expect(first.log).not.toMatch(/serving the saved snapshot/);
    expect(first.answers[`/v1/users/${wallet}/positions?include=returns`]!.body).toContain('"twr_pct"');

    const second = await serveOnce();
    expect(second.log).toMatch(/serving the saved snapshot \(inputs unchanged\)/);
    // the first run's stamp was saved beside the file as it closed it: no row is hashed again
    expect(second.log).toMatch(/"stamp_from":"saved"/);
    expect(second.log).not.toMatch(/"msg":"recomputed"/);
    expect(second.answers).toEqual(first.answers);

    // flip one bit of the saved series: refused by its checksum, recomputed to the same identity
    const snap = `${db}.snapshot`;
    const manifest = JSON.parse(readFileSync(join(snap, 'manifest.json'), 'utf8')) as { files: { series: { name: string } } };
    const path = join(snap, manifest.files.series.name);
    const bytes = readFileSync(path);
    bytes[bytes.length >> 1]! ^= 0x10;
    writeFileSync(path, bytes);
    const third = await serveOnce();
    expect(third.log).toMatch(/saved snapshot refused; recomputing/);
    expect(third.log).toMatch(/"msg":"recomputed"/);
    expect(third.answers).toEqual(first.answers);

    // and that recompute saved good files again
    const fourth = await serveOnce();
    expect(fourth.log).toMatch(/serving the saved snapshot/);
    expect(fourth.answers).toEqual(first.answers);
  });

  it('recomputes when the inputs changed', async () => {
    const r = vaultd(['demo', '--db', db, '--seed', '8', '--now', NOW, '--wallets', '50', '--days', '30', '--force']);
    expect(r.status, r.stderr).toBe(0);
    const run = await serveOnce();
    expect(run.log).toMatch(/saved snapshot is of other inputs; recomputing/);
    expect(run.log).toMatch(/"msg":"recomputed"/);
  });
});
