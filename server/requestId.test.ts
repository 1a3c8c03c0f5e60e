import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRequestIdGenerator, REQUEST_ID_PATTERN, requestIdFrom } from './requestId.js';

describe('requestIdFrom', () => {
  it('echoes a well-formed incoming id', () => {
    for (const id of ['a', 'abc-123', 'A.b_c-D', 'x'.repeat(128), '0', '...', '550e8400-e29b-41d4-a716-446655440000']) {
      expect(requestIdFrom(id)).toBe(id);
    }
  });

  it('echoes any id matching the pattern (fuzz)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9._-]{1,128}$/), (id) => {
        expect(requestIdFrom(id)).toBe(id);
      }),
    );
  });

  it('replaces a missing, empty, too long or ill-formed id with a fresh one', () => {
    for (const bad of [undefined, '', 'x'.repeat(129), 'a b', 'a/b', 'ü', 'id"}}', 'a\nb', 'a\u0000']) {
      const id = requestIdFrom(bad);
      expect(id).not.toBe(bad);
      expect(id).toMatch(REQUEST_ID_PATTERN);
    }
  });

  it('never echoes anything outside the pattern (fuzz)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (incoming) => {
        expect(requestIdFrom(incoming)).toMatch(REQUEST_ID_PATTERN);
      }),
    );
  });

  it('fresh ids are unique and about 20 chars', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) seen.add(requestIdFrom(undefined));
    expect(seen.size).toBe(100_000);
    for (const id of seen) {
      expect(id).toMatch(REQUEST_ID_PATTERN);
      expect(id.length).toBeLessThanOrEqual(22);
    }
  });

  it('generators with random prefixes (other processes, restarts) do not collide', () => {
    const a = createRequestIdGenerator();
    const b = createRequestIdGenerator();
    const fromA = new Set(Array.from({ length: 1000 }, () => a()));
    expect(Array.from({ length: 1000 }, () => b()).some((id) => fromA.has(id))).toBe(false);
  });

  it('a generator counts in base36 after its prefix', () => {
    const next = createRequestIdGenerator('p');
    expect([next(), next(), next()]).toEqual(['p-0', 'p-1', 'p-2']);
    for (let i = 3; i < 36; i++) next();
    expect(next()).toBe('p-10');
  });

  it('error: a prefix outside the id alphabet', () => {
    expect(() => createRequestIdGenerator('a b')).toThrow('request id prefix "a b" must be 1-64 characters of A-Z a-z 0-9 . _ -');
  });
});
