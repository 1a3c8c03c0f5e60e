// PageMap (engine/publish/page.ts): a snapshot's pages are serialized on first use, once, and
// are the pages an eager build gives, in the order they were defined.
import { describe, expect, it } from 'vitest';
import { buildPage, PageMap, type Page } from './page.js';

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
