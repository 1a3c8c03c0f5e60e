import fc from 'fast-check';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPage, pageBody } from '../../engine/publish/page.js';
import { brBody, brVariant, crc32, gzipBody, gzipItemsTemplate, gzipVariant, type BrotliVariant, type GzipVariant } from './splice.js';

/** Both variants of a page (the server makes each when a client first takes it: server/handle.ts). */
interface Variants {
  gzip: GzipVariant;
  br: BrotliVariant;
}
const buildVariants = (page: { prefix: Buffer }, options: { gzipLevel?: number; brotliQuality?: number } = {}): Variants => ({
  gzip: gzipVariant(page.prefix, options.gzipLevel),
  br: brVariant(page.prefix, options.brotliQuality),
});

const requestIdArb = fc.stringMatching(/^[A-Za-z0-9._-]{1,128}$/);

// Prefixes of 0–200 KB: short random unicode, and long bodies repeated from a unicode seed
// (fast-check cannot generate 200 KB strings cheaply); all end like a real page prefix.
const prefixArb = fc
  .oneof(
    fc.string({ unit: 'grapheme', maxLength: 300 }),
    fc
      .tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), fc.integer({ min: 1_000, max: 200_000 }))
      .map(([seed, bytes]) => seed.repeat(Math.ceil(bytes / Buffer.byteLength(seed))).slice(0, bytes)),
    fc.uint8Array({ minLength: 0, maxLength: 20_000 }).map((b) => Buffer.from(b).toString('latin1')),
  )
  .map((s) => Buffer.from(`${s},"request_id":"`));

// Quality 5 keeps 200 KB cases fast; quality 11 (the default) is exercised on fixed bodies below.
const fast = { brotliQuality: 5, gzipLevel: 6 };

function expected(prefix: Buffer, id: string): Buffer {
  return Buffer.concat([prefix, Buffer.from(`${id}"}}`)]);
}

/** Byte equality of two buffers of up to 200 KB: Buffer#equals, and a readable diff only when they differ (toEqual walks them byte by byte, ~0.5 s a case). */
function expectSameBytes(got: Buffer, want: Buffer): void {
  if (!got.equals(want)) expect(got.toString('latin1')).toBe(want.toString('latin1'));
}

function realisticPage(rows: number) {
  const data = Array.from({ length: rows }, (_, i) => ({
    vault_id: `eth:0x${(i * 7919).toString(16).padStart(40, '0')}`,
    name: `Vault ${i} — Ünïcødé ✓`,
    tvl_usd: (1_234_567.891 * (i + 1)).toFixed(6),
    apy: { d7: '0.0412', d30: '0.0398', d90: null },
  }));
  return buildPage(data, { count: rows, limit: 100, next_cursor: null, partial_errors: null }, '2024-05-01T00:00:00Z');
}

function streamDecode(stream: zlib.Gunzip | zlib.BrotliDecompress, parts: Buffer[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    stream.on('data', (c: Buffer) => out.push(c));
    stream.on('end', () => resolve(Buffer.concat(out)));
    stream.on('error', reject);
    // Feed in awkward pieces: the head in 2 halves, the tail a byte at a time.
    for (const part of parts) {
      if (part.length > 64) {
        stream.write(part.subarray(0, part.length >> 1));
        stream.write(part.subarray(part.length >> 1));
      } else {
        for (let i = 0; i < part.length; i++) stream.write(part.subarray(i, i + 1));
      }
    }
    stream.end();
  });
}

describe('crc32', () => {
  it('matches zlib and continues across splits', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.nat(), (bytes, cut) => {
        const whole = crc32(bytes);
        const at = bytes.length === 0 ? 0 : cut % bytes.length;
        expect(crc32(bytes.subarray(at), crc32(bytes.subarray(0, at)))).toBe(whole);
        if (typeof zlib.crc32 === 'function') expect(whole).toBe(zlib.crc32(bytes) >>> 0);
      }),
    );
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926); // the standard check value
  });
});

