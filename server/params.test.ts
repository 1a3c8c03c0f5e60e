import { describe, expect, it } from 'vitest';
import { VaultdError } from '../common/errors.js';
import fc from 'fast-check';
import * as v from 'valibot';
import {
  canonicalInstant,
  compileQuery,
  parseInstant,
  parseInstantUncached,
  parsePlainQuery,
  parseQuery,
  parseReference,
  parseVaultId,
  QUERY_SCHEMAS,
  type QueryRoute,
} from './params.js';

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

describe('the compiled query parser', () => {
  const routes = Object.keys(QUERY_SCHEMAS) as QueryRoute[];
  const values = [
    '',
    '0',
    '1',
    '7',
    '1000',
    '10001',
    '-1',
    'true',
    'false',
    'asc',
    'desc',
    'hour',
    'day',
    'raw',
    '2026-03-01',
    '2026-03-01T12:00:00Z',
    '2026-02-31',
  ];
  const encoded = ['2026-03-01T12%3A00%3A00Z', '%31', 'a+b', '%E0%A4%A', '%', 'desc%20', 'quality%2Creturns', 'quality,returns', 'provenance,provenance'];
  /** The outcome of a parse: its output, or the error it throws (message and details). */
  const outcome = (parse: () => unknown) => {
    try {
      return { ok: parse() };
    } catch (err) {
      return { error: (err as VaultdError).message, details: (err as VaultdError).details };
    }
  };

  it('answers only what the reference parser answers, with the same output; the rest falls to it', () => {
    let answered = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...routes),
        fc.array(
          fc.tuple(
            fc.oneof(fc.nat(), fc.constantFrom('junk', 'lim%69t', 'st%61rt', 'a+b', '', 'next')),
            fc.oneof(fc.constantFrom(...values), fc.constantFrom(...encoded), fc.string({ maxLength: 8 })),
            fc.constantFrom('=', '', '=x='),
          ),
          { maxLength: 6 },
        ),
        fc.constantFrom('&', '&&'),
        (route, pairs, sep) => {
          const names = Object.keys(QUERY_SCHEMAS[route].entries);
          const raw = pairs
            .map(
              ([name, value, eq]) =>
                `${typeof name === 'number' ? names[name % names.length] : name}${eq === '' ? '' : eq === '=' ? `=${value}` : `=${value}=x`}`,
            )
            .join(sep);
          const compiled = compileQuery(route)!;
          expect(compiled).not.toBeNull();
          const fast = compiled(raw);
          const reference = outcome(() => parseReference(route, raw));
          if (fast !== undefined) {
            answered++;
            expect(reference).toStrictEqual({ ok: fast });
          }
          // what parseQuery answers: the compiled output, else the reference's output or error
          expect(outcome(() => fast ?? parseReference(route, raw))).toStrictEqual(reference);
        },
      ),
      { numRuns: 4000 },
    );
    // the fast path is taken, not only skipped
    expect(answered).toBeGreaterThan(400);
  });

  it("answers a window's query with the route's defaults, and leaves encoded, repeated or invalid values to the reference", () => {
    const compiled = compileQuery('vaults.timeseries')!;
    expect(compiled('granularity=hour&limit=1000&start=2026-03-01T00:00:00Z')).toStrictEqual({
      start: 1772323200,
      limit: 1000,
      order: 'asc',
      granularity: 'hour',
    });
    expect(compiled('')).toStrictEqual({ limit: 1000, order: 'asc', granularity: 'day' });
    expect(compiled('start=2026-03-01T00%3A00%3A00Z')).toBeUndefined();
    expect(parseQuery('vaults.timeseries', 'start=2026-03-01T00%3A00%3A00Z')).toEqual({ start: 1772323200, limit: 1000, order: 'asc', granularity: 'day' });
    expect(compiled('limit=5&limit=5')).toBeUndefined();
    expect(compiled('limit=0')).toBeUndefined();
    expect(compiled('st%61rt=2026-03-01')).toBeUndefined();
    // a refused query leaves nothing behind for the next one
    expect(compiled('limit=7&order=desc')).toStrictEqual({ limit: 7, order: 'desc', granularity: 'day' });
  });
});

describe('parseInstant of YYYY-MM-DDTHH:MM:SSZ (read by hand)', () => {
  const two = (n: number) => String(n).padStart(2, '0');
  it('answers what the regex and Date.parse path answers, for dates and times that exist and those that do not', () => {
    const text = fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 19 }),
        fc.integer({ min: 0, max: 39 }),
        fc.integer({ min: 0, max: 29 }),
        fc.integer({ min: 0, max: 69 }),
        fc.integer({ min: 0, max: 69 }),
      )
      .map(([y, mo, d, h, mi, s]) => `${String(y).padStart(4, '0')}-${two(mo)}-${two(d)}T${two(h)}:${two(mi)}:${two(s)}Z`);
    fc.assert(
      fc.property(text, (t) => {
        expect(canonicalInstant(t)).toBe(parseInstantUncached(t));
        expect(parseInstant(t)).toBe(parseInstantUncached(t));
      }),
      { numRuns: 20_000, seed: 32 },
    );
    // leap days and month ends either side of a century rule, and the epoch's edges
    for (const t of [
      '2000-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2024-02-29T23:59:59Z',
      '2026-04-31T00:00:00Z',
      '1969-12-31T23:59:59Z',
      '0000-01-01T00:00:00Z',
    ]) {
      expect(canonicalInstant(t)).toBe(parseInstantUncached(t));
    }
    expect(canonicalInstant('2026-03-01T00:00:00Z')).toBe(Date.parse('2026-03-01T00:00:00Z') / 1000);
  });

  it('leaves every other form to the general parser', () => {
    for (const t of ['2026-03-01T00:00:00+01:00', '2026-03-01 00:00:00Z', '2026-03-01T00:00:0aZ', '2026-03-01T00:00:00z', '+02026-03-01T00:00Z']) {
      expect(canonicalInstant(t.padEnd(20).slice(0, 20))).toBeUndefined();
    }
    expect(parseInstant('2026-03-01T01:00:00+01:00')).toBe(Date.parse('2026-03-01T00:00:00Z') / 1000);
  });
});

describe('parseVaultId', () => {
  it('answers a kept id as the first time, and refuses a bad one every time', () => {
    const text = 'eip155:1:0x8EB67A509616CD6A7C1B3C8C21D48FF57DF3D458';
    expect(parseVaultId(text)).toBe('1:0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458');
    expect(parseVaultId(text)).toBe('1:0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458');
    for (let i = 0; i < 2; i++) expect(() => parseVaultId('0:0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458', 'id')).toThrow(/invalid parameter "id"/);
  });
});
