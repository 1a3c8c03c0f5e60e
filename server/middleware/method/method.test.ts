import { describe, expect, it } from 'vitest';
import type { VaultdError } from '../../../common/errors.js';
import { exchangeOf } from '../../../test/helpers/exchange.js';
import { methodStep } from './index.js';

describe('method step', () => {
  it('GET and HEAD pass; error: any other method is 405 naming the allowed ones', () => {
    expect(methodStep(exchangeOf({ method: 'GET' }))).toBeUndefined();
    expect(methodStep(exchangeOf({ method: 'HEAD' }))).toBeUndefined();
    try {
      methodStep(exchangeOf({ method: 'POST' }));
      expect.fail('POST passed');
    } catch (e) {
      const err = e as VaultdError;
      expect(err.code).toBe('METHOD_NOT_ALLOWED');
      expect(err.message).toBe('method POST is not allowed; this API is read-only (GET, HEAD, OPTIONS)');
      expect(err.details).toEqual({ allowed: ['GET', 'HEAD', 'OPTIONS'] });
    }
  });
});
