import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VaultdError } from '../common/errors.js';
import { createHmac } from 'node:crypto';
import { createCursorCodec, createCursorKeyring, MAX_CURSOR_LENGTH, payloadText } from './cursor.js';

const secret = Buffer.from('0123456789abcdef0123456789abcdef');
const codec = createCursorCodec(secret);
const walletA = '/v1/users/0x1111111111111111111111111111111111111111/positions';
const walletB = '/v1/users/0x2222222222222222222222222222222222222222/positions';

function errorOf(f: () => unknown): VaultdError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(VaultdError);
    return e as VaultdError;
  }
  throw new Error('expected a throw');
}

function expectInvalid(f: () => unknown, message: string): void {
  const e = errorOf(f);
  expect(e.code).toBe('INVALID_CURSOR');
  expect(e.status).toBe(422);
  expect(e.details).toEqual({ parameter: 'next' });
  expect(e.message).toBe(message);
}

describe('cursor codec', () => {
  it('round-trips string, number and compound keys', () => {
    for (const key of ['pos_000123', 42, 1.5, ['2024-05-01T00:00:00Z', 'eth:0xabc'], [1714521600, 7], '']) {
      const q = new URLSearchParams('vault_id=eth:0xabc&include_hidden=true');
      const c = codec.encode('/v1/activity', q, 'desc', key);
      expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(codec.decode(c, '/v1/activity', q, 'desc')).toEqual(key);
    }
  });

  it('round-trips any key (fuzz)', () => {
    const keyArb = fc.oneof(
      fc.string({ maxLength: 100 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
      fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.integer()), { maxLength: 4 }),
    );
    fc.assert(
      fc.property(keyArb, fc.constantFrom('asc', 'desc' as const), (key, order) => {
        const c = codec.encode(walletA, {}, order, key);
        expect(codec.decode(c, walletA, {}, order)).toEqual(key);
      }),
    );
  });

  it('limit may change between pages; next, order and parameter order do not matter', () => {
    const c = codec.encode('/v1/activity', new URLSearchParams('vault_id=v1&kind=deposit&limit=10'), 'asc', 'k');
    expect(codec.decode(c, '/v1/activity', new URLSearchParams(`kind=deposit&limit=500&vault_id=v1&next=${c}`), 'asc')).toBe('k');
    expect(codec.decode(c, '/v1/activity', { vault_id: 'v1', kind: 'deposit', order: 'asc', limit: 1000 }, 'asc')).toBe('k');
  });

  it('validated params and raw params canonicalize alike (numbers, booleans, repeated values)', () => {
    const c = codec.encode('/v1/tvl', { include_hidden: false, chain_id: [1, 10], start: undefined, end: null }, 'desc', 3);
    expect(codec.decode(c, '/v1/tvl', new URLSearchParams('chain_id=1&include_hidden=false&chain_id=10'), 'desc')).toBe(3);
  });

  it('error: one wallet’s cursor is invalid for another wallet', () => {
    const c = codec.encode(walletA, {}, 'asc', 'pos_9');
    expectInvalid(
      () => codec.decode(c, walletB, {}, 'asc'),
      `next ${JSON.stringify(`${c.slice(0, 24)}…`)} belongs to another route or query; only limit may change between pages`,
    );
  });

  it('error: another filter value, an added filter, or repeated values in another order', () => {
    const c = codec.encode('/v1/activity', new URLSearchParams('vault_id=a&kind=x&kind=y'), 'asc', 1);
    for (const other of ['vault_id=b&kind=x&kind=y', 'vault_id=a&kind=x&kind=y&include_hidden=true', 'vault_id=a&kind=y&kind=x']) {
      expect(errorOf(() => codec.decode(c, '/v1/activity', new URLSearchParams(other), 'asc')).code).toBe('INVALID_CURSOR');
    }
  });

  it('error: used with the other order', () => {
    const c = codec.encode('/v1/activity', {}, 'asc', 1);
    expectInvalid(() => codec.decode(c, '/v1/activity', {}, 'desc'), `next ${JSON.stringify(`${c.slice(0, 24)}…`)} was issued for order=asc, not order=desc`);
  });

  it('error: a cursor signed with another secret', () => {
    const other = createCursorCodec(Buffer.alloc(32, 7));
    const c = other.encode(walletA, {}, 'asc', 'pos_1');
    expect(errorOf(() => codec.decode(c, walletA, {}, 'asc')).message).toMatch(/is not a valid cursor; pass meta\.next_cursor/);
  });

  it('error: changing any character of a cursor', () => {
    const c = codec.encode(walletA, { kind: 'deposit' }, 'asc', ['2024-05-01T00:00:00Z', 'pos_12']);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < c.length; i++) {
      for (const ch of [alphabet[(alphabet.indexOf(c[i]!) + 1) % 64]!, alphabet[(alphabet.indexOf(c[i]!) + 33) % 64]!]) {
        const tampered = c.slice(0, i) + ch + c.slice(i + 1);
        expect(errorOf(() => codec.decode(tampered, walletA, { kind: 'deposit' }, 'asc')).code).toBe('INVALID_CURSOR');
      }
    }
    // and dropping or adding characters
    expect(errorOf(() => codec.decode(c.slice(0, -1), walletA, { kind: 'deposit' }, 'asc')).code).toBe('INVALID_CURSOR');
    expect(errorOf(() => codec.decode(`${c}A`, walletA, { kind: 'deposit' }, 'asc')).code).toBe('INVALID_CURSOR');
  });

  it('error: garbage, empty, huge and non-base64url input, with exact messages', () => {
    const table: [string, string][] = [
      ['', 'next "" is not a valid cursor; pass meta.next_cursor from the previous page unchanged'],
      ['abc', 'next "abc" is not a valid cursor; pass meta.next_cursor from the previous page unchanged'],
      ['eyJ2IjoxfQ==', 'next "eyJ2IjoxfQ==" is not a valid cursor; pass meta.next_cursor from the previous page unchanged'],
      ['a+b/c', 'next "a+b/c" is not a valid cursor; pass meta.next_cursor from the previous page unchanged'],
      ['ü\n"x', 'next "ü\\n\\"x" is not a valid cursor; pass meta.next_cursor from the previous page unchanged'],
      ['A'.repeat(MAX_CURSOR_LENGTH + 1), `next "${'A'.repeat(24)}…" is not a valid cursor; pass meta.next_cursor from the previous page unchanged`],
      [
        Buffer.from('{"v":1,"k":"x","o":"asc","h":"aaaaaaaaaaaaaaaa"}0123456789abcdef').toString('base64url'),
        'next "eyJ2IjoxLCJrIjoieCIsIm8i…" is not a valid cursor; pass meta.next_cursor from the previous page unchanged',
      ],
    ];
    for (const [input, message] of table) expectInvalid(() => codec.decode(input, walletA, {}, 'asc'), message);
  });

  it('fuzz: decoding anything throws only INVALID_CURSOR', () => {
    const valid = codec.encode(walletA, {}, 'asc', 'pos_1');
    const inputs = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 2000 }),
      fc.stringMatching(/^[A-Za-z0-9_-]{0,300}$/),
      fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('base64url')),
      fc.tuple(fc.nat(valid.length - 1), fc.stringMatching(/^[A-Za-z0-9_-]$/)).map(([i, ch]) => valid.slice(0, i) + ch + valid.slice(i + 1)),
    );
    fc.assert(
      fc.property(inputs, (input) => {
        try {
          expect(codec.decode(input, walletA, {}, 'asc')).toBe('pos_1'); // only the untouched cursor decodes
          expect(input).toBe(valid);
        } catch (e) {
          expect(e).toBeInstanceOf(VaultdError);
          expect((e as VaultdError).code).toBe('INVALID_CURSOR');
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('error: a short secret is refused', () => {
    const e = errorOf(() => createCursorCodec(Buffer.alloc(8)));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toBe('cursor secret is 8 bytes; it must be at least 16');
  });

  it('error: encode refuses a key that would make a cursor over the size limit', () => {
    const e = errorOf(() => codec.encode(walletA, {}, 'asc', 'x'.repeat(800)));
    expect(e.code).toBe('INTERNAL');
    expect(e.message).toMatch(/^cursor of \d+ chars exceeds 1024; the page key is too long$/);
  });

  it('is short for typical keys', () => {
    expect(codec.encode(walletA, {}, 'asc', 'pos_000123').length).toBeLessThan(100);
  });
});

describe('cursor MAC', () => {
  it('is HMAC-SHA256 (createHmac) cut to 16 bytes, for secrets shorter and longer than a block', () => {
    // read off the cursors the codec makes: base64url(payload JSON ‖ MAC), for page keys of any
    // length and script (the MAC is written into reused buffers, so the payload's size varies)
    const DOMAIN = Buffer.from('vaultd-cursor-v1\0');
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 120 }), (secret, key) => {
        const keyed = createCursorCodec(Buffer.from(secret));
        const cursor = keyed.encode(walletA, { include_hidden: false }, 'asc', key);
        const bytes = Buffer.from(cursor, 'base64url');
        const json = bytes.subarray(0, -16);
        expect(JSON.parse(json.toString('utf8')).k).toBe(key);
        const expected = createHmac('sha256', Buffer.from(secret)).update(DOMAIN).update(json).digest().subarray(0, 16);
        expect(bytes.subarray(-16).equals(expected)).toBe(true);
        // and decode checks it over the payload's bytes (the other way into the MAC)
        expect(keyed.decode(cursor, walletA, { include_hidden: false }, 'asc')).toBe(key);
      }),
    );
  });

  it('a cursor made again for the same payload is the same string, and another generation gives another', () => {
    const a = codec.encode(walletA, { include_hidden: false }, 'asc', 7, 1);
    expect(codec.encode(walletA, { include_hidden: false }, 'asc', 7, 1)).toBe(a);
    expect(codec.encode(walletA, Object.freeze({ include_hidden: false }), 'asc', 7, 1)).toBe(a);
    expect(codec.encode(walletA, { include_hidden: false }, 'asc', 7, 2)).not.toBe(a);
    expect(codec.decode(a, walletA, Object.freeze({ include_hidden: false }), 'asc')).toBe(7);
    expectInvalid(
      () => codec.decode(a, walletB, Object.freeze({ include_hidden: false }), 'asc'),
      `next ${JSON.stringify(`${a.slice(0, 24)}…`)} belongs to another route or query; only limit may change between pages`,
    );
  });
});

