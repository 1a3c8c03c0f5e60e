import { describe, expect, it } from 'vitest';
import { exchangeOf } from '../../../test/helpers/exchange.js';
import { MAX_TARGET } from '../../exchange.js';
import { createTargetLengthStep } from './index.js';

describe('target length step', () => {
  it('passes a target of MAX_TARGET bytes; error: one more is 414, charged as junk outside /v1', () => {
    const charged: string[] = [];
    const step = createTargetLengthStep((x) => charged.push(x.req.path));
    const path = '/v1/vaults';
    expect(step(exchangeOf({ path, query: 'x'.repeat(MAX_TARGET - path.length) }))).toBeUndefined();
    expect(() => step(exchangeOf({ path, query: 'x'.repeat(MAX_TARGET - path.length + 1) }))).toThrow(/the request target is 8193 bytes; the limit is 8192/);
    expect(charged).toEqual([]);
    expect(() => step(exchangeOf({ path: '/a', query: 'x'.repeat(MAX_TARGET) }))).toThrow(/URI|limit/);
    expect(charged).toEqual(['/a']);
  });
});
