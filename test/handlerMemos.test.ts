// Issue #11: what the request path now remembers — page answers per request target (path and
// query), parsed queries and cursors — gives the answers a handler with nothing remembered
// gives, forgets them when a new snapshot is published, and never remembers an error; a page
// is compressed only in the encodings clients take, once each per snapshot.
import { join } from 'node:path';
import zlib, { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { buildSnapshot } from '../engine/publish/buildSnapshot.js';
import type { DemoParams } from '../jobs/demo/index.js';
import { createAuthTable } from '../server/auth.js';
import { createCursorCodec } from '../server/cursor.js';
import type { Snapshot } from '../engine/publish/buildSnapshot.js';
import type { ReadModel } from '../engine/publish/index.js';
import { createHandler, type PageWire } from '../server/handle.js';
import { replyHeaders, replyParts } from '../server/reply.js';
import { PRECOMPRESS_MIN_BYTES } from '../server/transport/splice.js';
import { tempDir, testCommon } from './helpers/common.js';
import { publishedDemo, servedOf } from './helpers/publishedDemo.js';

const params: DemoParams = { seed: 9, now: Date.parse('2026-03-01T00:00:00Z') / 1000, vaults: null, wallets: 30, days: 30 };
let snapshot1: Snapshot;
let first: ReadModel;
let second: ReadModel;
let vaultId: string;

beforeAll(async () => {
  const snapshot = await publishedDemo(join(tempDir('vaultd-memos-'), 'w.duckdb'), params);
  snapshot1 = snapshot;
  first = servedOf(snapshot);
  // the same world published again an hour later: same data, another generation and refreshed_at
  second = servedOf(buildSnapshot(snapshot.world, { generation: snapshot.generation + 1, now: snapshot.refreshed_at_s + 3600 }));
  vaultId = [...snapshot.world.series.keys()][0]!;
});

function handlerOf(current: () => ReadModel, wires?: WeakMap<object, PageWire>) {
  return createHandler({
    common: testCommon(),
    current,
    jobs: false,
    ...(wires ? { wires } : {}),
    auth: () => createAuthTable([]),
    cursors: createCursorCodec(Buffer.alloc(32, 3)),
    secondsToNextPublish: () => null,
    started: 0,
  });
}

function get(h: ReturnType<typeof handlerOf>, target: string, acceptEncoding = '', ifNoneMatch = '') {
  const [path, query = ''] = target.split('?');
  const r = h({ method: 'GET', path: path!, query, ip: '127.0.0.1', authorization: '', apiKey: '', acceptEncoding, ifNoneMatch, requestId: 'memo-test' });
  if (r instanceof Promise) throw new Error('unexpected async reply');
  const headers = Object.fromEntries(replyHeaders(r).filter(([k]) => k === 'ETag' || k === 'Content-Encoding'));
  return { status: r.status, etag: headers.ETag, encoding: headers['Content-Encoding'], body: Buffer.concat(replyParts(r)).toString('latin1') };
}

describe('what the request path remembers', () => {
  it('page answers per target equal a fresh handler, and a publish forgets them', () => {
    let current = first;
    const h = handlerOf(() => current);
    const targets = ['/v1/vaults', '/v1/vaults?include_hidden=true', '/v1/vaults?limit=2', '/v1/vaults?include_hidden=true&limit=3', `/v1/vaults/${vaultId}`];
    for (const t of targets) {
      const fresh = get(
        handlerOf(() => first),
        t,
      );
      expect(fresh.status, t).toBe(200);
      for (const enc of ['', 'gzip', 'br']) {
        // twice: the second answer comes from what the first left behind
        expect(get(h, t, enc), `${t} ${enc}`).toEqual(
          get(
            handlerOf(() => first),
            t,
            enc,
          ),
        );
        expect(get(h, t, enc), `${t} ${enc} again`).toEqual(
          get(
            handlerOf(() => first),
            t,
            enc,
          ),
        );
      }
    }
    current = second;
    for (const t of targets) {
      const now = get(h, t);
      expect(now, t).toEqual(
        get(
          handlerOf(() => second),
          t,
        ),
      );
      // the republished page differs (refreshed_at), so a stale answer would fail here
      expect(now.etag, t).not.toBe(
        get(
          handlerOf(() => first),
          t,
        ).etag,
      );
    }
  });

  it('an invalid query is refused every time, not remembered', () => {
    const h = handlerOf(() => first);
    for (let i = 0; i < 3; i++) {
      const r = get(h, '/v1/vaults?limit=0');
      expect(r.status).toBe(422);
      expect(JSON.parse(r.body).error.details).toEqual({ parameter: 'limit' });
    }
    expect(get(h, '/v1/vaults?limit=1').status).toBe(200);
  });

  it('timeseries windows and their cursors: repeated answers equal fresh ones, and the cursor walks on', () => {
    const h = handlerOf(() => first);
    const target = `/v1/vaults/${vaultId}/timeseries?granularity=hour&limit=100`;
    const fresh = get(
      handlerOf(() => first),
      target,
    );
    expect(fresh.status).toBe(200);
    for (const enc of ['', 'gzip'])
      for (let i = 0; i < 3; i++)
        expect(get(h, target, enc)).toEqual(
          get(
            handlerOf(() => first),
            target,
            enc,
          ),
        );
    const next = JSON.parse(fresh.body).meta.next_cursor as string;
    expect(next).toMatch(/^[A-Za-z0-9_-]+$/);
    const page2 = get(h, `${target}&next=${next}`);
    expect(page2).toEqual(
      get(
        handlerOf(() => first),
        `${target}&next=${next}`,
      ),
    );
    expect(JSON.parse(page2.body).data[0].timestamp > JSON.parse(fresh.body).data.at(-1).timestamp).toBe(true);
    // the window on the next generation: its own cursor and ETag, not the remembered ones
    const h2 = handlerOf(() => second);
    const other = get(h2, target);
    expect(other.etag).not.toBe(fresh.etag);
    expect(JSON.parse(other.body).meta.next_cursor).not.toBe(next);
  });

  it('a page is compressed per encoding when a client first takes it: identity and gzip clients make no brotli variant', () => {
    const served = servedOf(snapshot1); // nothing on the wire yet
    const wires = new WeakMap<object, PageWire>();
    const h = handlerOf(() => served, wires);
    const target = '/v1/vaults?include_hidden=true';
    const page = snapshot1.pages.get(target)!;
    expect(page.prefix.length).toBeGreaterThan(PRECOMPRESS_MIN_BYTES);
    const made = () => Object.keys(wires.get(page)?.templates ?? {}).sort();
    const brotli = vi.spyOn(zlib, 'brotliCompressSync');
    try {
      const plain = get(h, target, 'identity');
      expect(plain.encoding).toBeUndefined();
      expect(made()).toEqual(['identity']);
      const gz = get(h, target, 'gzip');
      expect(gz.encoding).toBe('gzip');
      expect(made()).toEqual(['gzip', 'identity']);
      expect(brotli).not.toHaveBeenCalled();
      const br = get(h, target, 'gzip, deflate, br');
      expect(br.encoding).toBe('br');
      expect(made()).toEqual(['br', 'gzip', 'identity']);
      expect(brotli).toHaveBeenCalledTimes(1);
      get(h, target, 'br');
      expect(brotli).toHaveBeenCalledTimes(1); // made once per snapshot
      // each decodes to the identity body
      expect(gunzipSync(Buffer.from(gz.body, 'latin1')).toString('latin1')).toBe(plain.body);
      expect(brotliDecompressSync(Buffer.from(br.body, 'latin1')).toString('latin1')).toBe(plain.body);
    } finally {
      brotli.mockRestore();
    }
  });

  it("a vault's detail at an instant: its ETag names the publish, the vault and the instant (the same from every reader of one publish, another for any other body) and answers a 304", () => {
    const t0 = snapshot1.refreshed_at_s - 5 * 3600;
    const iso = (t: number) => new Date(t * 1000).toISOString().replace('.000Z', 'Z');
    const ids = [...snapshot1.world.series.keys()].slice(0, 3);
    const seen = new Map<string, string>();
    for (const id of ids)
      for (const t of [t0, t0 + 1, t0 + 3600, t0 - 24 * 3600]) {
        const target = `/v1/vaults/${id}?as_of=${iso(t)}`;
        const a = get(
          handlerOf(() => servedOf(snapshot1)),
          target,
        );
        const b = get(
          handlerOf(() => servedOf(snapshot1)),
          target,
        );
        expect(a.status, target).toBe(200);
        // another reader of the same publish: the same body and ETag
        expect(b, target).toEqual(a);
        // two bodies never share an ETag (every instant echoes itself in meta.as_of)
        expect(seen.get(a.etag!), target).toBeUndefined();
        seen.set(a.etag!, a.body);
        // the same instant on the next publish: another body (refreshed_at), another ETag
        expect(
          get(
            handlerOf(() => second),
            target,
          ).etag,
        ).not.toBe(a.etag);
        expect(
          get(
            handlerOf(() => first),
            target,
            '',
            a.etag!,
          ).status,
          target,
        ).toBe(304);
      }
    expect(seen.size).toBe(ids.length * 4);
  });

  it('a page of a view of the past answers the same body and ETag in every encoding and as a 304, asked once or again, and is not remembered by target', () => {
    const served = servedOf(snapshot1);
    const h = handlerOf(() => served);
    const t = snapshot1.refreshed_at_s - 5 * 3600;
    const at = new Date(t * 1000).toISOString().replace('.000Z', 'Z');
    // the largest of the by-slug pages at the instant (a group's deployments): over 1 KiB, so compressed
    const targets = snapshot1.world.registry.groups.map((g) => `/v1/vaults/slug/${g.slug}?as_of=${at}`);
    const target = targets.map((u) => ({ u, n: get(h, u, 'identity').body.length })).sort((a, b) => b.n - a.n)[0]!.u;
    const answers = ['identity', 'gzip', 'br', 'identity', 'gzip'].map((enc) => ({ enc, ...get(h, target, enc) }));
    const plain = answers[0]!;
    expect(plain.status).toBe(200);
    expect(plain.body).toContain('"as_of"');
    for (const a of answers) {
      expect(a.etag).toBe(plain.etag);
      const bytes = Buffer.from(a.body, 'latin1');
      const body = a.encoding === 'gzip' ? gunzipSync(bytes) : a.encoding === 'br' ? brotliDecompressSync(bytes) : bytes;
      expect(body.toString('latin1')).toBe(plain.body);
    }
    expect(answers.map((a) => a.encoding ?? 'identity')).toEqual(['identity', 'gzip', 'br', 'identity', 'gzip']);
    const conditional = get(h, target, 'gzip', plain.etag!);
    expect(conditional.status).toBe(304);
    expect(conditional.etag).toBe(plain.etag);
    // the body of a fresh handler, byte for byte (nothing remembered changed it)
    expect(
      get(
        handlerOf(() => servedOf(snapshot1)),
        target,
        'identity',
      ).body,
    ).toBe(plain.body);
  });
});