describe('cursor bytes', () => {
  it('a cursor is base64url(payload ‖ HMAC-SHA256 of DOMAIN ‖ payload, 16 bytes), for any key (the reused-buffer signer against createHmac)', () => {
    const DOMAIN = Buffer.from('vaultd-cursor-v1\0');
    const keyArb = fc.oneof(
      fc.string({ maxLength: 300, unit: 'binary' }),
      fc.integer(),
      fc.array(fc.string({ maxLength: 20, unit: 'grapheme' }), { maxLength: 4 }),
    );
    fc.assert(
      fc.property(keyArb, (key) => {
        let c: string;
        try {
          c = codec.encode(walletA, {}, 'asc', key, 3);
        } catch (e) {
          // a key whose cursor is over the limit is refused, never cut
          expect((e as VaultdError).code).toBe('INTERNAL');
          return;
        }
        const bytes = Buffer.from(c, 'base64url');
        const json = bytes.subarray(0, bytes.length - 16);
        expect(JSON.parse(json.toString('utf8'))).toMatchObject({ v: 1, k: key, o: 'asc', g: 3 });
        expect(bytes.subarray(bytes.length - 16).equals(createHmac('sha256', secret).update(DOMAIN).update(json).digest().subarray(0, 16))).toBe(true);
      }),
    );
  });

  it('a query object and the same parameters as URLSearchParams name one context (any names, values, absent values)', () => {
    const value = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined));
    const query = fc.dictionary(
      fc.oneof(fc.constantFrom('next', 'limit', 'order', 'start', 'end'), fc.string({ minLength: 1, maxLength: 8 })),
      fc.oneof(value, fc.array(value, { maxLength: 3 })),
    );
    fc.assert(
      fc.property(query, fc.boolean(), (q, freeze) => {
        const params = new URLSearchParams();
        for (const [name, v] of Object.entries(q))
          for (const item of Array.isArray(v) ? v : [v]) if (item !== null && item !== undefined) params.append(name, String(item));
        const c = codec.encode('/v1/activity', freeze ? Object.freeze({ ...q }) : q, 'desc', 'k');
        expect(codec.decode(c, '/v1/activity', params, 'desc')).toBe('k');
        // and another value of any bound name is another context
        const bound = [...params.keys()].find((n) => !['next', 'limit', 'order'].includes(n));
        if (bound !== undefined) {
          const other = new URLSearchParams(params);
          other.append(bound, 'another');
          expectInvalid(
            () => codec.decode(c, '/v1/activity', other, 'desc'),
            `next ${JSON.stringify(`${c.slice(0, 24)}…`)} belongs to another route or query; only limit may change between pages`,
          );
        }
      }),
    );
  });
});

