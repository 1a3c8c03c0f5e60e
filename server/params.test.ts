import { describe, expect, it } from 'vitest';
import { VaultdError } from '../common/errors.js';
import fc from 'fast-check';
import * as v from 'valibot';
import { parsePlainQuery, parseQuery, QUERY_SCHEMAS, type QueryRoute } from './params.js';

describe('parseQuery', () => {
  it('gives defaults and values, the same frozen answer for the same query, per route', () => {
    const a = parseQuery('vaults.timeseries', 'granularity=hour&limit=50&start=2026-03-01T00:00:00Z');
    expect(a).toEqual({ granularity: 'hour', limit: 50, order: 'asc', start: Date.parse('2026-03-01T00:00:00Z') / 1000 });
    expect(parseQuery('vaults.timeseries', 'granularity=hour&limit=50&start=2026-03-01T00:00:00Z')).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    // the same raw query on another route is that route's own parse
    expect(parseQuery('users.activity', 'limit=50')).toEqual({ limit: 50, order: 'desc', include_hidden: false });
    expect(parseQuery('vaults.list', 'limit=50')).toEqual({ limit: 50, include_hidden: false });
  });

  it('refuses a bad query every time it comes (errors are not remembered)', () => {
    for (let i = 0; i < 3; i++) {
      let err: unknown;
      try {
        parseQuery('vaults.list', 'limit=0');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(VaultdError);
      expect((err as VaultdError).details).toEqual({ parameter: 'limit' });
    }
    expect(() => parseQuery('vaults.list', 'limit=1&limit=2')).toThrow(/at most once/);
    expect(() => parseQuery('vaults.list', 'limit=1&limit=2')).toThrow(/at most once/);
  });

  it('splits the raw query on & and the first =, skipping empty pairs and unknown names', () => {
    expect(parseQuery('vaults.list', '&&limit=5&&junk&x=1=2&')).toEqual({ limit: 5, include_hidden: false });
    expect(parseQuery('vaults.list', 'include_hidden=1&next=a=b')).toEqual({ limit: 1000, include_hidden: true, next: 'a=b' });
    expect(parseQuery('vaults.list', 'lim%69t=3')).toEqual({ limit: 3, include_hidden: false });
    expect(() => parseQuery('vaults.list', 'limit')).toThrow(/"limit": must be an integer from 1 to 1000/);
    expect(() => parseQuery('vaults.list', 'limit=5=6')).toThrow(/"limit": must be an integer/);
    expect(() => parseQuery('vaults.list', 'next=%E0%A4%A')).toThrow(/"next": is not valid percent-encoding/);
    expect(() => parseQuery('vaults.list', 'limit=2&x&limit=2')).toThrow(/"limit": must be given at most once/);
  });

  it('remembers a repeated query, never one over 1 KB (junk buys no memory), and answers either way', () => {
    const first = parseQuery('vaults.list', 'limit=7');
    expect(parseQuery('vaults.list', 'limit=7')).toBe(first);
    const long = `limit=7&junk=${'x'.repeat(2000)}`;
    const a = parseQuery('vaults.list', long);
    const b = parseQuery('vaults.list', long);
    expect(b).toEqual(first);
    expect(b).toEqual(a);
    expect(b).not.toBe(a);
  });
});

describe('the plain walk of parseQuery', () => {
  // values near every leaf's edges: numbers around limits, booleans and their look-alikes,
  // dates valid and not, picklist words and near-misses, addresses, cursors, empty strings
  const texts = [
    '',
    '0',
    '1',
    '01',
    '7',
    '100',
    '499',
    '500',
    '501',
    '999',
    '1000',
    '1001',
    '5000',
    '5001',
    '9999',
    '10000',
    '10001',
    '9999999',
    '10000000',
    '-1',
    '1.5',
    '1e3',
    ' 5',
    'true',
    'false',
    'TRUE',
    'yes',
    'asc',
    'desc',
    'ASC',
    'hour',
    'day',
    'week',
    'month',
    'raw',
    'year',
    '2026-03-01',
    '2026-03-01T12:00:00Z',
    '2026-02-31',
    '2026-03-01T24:00:00Z',
    '2026-03-01T12:00',
    '2026-03-01 12:00:00+02:00',
    'yesterday',
    '0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458',
    '0x8EB67A509616CD6A7C1B3C8C21D48FF57DF3D458',
    '0x8eb6',
    '1:0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458',
    'eyJ2IjoxfQ',
  ];
  const routes = Object.keys(QUERY_SCHEMAS) as QueryRoute[];

  it('answers exactly what valibot answers for every valid query, and leaves every invalid one to valibot', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...routes),
        fc.array(fc.tuple(fc.nat(), fc.oneof(fc.constantFrom(...texts), fc.string({ maxLength: 12 })))),
        (route, picks) => {
          const names = Object.keys(QUERY_SCHEMAS[route].entries);
          const input: Record<string, string> = {};
          for (const [i, text] of picks) input[names[i % names.length]!] = text;
          const plain = parsePlainQuery(route, input);
          expect(plain).not.toBeNull(); // every route has a plain walk
          const strict = v.safeParse(QUERY_SCHEMAS[route], input);
          if (strict.success) expect(plain).toStrictEqual(strict.output);
          else expect(plain).toBeUndefined();
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('covers the valid queries the property draws (not only failures)', () => {
    // a guard on the property above: each route has valid inputs the plain walk answers
    expect(parsePlainQuery('vaults.timeseries', { granularity: 'hour', limit: '1000', start: '2026-03-01T00:00:00Z' })).toStrictEqual({
      start: 1772323200,
      limit: 1000,
      order: 'asc',
      granularity: 'hour',
    });
    expect(parsePlainQuery('prices', { address: '0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458', chain_id: '1' })).toStrictEqual({
      address: '0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458',
      chain_id: 1,
    });
    expect(parsePlainQuery('prices', { chain_id: '1' })).toBeUndefined();
    expect(parsePlainQuery('users.activity', { include_hidden: '1', vault_id: '' })).toStrictEqual({
      limit: 100,
      order: 'desc',
      vault_id: '',
      include_hidden: true,
    });
  });
});
