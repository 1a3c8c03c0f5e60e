import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VaultdError } from '../common/errors.js';
import { hashSecret } from '../store/apiKeys.js';
import { createAuthTable } from './auth.js';

const alice = 'vk_aliceAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const bob = 'vk_bob-_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
const table = createAuthTable([
  { id: 'key_alice', secret_sha256: hashSecret(alice), tier: 'keyed' },
  { id: 'key_bob', secret_sha256: hashSecret(bob).toUpperCase(), tier: 'partner' },
]);
const ALICE = { kind: 'key', id: 'key_alice', tier: 'keyed' };

describe('authenticate', () => {
  it('no credential is anonymous (absent or empty headers, as uWS reports absence)', () => {
    expect(table.authenticate({})).toEqual({ kind: 'anonymous' });
    expect(table.authenticate({ authorization: '', apiKey: '' })).toEqual({ kind: 'anonymous' });
  });

  it('a known secret as Bearer token or x-api-key names its key and tier', () => {
    expect(table.authenticate({ authorization: `Bearer ${alice}` })).toEqual(ALICE);
    expect(table.authenticate({ apiKey: alice })).toEqual(ALICE);
    expect(table.authenticate({ apiKey: bob })).toEqual({ kind: 'key', id: 'key_bob', tier: 'partner' });
  });

  it('the Bearer scheme is case-insensitive and tolerates extra spaces', () => {
    expect(table.authenticate({ authorization: `bearer ${alice}` })).toEqual(ALICE);
    expect(table.authenticate({ authorization: `BEARER   ${alice}  ` })).toEqual(ALICE);
  });

  it('both headers with the same secret are accepted', () => {
    expect(table.authenticate({ authorization: `Bearer ${alice}`, apiKey: alice })).toEqual(ALICE);
  });

  const invalid: [string, { authorization?: string; apiKey?: string }][] = [
    ['an unknown secret', { apiKey: 'vk_unknown' }],
    ['an unknown Bearer token', { authorization: 'Bearer vk_unknown' }],
    ['another scheme', { authorization: `Basic ${Buffer.from(`u:${alice}`).toString('base64')}` }],
    ['a bare token without scheme', { authorization: alice }],
    ['Bearer with no token', { authorization: 'Bearer' }],
    ['Bearer with only spaces', { authorization: 'Bearer   ' }],
    ['Bearer with two tokens', { authorization: `Bearer ${alice} ${alice}` }],
    ['a token with characters outside b64token', { authorization: 'Bearer vk_ü' }],
    ['an x-api-key with a space', { apiKey: `${alice} x` }],
    ['a secret over 512 characters', { apiKey: 'a'.repeat(513) }],
    ['both headers disagreeing', { authorization: `Bearer ${alice}`, apiKey: bob }],
    ['both headers, one unknown', { authorization: 'Bearer vk_unknown', apiKey: alice }],
    ['a malformed Authorization beside a good x-api-key', { authorization: 'Basic abc', apiKey: alice }],
    ['the digest instead of the secret', { apiKey: hashSecret(alice) }],
    ['a prefix of a secret', { apiKey: alice.slice(0, -1) }],
  ];
  for (const [why, headers] of invalid) {
    it(`invalid: ${why}`, () => {
      expect(table.authenticate(headers)).toEqual({ kind: 'invalid' });
    });
  }

  it('fuzz: random headers are never accepted and never throw', () => {
    fc.assert(
      fc.property(fc.option(fc.string({ unit: 'binary' })), fc.option(fc.string({ unit: 'binary' })), (authorization, apiKey) => {
        const r = table.authenticate({ authorization: authorization ?? undefined, apiKey: apiKey ?? undefined });
        expect(r.kind === 'anonymous' || r.kind === 'invalid').toBe(true);
      }),
    );
  });

  it('an empty table knows no key', () => {
    const empty = createAuthTable([]);
    expect(empty.size).toBe(0);
    expect(empty.authenticate({ apiKey: alice })).toEqual({ kind: 'invalid' });
  });

  it('error: a malformed stored digest is refused at load', () => {
    let error: unknown;
    try {
      createAuthTable([{ id: 'key_x', secret_sha256: 'abc', tier: 'keyed' }]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(VaultdError);
    expect((error as VaultdError).message).toBe('API key "key_x" has a malformed secret_sha256; expected 64 hex digits');
  });
});
