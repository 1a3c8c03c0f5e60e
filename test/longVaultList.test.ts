// A catalogue past one page of the vault list (VAULT_LIST_LIMIT, 1,000 vaults): /v1/vaults is
// then no fixed page of the snapshot, and its pages are made on first use and kept per read
// model (server/routes/vaults.ts). Held here on a 1,100-vault world over real HTTP: a walk of the
// list holds every enabled vault once, each item equal to the vault's own detail, in the same
// order in pages of another size; a page asked again is the same bytes (but its request id) with the same ETag, a
// 304 for that ETag, and gzip when taken, which gunzips to the same bytes.
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopChildren, vaultd, vaultdSpawn, waitForListening } from './helpers/cli.js';
import { tempDir } from './helpers/common.js';

const children: ChildProcess[] = [];
let port: number;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The body with its request id blanked: what two answers of one page share. */
const withoutId = (b: Buffer) => b.toString('utf8').replace(/"request_id":"[^"]*"/, '"request_id":""');

beforeAll(async () => {
  const dir = tempDir('vaultd-long-list-');
  const db = join(dir, 'w.duckdb');
  // the walk asks for every vault's detail: past the anonymous budget
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ rate_limits: { anonymous_per_minute: 1_000_000 } }));
  const built = vaultd(['demo', '--db', db, '--vaults', '1100', '--wallets', '400', '--days', '10', '--seed', '7', '--now', '2026-06-01T00:00:00Z']);
  expect(built.status, built.stderr).toBe(0);
  const child = vaultdSpawn(['serve', '--db', db, '--config', config, '--port', '0', '--no-jobs']);
  children.push(child);
  port = await waitForListening(child);
}, 300_000);
afterAll(() => stopChildren(children));

describe('a vault list longer than one page', () => {
  it('walks every enabled vault once, each item its detail, in the same order whatever the page size', async () => {
    const seen: { vault_id: string }[] = [];
    let next: string | null = null;
    let pages = 0;
    do {
      const a = await get(`/v1/vaults?include_hidden=true${next === null ? '' : `&next=${encodeURIComponent(next)}`}`);
      expect(a.status).toBe(200);
      const body = JSON.parse(a.body.toString('utf8'));
      expect(body.meta.limit).toBe(1000);
      expect(body.meta.count).toBe(body.data.length);
      seen.push(...body.data);
      next = body.meta.next_cursor;
      pages++;
    } while (next !== null && pages < 10);
    expect(pages).toBe(2);
    const ids = seen.map((v) => v.vault_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThan(1000);
    // each item is the vault's own detail answer (an independent route)
    for (const v of seen) {
      const d = await get(`/v1/vaults/${v.vault_id}`);
      expect(d.status).toBe(200);
      expect(v).toEqual(JSON.parse(d.body.toString('utf8')).data);
    }
    // the same list in pages of 250: the same vaults in the same order
    const small: string[] = [];
    next = null;
    do {
      const body = JSON.parse(
        (await get(`/v1/vaults?include_hidden=true&limit=250${next === null ? '' : `&next=${encodeURIComponent(next)}`}`)).body.toString('utf8'),
      );
      small.push(...body.data.map((v: { vault_id: string }) => v.vault_id));
      next = body.meta.next_cursor;
    } while (next !== null && small.length <= ids.length);
    expect(small).toEqual(ids);
  }, 120_000);

  it('answers a page again with the same bytes and ETag, 304 for it, and gzip that gunzips to them', async () => {
    for (const path of ['/v1/vaults', '/v1/vaults?limit=7', '/v1/vaults?include_hidden=true&limit=1000']) {
      const first = await get(path);
      const again = await get(path);
      expect(first.status).toBe(200);
      expect(withoutId(again.body)).toBe(withoutId(first.body));
      expect(first.headers['x-request-id']).not.toBe(again.headers['x-request-id']);
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"/);
      expect(again.headers.etag).toBe(etag);
      expect((await get(path, { 'if-none-match': etag })).status).toBe(304);
      const zipped = await get(path, { 'accept-encoding': 'gzip' });
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(zipped.headers.etag).toBe(etag);
      expect(withoutId(gunzipSync(zipped.body))).toBe(withoutId(first.body));
    }
  }, 60_000);
});
