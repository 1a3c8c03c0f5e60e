import { describe, expect, it } from 'vitest';
import { exchangeOf } from '../../../test/helpers/exchange.js';
import { testCommon } from '../../../test/helpers/common.js';
import { createResponder } from '../../respond.js';
import type { StaticAssets } from '../../static/staticAssets.js';
import { createStaticStep } from './index.js';

const respond = createResponder({ common: testCommon(), secondsToNextPublish: () => null });
const assets: StaticAssets = {
  servesUnder: (prefix: string) => prefix === '/client',
  answer: (req: { path: string }) =>
    req.path === '/client/index.js' ? { status: 200, headers: [['Content-Type', 'text/javascript']], parts: [Buffer.from('export {}')] } : null,
} as unknown as StaticAssets;

describe('static step', () => {
  it('answers the files it has, passes everything else, and never looks under /v1 unless mounted there', () => {
    const step = createStaticStep(assets, respond);
    const r = step(exchangeOf({ path: '/client/index.js' }));
    if (!r || r instanceof Promise) throw new Error('no answer');
    expect(r.status).toBe(200);
    expect(Buffer.concat(r.parts).toString()).toBe('export {}');
    expect(step(exchangeOf({ path: '/client/missing.js' }))).toBeUndefined();
    expect(step(exchangeOf({ path: '/v1/vaults' }))).toBeUndefined();
    expect(createStaticStep(undefined, respond)(exchangeOf({ path: '/client/index.js' }))).toBeUndefined();
  });
});
