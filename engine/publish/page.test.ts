// PageMap (engine/publish/page.ts): a snapshot's pages are serialized on first use, once, and
// are the pages an eager build gives, in the order they were defined. A view of the past's page
// built from byte ranges (buildAsOfPage) is buildPageOf's page of the same text, byte for byte.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../../model/format/numbers.js';
import { asOfFrame, buildAsOfPage, buildPage, buildPageOf, metaText, PageMap, type Page, WindowMeta } from './page.js';

const AT = '2026-06-01T00:00:00Z';

describe('PageMap', () => {
  it('builds a page when first asked for, once; equal to building it at once; keys keep their order', () => {
    const built: string[] = [];
    const pages = new PageMap();
    const eager = new Map<string, Page>();
    for (const [key, data] of [
      ['/b', { x: 1 }],
      ['/a', [1, 2]],
      ['/c', null],
    ] as const) {
      eager.set(key, buildPage(data, null, AT));
      pages.define(key, () => {
        built.push(key);
        return buildPage(data, null, AT);
      });
    }
    expect(pages.size).toBe(3);
    expect(pages.has('/a')).toBe(true);
    expect(built).toEqual([]);

    const a = pages.get('/a')!;
    expect(pages.get('/a')).toBe(a); // the same object: its wire variants are keyed by it
    expect(built).toEqual(['/a']);
    expect(a.prefix.equals(eager.get('/a')!.prefix)).toBe(true);
    expect(a.etag).toBe(eager.get('/a')!.etag);
    expect(pages.get('/missing')).toBeUndefined();
    expect(pages.has('/missing')).toBe(false);

    expect([...pages.keys()]).toEqual(['/b', '/a', '/c']);
    const all = [...pages];
    expect(built).toEqual(['/a', '/b', '/c']);
    expect(all.map(([k]) => k)).toEqual(['/b', '/a', '/c']);
    for (const [k, p] of all) expect(p.etag).toBe(eager.get(k)!.etag);
    expect(all[1]![1]).toBe(a);
  });
});

describe('WindowMeta', () => {
  it('writes the meta JSON.stringify writes for a plain object of the same members, whatever the values', () => {
    const text = fc.oneof(fc.constant(null), fc.string({ maxLength: 12 }), fc.constantFrom('2026-03-01T00:00:00Z', 'eyJ2IjoxfQ-_', 'a"b', 'é', '\n'));
    const num = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(-0, 1e21, Number.NaN, Number.POSITIVE_INFINITY));
    fc.assert(
      fc.property(num, num, text, text, text, fc.option(fc.string({ maxLength: 8 }), { nil: null }), (count, limit, next, start, end, asOf) => {
        const meta = new WindowMeta(count, limit, next, start, end);
        const plain = { count, limit, next_cursor: next, partial_errors: null, start, end };
        expect(JSON.stringify(meta)).toBe(JSON.stringify(plain));
        expect(metaText(meta, AT, asOf)).toBe(metaText(plain, AT, asOf));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('buildAsOfPage', () => {
  it('is buildPageOf of the ranges joined: prefix and ETag, any data text (non-ASCII too), cut anywhere, any instants', () => {
    const instant = fc.integer({ min: 0, max: 4_102_444_800 });
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.nat(8),
        instant,
        instant,
        (data, cuts, pad, r, t) => {
          const refreshedAt = isoSeconds(r);
          const asOf = isoSeconds(t);
          const text = JSON.stringify(data);
          // cut between code points (a range is a whole string: a vault's frame, a snapshot's metrics), each inside a larger buffer
          const points = Array.from(text);
          const at = [...new Set(cuts.map((c) => c % (points.length + 1)))].sort((a, b) => a - b);
          const ranges = [0, ...at].map((from, k) => {
            const piece = Buffer.from(points.slice(from, k < at.length ? at[k] : points.length).join(''));
            return [Buffer.concat([Buffer.alloc(pad, 0x78), piece, Buffer.alloc(pad, 0x79)]), pad, pad + piece.length] as const;
          });
          const got = buildAsOfPage(asOfFrame(refreshedAt), ranges, asOf);
          const want = buildPageOf(text, null, refreshedAt, asOf);
          expect(got.prefix.equals(want.prefix)).toBe(true);
          expect(got.etag).toBe(want.etag);
        },
      ),
      { numRuns: 300, seed: 34 },
    );
  });
});
