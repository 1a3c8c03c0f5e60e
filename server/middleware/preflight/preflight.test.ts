import { describe, expect, it } from 'vitest';
import { exchangeOf } from '../../../test/helpers/exchange.js';
import { testCommon } from '../../../test/helpers/common.js';
import { replyHeaders } from '../../reply.js';
import { createResponder } from '../../respond.js';
import { createPreflightStep } from './index.js';

describe('preflight step', () => {
  it('OPTIONS gets 204 with the allowed methods and headers; other methods pass', () => {
    const step = createPreflightStep(createResponder({ common: testCommon(), secondsToNextPublish: () => null }));
    expect(step(exchangeOf({ method: 'GET' }))).toBeUndefined();
    const r = step(exchangeOf({ method: 'OPTIONS' }));
    if (!r || r instanceof Promise) throw new Error('no synchronous answer');
    expect(r.status).toBe(204);
    const headers = Object.fromEntries(replyHeaders(r));
    expect(headers['Access-Control-Allow-Methods']).toBe('GET, HEAD, OPTIONS');
    expect(headers['Access-Control-Allow-Origin']).toBe('*');
    expect(headers['Access-Control-Max-Age']).toBe('86400');
    expect(r.parts).toEqual([]);
  });
});