describe('spliced gzip and brotli bodies', () => {
  it('decode (one-shot) to prefix + id + "}} byte for byte, for random bodies and ids', () => {
    fc.assert(
      fc.property(prefixArb, requestIdArb, (prefix, id) => {
        const variants = buildVariants({ prefix }, fast);
        expectSameBytes(zlib.gunzipSync(Buffer.concat(gzipBody(variants.gzip, id))), expected(prefix, id));
        expectSameBytes(zlib.brotliDecompressSync(Buffer.concat(brBody(variants.br, id))), expected(prefix, id));
      }),
      { numRuns: 40 },
    );
  });

  it('decode with streaming decompressors fed in small pieces', async () => {
    await fc.assert(
      fc.asyncProperty(prefixArb, requestIdArb, async (prefix, id) => {
        const variants = buildVariants({ prefix }, fast);
        expectSameBytes(await streamDecode(zlib.createGunzip(), gzipBody(variants.gzip, id)), expected(prefix, id));
        expectSameBytes(await streamDecode(zlib.createBrotliDecompress(), brBody(variants.br, id)), expected(prefix, id));
      }),
      { numRuns: 25 },
    );
  });

  it('default (maximum) compression: real pages, empty prefix, longest id', () => {
    for (const prefix of [realisticPage(1).prefix, realisticPage(400).prefix, Buffer.alloc(0)]) {
      const variants = buildVariants({ prefix });
      for (const id of ['a', 'x'.repeat(128), 'Zr4-q_0.9']) {
        expectSameBytes(zlib.gunzipSync(Buffer.concat(gzipBody(variants.gzip, id))), expected(prefix, id));
        expectSameBytes(zlib.brotliDecompressSync(Buffer.concat(brBody(variants.br, id))), expected(prefix, id));
      }
    }
  });

  it('one variant serves many ids: the head is shared and never modified', () => {
    const page = realisticPage(50);
    const variants = buildVariants(page);
    const gzHead = Buffer.from(variants.gzip.head);
    const brHead = Buffer.from(variants.br.head);
    for (const id of ['first', 'second-id', 'x'.repeat(100)]) {
      const gz = gzipBody(variants.gzip, id);
      expect(gz[0]).toBe(variants.gzip.head);
      expect(zlib.gunzipSync(Buffer.concat(gz))).toEqual(pageBody(page, id));
      expect(zlib.brotliDecompressSync(Buffer.concat(brBody(variants.br, id)))).toEqual(pageBody(page, id));
    }
    expect(variants.gzip.head).toEqual(gzHead);
    expect(variants.br.head).toEqual(brHead);
  });

  it('heads are exact copies, not views into zlib chunk buffers', () => {
    const { gzip, br } = buildVariants(realisticPage(2));
    // its own memory, or a slab of Buffer's pool (8 KiB before Node 22, 64 KiB since): never a
    // zlib output chunk (16 KiB) that would keep the whole chunk alive
    for (const head of [gzip.head, br.head]) expect([head.length, Buffer.poolSize]).toContain(head.buffer.byteLength);
  });

  it('the compressed page is much smaller than the raw one', () => {
    const page = realisticPage(400);
    const { gzip, br } = buildVariants(page);
    const raw = pageBody(page, 'id').length;
    expect(gzip.head.length).toBeLessThan(raw / 5);
    expect(br.head.length).toBeLessThan(gzip.head.length);
  });

  it('error: a request id over 128 chars is refused', () => {
    const { gzip, br } = buildVariants({ prefix: Buffer.from('{"x":"') }, fast);
    expect(() => gzipBody(gzip, 'a'.repeat(129))).toThrow('request id of 129 chars exceeds 128; use requestIdFrom');
    expect(() => brBody(br, 'a'.repeat(129))).toThrow('request id of 129 chars exceeds 128; use requestIdFrom');
  });
});

describe('a real HTTP client (undici fetch) decodes spliced bodies', () => {
  let server: http.Server;
  let base: string;
  let variants: Variants;
  const page = realisticPage(300);

  beforeAll(async () => {
    variants = buildVariants(page);
    server = http.createServer((req, res) => {
      const id = req.headers['x-request-id'] as string;
      const encoding = req.url === '/br' ? 'br' : 'gzip';
      const parts = encoding === 'br' ? brBody(variants.br, id) : gzipBody(variants.gzip, id);
      res.writeHead(200, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Encoding': encoding,
        'Content-Length': parts.reduce((n, p) => n + p.length, 0),
      });
      for (const part of parts.slice(0, -1)) res.write(part);
      res.end(parts.at(-1));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  for (const path of ['/br', '/gzip']) {
    it(`${path}: fetch returns the same JSON`, async () => {
      const id = `req-${path.slice(1)}.42`;
      const response = await fetch(base + path, { headers: { 'x-request-id': id } });
      expect(response.headers.get('content-encoding')).toBe(path.slice(1));
      const text = await response.text();
      expect(text).toBe(pageBody(page, id).toString('utf8'));
      expect((JSON.parse(text) as { meta: { request_id: string } }).meta.request_id).toBe(id);
    });
  }
});

describe('gzipItemsTemplate: a window written straight from its pieces', () => {
  // pieces of 0–80 KB, each prepared deflate (a sync-flushed raw stream) or uncompressed
  const pieceArb = fc.record({
    text: fc.oneof(
      fc.string({ maxLength: 400 }),
      fc
        .tuple(fc.string({ minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 80_000 }))
        .map(([seed, n]) => seed.repeat(Math.ceil(n / seed.length)).slice(0, n)),
    ),
    stored: fc.boolean(),
    pad: fc.nat({ max: 9 }),
  });
  const bytesArb = (max: number) =>
    fc
      .oneof(
        fc.string({ maxLength: 200 }),
        fc.integer({ min: 0, max }).map((n) => 'x'.repeat(n)),
      )
      .map((s) => Buffer.from(s));

  it('gunzips to open ‖ the pieces ‖ tail ‖ id ‖ "}}, the same bytes from fill and parts, of the length it states', () => {
    fc.assert(
      fc.property(bytesArb(1_000), fc.array(pieceArb, { minLength: 1, maxLength: 8 }), bytesArb(140_000), requestIdArb, (open, specs, tail, id) => {
        const src: Buffer[] = [];
        const at: number[] = [];
        const plain: Buffer[] = [];
        for (const { text, stored, pad } of specs) {
          const raw = Buffer.from(text);
          if (raw.length === 0) continue;
          // a piece sits at an offset of a larger buffer, as a block's run does
          const bytes = stored ? raw : zlib.deflateRawSync(raw, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
          src.push(Buffer.concat([Buffer.alloc(pad, 0xee), bytes, Buffer.alloc(pad, 0xee)]));
          at.push(pad, pad + bytes.length);
          plain.push(raw);
        }
        const items = {
          src,
          at,
          stored: specs.filter((s) => s.text.length > 0).map((s) => s.stored),
          crc: crc32(Buffer.concat(plain)),
          length: Buffer.concat(plain).length,
        };
        const t = gzipItemsTemplate(open, crc32(open), items, tail);
        const filled = Buffer.from(t.fill(id));
        const [parts] = t.parts(id);
        expect(filled.equals(parts!)).toBe(true);
        expect(filled.length).toBe(t.length(id));
        expect(zlib.gunzipSync(filled).equals(Buffer.concat([open, ...plain, tail, Buffer.from(`${id}"}}`)]))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