describe('cursor keyring', () => {
  const [a, b, c, d] = [1, 2, 3, 4].map((k) => Buffer.alloc(32, k));
  const page = (codec: { encode: (...x: any[]) => string }, g: number) => codec.encode('/v1/vaults', {}, 'desc', ['k', 7], g);

  it('a cursor is signed with the secret of the store its generation came from', () => {
    const ring = createCursorKeyring(a!);
    ring.use(b!, 5); // a replaced database: its generations start at 5
    expect(page(ring, 4)).toBe(page(createCursorCodec(a!), 4));
    expect(page(ring, 5)).toBe(page(createCursorCodec(b!), 5));
    expect(page(ring, 9)).toBe(page(createCursorCodec(b!), 9));
    expect(ring.secretFor(4)).toEqual(a);
    expect(ring.secretFor()).toEqual(b);
    // a process that has not seen the new store yet verifies the old generation's cursor
    expect(createCursorCodec(a!).decode(page(ring, 4), '/v1/vaults', {}, 'desc')).toEqual(['k', 7]);
    // both verify here, whatever secret signed them
    expect(ring.decode(page(createCursorCodec(a!), 7), '/v1/vaults', {}, 'desc')).toEqual(['k', 7]);
    expect(ring.decode(page(ring, 4), '/v1/vaults', {}, 'desc')).toEqual(['k', 7]);
  });

  it('keeps the last secrets; older ones, tampering and other routes do not verify', () => {
    const ring = createCursorKeyring(a!);
    const fromA = page(ring, 1);
    ring.use(b!, 2);
    const fromB = page(ring, 2);
    ring.use(c!, 3);
    expect(ring.decode(fromA, '/v1/vaults', {}, 'desc')).toEqual(['k', 7]);
    ring.use(d!, 4);
    // kept: d, c, b
    expect(errorOf(() => ring.decode(fromA, '/v1/vaults', {}, 'desc')).code).toBe('INVALID_CURSOR');
    expect(ring.decode(fromB, '/v1/vaults', {}, 'desc')).toEqual(['k', 7]);
    // the error of a bad cursor is its own generation's codec's, as with one secret
    const bad = `${fromB.slice(0, -2)}AA`;
    expect(errorOf(() => ring.decode(bad, '/v1/vaults', {}, 'desc')).message).toBe(
      errorOf(() => createCursorCodec(b!).decode(bad, '/v1/vaults', {}, 'desc')).message,
    );
    expect(errorOf(() => ring.decode(fromB, '/v1/strategies', {}, 'desc')).code).toBe('INVALID_CURSOR');
  });

  it('the same secret again changes nothing', () => {
    const ring = createCursorKeyring(a!);
    ring.use(b!, 3);
    const before = [page(ring, 2), page(ring, 3)];
    ring.use(Buffer.from(b!), 3);
    ring.use(Buffer.from(b!), 4);
    expect([page(ring, 2), page(ring, 3)]).toEqual(before);
  });
});

