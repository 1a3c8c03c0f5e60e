import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { VaultdError } from '../../../common/errors.js';
import { exchangeOf } from '../../../test/helpers/exchange.js';
import { createAuthTable } from '../../auth.js';
import { createAuthStep } from './index.js';

const table = createAuthTable([{ id: 'k1', tier: 'keyed', secret_sha256: createHash('sha256').update('vk_good').digest('hex') }]);
const step = (anonymous: boolean) => createAuthStep({ auth: () => table, anonymous });
const code = (f: () => unknown) => {
  try {
    f();
    return null;
  } catch (e) {
    return (e as VaultdError).code;
  }
};

describe('auth step', () => {
  it('a known key as Bearer or x-api-key is that key; none is anonymous', () => {
    const bearer = exchangeOf({ authorization: 'Bearer vk_good' });
    expect(step(true)(bearer)).toBeUndefined();
    expect(bearer.who).toEqual({ kind: 'key', id: 'k1', tier: 'keyed' });
    const header = exchangeOf({ apiKey: 'vk_good' });
    step(true)(header);
    expect(header.who.kind).toBe('key');
    const none = exchangeOf();
    step(true)(none);
    expect(none.who.kind).toBe('anonymous');
  });

  it('error: an unknown key is 401, and so is no key where anonymous access is off', () => {
    expect(code(() => step(true)(exchangeOf({ authorization: 'Bearer vk_bad' })))).toBe('UNAUTHORIZED');
    expect(code(() => step(false)(exchangeOf()))).toBe('UNAUTHORIZED');
  });

  it('a preflight is never authenticated, and paths outside /v1 are not checked', () => {
    const preflight = exchangeOf({ method: 'OPTIONS', authorization: 'Bearer vk_bad' });
    expect(code(() => step(false)(preflight))).toBeNull();
    expect(preflight.who.kind).toBe('anonymous');
    expect(code(() => step(false)(exchangeOf({ path: '/health', authorization: 'Bearer vk_bad' })))).toBeNull();
  });
});
