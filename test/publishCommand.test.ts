// Issue #11: `vaultd publish --db DB --out DIR` and a `vaultd serve --snapshot DIR` reader: the
// reader answers what `vaultd serve --db DB` answers (bodies and ETags), accepts the
// database's API keys and refuses revoked ones after the next publish, and bad input is one
// line and exit 2.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vaultd, vaultdSpawn, waitForListening, smallDemoDb, stopChildren } from './helpers/cli.js';
import { eventually } from './helpers/eventually.js';
import { tempDir } from './helpers/common.js';

let dir: string;
let db: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  dir = tempDir();
  db = join(dir, 'w.duckdb');
  smallDemoDb(db);
});
afterAll(async () => {
  await stopChildren(children);
});

async function start(args: string[]): Promise<string> {
  const child = vaultdSpawn(args);
  children.push(child);
  return `http://127.0.0.1:${await waitForListening(child)}`;
}

describe('vaultd publish and a snapshot reader', () => {
  it('the reader answers what serve answers, with the database keys', async () => {
    const key = vaultd(['keys', 'create', 'reader-test', '--db', db]);
    expect(key.status, key.stderr).toBe(0);
    const secret = key.stdout.trim().split('\n').at(-1)!;
    const out = join(dir, 'published');
    const pub = vaultd(['publish', '--db', db, '--out', out]);
    expect(pub.status, pub.stderr).toBe(0);
    expect(pub.stdout).toMatch(/^published generation \d+ \(refreshed_at [^)]+\) to .+: 8 files/m);
    expect(existsSync(join(out, 'manifest.json'))).toBe(true);

    const reader = await start(['serve', '--snapshot', out, '--port', '0']);
    const writer = await start(['serve', '--db', db, '--port', '0', '--no-jobs']);
    const wallet = vaultd(['wallets', '--db', db, '--limit', '1']).stdout.trim();
    const vaults = (await (await fetch(`${writer}/v1/vaults`)).json()) as { data: { vault_id: string }[] };
    const v = vaults.data[0]!.vault_id;
    for (const path of [
      '/v1/vaults',
      `/v1/vaults/${v}/timeseries?granularity=day`,
      `/v1/users/${wallet}/positions`,
      `/v1/users/${wallet}/activity?limit=5`,
      '/v1/tvl',
    ]) {
      const [a, b] = await Promise.all([writer, reader].map((base) => fetch(`${base}${path}`, { headers: { 'x-request-id': 'same' } })));
      expect(a!.status, path).toBe(200);
      expect(b!.headers.get('etag'), path).toBe(a!.headers.get('etag'));
      expect(await b!.text(), path).toBe(await a!.text());
    }
    // a cursor made by one answers on the other (one cursor secret)
    const page = (await (await fetch(`${writer}/v1/vaults?limit=2`)).json()) as { meta: { next_cursor: string } };
    const next = `/v1/vaults?limit=2&next=${encodeURIComponent(page.meta.next_cursor)}`;
    const [na, nb] = await Promise.all([writer, reader].map((base) => fetch(`${base}${next}`, { headers: { 'x-request-id': 'same' } })));
    expect(nb!.status).toBe(200);
    expect(await nb!.text()).toBe(await na!.text());

    // the key works on the reader; revoked and republished, it is refused within a poll
    const auth = { authorization: `Bearer ${secret}` };
    expect((await fetch(`${reader}/v1/tvl`, { headers: auth })).status).toBe(200);
    const id = vaultd(['keys', 'list', '--db', db])
      .stdout.split('\n')
      .find((l) => l.includes('reader-test'))!
      .split(/\s+/)[0]!;
    expect(vaultd(['keys', 'revoke', id, '--db', db]).status).toBe(0);
    expect(vaultd(['publish', '--db', db, '--out', out]).status).toBe(0);
    // the reader notices the new manifest on its next poll; the first answer that is not a 200 must be the 401
    const status = await eventually(
      async () => (await fetch(`${reader}/v1/tvl`, { headers: auth })).status,
      (s) => s !== 200,
    );
    expect(status).toBe(401);
  });

  it('bad input: one line, exit 2', () => {
    const noOut = vaultd(['publish', '--db', db]);
    expect(noOut.status).toBe(2);
    expect(noOut.stderr.trim().split('\n')).toHaveLength(1);
    expect(noOut.stderr).toMatch(/--out/);
    const missing = vaultd(['publish', '--db', join(dir, 'nope.duckdb'), '--out', join(dir, 'x')]);
    expect(missing.status).toBe(2);
    expect(existsSync(join(dir, 'nope.duckdb'))).toBe(false);
    const notDir = vaultd(['serve', '--snapshot', join(dir, 'nowhere'), '--port', '0']);
    expect(notDir.status).toBe(2);
    expect(notDir.stderr).toMatch(/not a directory/);
    const mixed = vaultd(['serve', '--snapshot', dir, '--db', db, '--port', '0']);
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toMatch(/takes no --db/);
  });
});