describe('cursor payload text', () => {
  it('is JSON.stringify of { v, k, o, h, g, t, f } for any key, generation and pin (the template against the oracle)', () => {
    const num = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(-0, 1e21, 5e-324, Number.NaN, Number.POSITIVE_INFINITY));
    const key = fc.oneof(num, fc.string({ maxLength: 20, unit: 'binary' }), fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 6 })), { maxLength: 3 }));
    fc.assert(
      fc.property(
        key,
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.string({ maxLength: 16 }),
        fc.option(num, { nil: undefined }),
        fc.option(fc.record({ t: num, f: num }), { nil: undefined }),
        (k, o, h, g, pin) => {
          expect(payloadText(k, o, h, g, pin)).toBe(JSON.stringify({ v: 1, k, o, h, g, t: pin?.t, f: pin?.f }));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('queries of other shapes one after another name their own contexts (names sorted per shape)', () => {
    const shapes = [
      { start: 1, end: 2, granularity: 'hour', as_of: undefined },
      { granularity: 'hour', start: 1, end: 2 },
      { end: 2, start: 1, granularity: 'hour' },
      { start: 1, end: 2, granularity: 'hour', as_of: undefined },
    ];
    const cursors = shapes.map((q) => codec.encode('/v1/x', q, 'asc', 5));
    // the same parameters in any order (and an absent member) are one context, in any sequence
    for (const c of cursors) for (const q of shapes) expect(codec.decode(c, '/v1/x', q, 'asc')).toBe(5);
    expect(new Set(cursors).size).toBe(1);
    // between shapes, another parameter set is another context
    const fewer = codec.encode('/v1/x', { granularity: 'hour', start: 1 }, 'asc', 5);
    expect(fewer).not.toBe(cursors[0]);
    expect(() => codec.decode(fewer, '/v1/x', shapes[0]!, 'asc')).toThrow(/belongs to another route or query/);
    expect(() => codec.decode(cursors[0]!, '/v1/x', { start: 1, granularity: 'hour' }, 'asc')).toThrow(/belongs to another route or query/);
    expect(codec.decode(fewer, '/v1/x', { start: 1, granularity: 'hour', as_of: undefined }, 'asc')).toBe(5);
  });
});
