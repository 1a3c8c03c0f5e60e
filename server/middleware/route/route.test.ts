import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ReadModel } from '../../../engine/publish/index.js';
import { tempDir, testCommon } from '../../../test/helpers/common.js';
import { exchangeOf } from '../../../test/helpers/exchange.js';
import { publishedDemo, servedOf } from '../../../test/helpers/publishedDemo.js';
import { createCursorCodec } from '../../cursor.js';
import { createResponder } from '../../respond.js';
import { createSloMonitor } from '../../sloMonitor.js';
import { createRouteStep } from './index.js';

let model: ReadModel;
beforeAll(async () => {
  const snapshot = await publishedDemo(join(tempDir('vaultd-route-step-'), 'w.duckdb'), {
    seed: 3,
    now: Date.parse('2026-03-01T00:00:00Z') / 1000,
    vaults: null,
    wallets: 20,
    days: 10,
  });
  model = servedOf(snapshot);
});

function stepWith(current: () => ReadModel | null, charged: string[] = []) {
  return createRouteStep({
    common: testCommon(),
    current,
    jobs: false,
    cursors: createCursorCodec(Buffer.alloc(32, 1)),
    started: 0,
    slo: createSloMonitor({ objectives: { freshness_seconds: 7200, latency_p99_ms: 50, availability: 0.999 }, chainHeads: () => [], publishedAt: () => null }),
    respond: createResponder({ common: testCommon(), secondsToNextPublish: () => null }),
    chargeJunk: (x) => charged.push(x.req.path),
  });
}

const sync = <T>(r: T | Promise<T> | undefined | void): T => {
  if (r === undefined || r instanceof Promise) throw new Error('no synchronous answer');
  return r as T;
};

describe('route step', () => {
  it('error: an unknown path is 404 naming it, charged as junk outside /v1', () => {
    const charged: string[] = [];
    const step = stepWith(() => model, charged);
    expect(() => step(exchangeOf({ path: '/v1/nope' }))).toThrow('no route for "/v1/nope"; see /openapi.json');
    expect(() => step(exchangeOf({ path: '/nope' }))).toThrow('no route for "/nope"');
    expect(charged).toEqual(['/nope']);
  });

  it('before the first publish a /v1 route is 503 NOT_READY', () => {
    const r = sync(stepWith(() => null)(exchangeOf({ path: '/v1/vaults' })));
    expect(r.status).toBe(503);
  });

  it('a page answer is remembered per target: once the route is known to answer with pages, the read model is not asked again', () => {
    let asked = 0;
    const counting = new Proxy(model, {
      get(target, prop, receiver) {
        if (prop === 'vaultList') asked++;
        return Reflect.get(target, prop, receiver);
      },
    });
    const step = stepWith(() => counting);
    // the first answer teaches the step that the route answers with pages; the second is remembered
    const answers = Array.from({ length: 5 }, () => sync(step(exchangeOf({ path: '/v1/vaults' }))));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(asked).toBe(2);
    for (const r of answers) expect(r.template).toBe(answers[0]!.template);
  });
});
