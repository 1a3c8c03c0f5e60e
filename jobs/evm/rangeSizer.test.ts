import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VaultdError } from '../../common/errors.js';
import { createRangeSizer } from './rangeSizer.js';
import { backoffMs, withRetry } from './retry.js';
import type { RpcFault } from './rpcErrors.js';

describe('createRangeSizer', () => {
  it('grows ×2 on success up to the cap', () => {
    const s = createRangeSizer({ initial: 100, max: 1000 });
    const sizes = [s.size];
    for (let i = 0; i < 5; i++) {
      s.success();
      sizes.push(s.size);
    }
    expect(sizes).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('a provider suggestion is taken as is', () => {
    const s = createRangeSizer({ initial: 1000, max: 10_000 });
    s.failure({ kind: 'suggested', from: 500, to: 741 }, 1000, 500);
    expect(s.size).toBe(242);
  });

  it('a stated maximum is a hard cap: never exceeded again', () => {
    const s = createRangeSizer({ initial: 4000, max: 50_000 });
    s.failure({ kind: 'max', blocks: 2000 }, 4000, 0);
    expect(s.size).toBe(2000);
    for (let i = 0; i < 40; i++) s.success();
    expect(s.size).toBe(2000);
  });

  it('a bare "too large" halves, then probes upward again after a run of successes', () => {
    const s = createRangeSizer({ initial: 800, max: 10_000, probeAfter: 3 });
    s.failure({ kind: 'shrink' }, 800, 0);
    expect(s.size).toBe(400);
    s.success();
    s.success();
    expect(s.size).toBe(400);
    s.success();
    expect(s.size).toBe(800);
  });

  it('error: one block that is still too large', () => {
    const s = createRangeSizer({ initial: 1, max: 10 });
    expect(() => s.failure({ kind: 'shrink' }, 1, 42)).toThrow(
      new VaultdError('SOURCE_FAILED', "eth_getLogs fails even for the single block 42: the provider's result limit is below one block's logs"),
    );
  });

  it('property: after any failure the next span is smaller than the failed one and at least 1', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 100_000 }),
        fc.oneof(
          fc.constant({ kind: 'shrink' as const }),
          fc.integer({ min: 1, max: 200_000 }).map((blocks) => ({ kind: 'max' as const, blocks })),
          fc.integer({ min: 0, max: 200_000 }).map((n) => ({ kind: 'suggested' as const, from: 7, to: 7 + n })),
        ),
        (attempted, hint) => {
          const s = createRangeSizer({ initial: attempted, max: 200_000 });
          s.failure(hint, attempted, 7);
          expect(s.size).toBeGreaterThanOrEqual(1);
          expect(s.size).toBeLessThan(attempted);
        },
      ),
    );
  });
});

describe('withRetry', () => {
  const fault = (retryable: boolean, kind: RpcFault['kind'] = 'server'): RpcFault => ({ kind, retryable, message: kind });
  const noSleep = async () => {};

  it('retries retryable faults with growing backoff, then succeeds', async () => {
    const delays: number[] = [];
    let calls = 0;
    const value = await withRetry(
      async () => {
        if (++calls < 4) throw new Error('flaky');
        return 'ok';
      },
      { attempts: 6, baseMs: 100, maxMs: 1000 },
      { classify: () => fault(true), sleep: noSleep, random: () => 1, onRetry: (_, __, d) => delays.push(d) },
    );
    expect(value).toBe('ok');
    expect(delays).toEqual([100, 200, 400]);
  });

  it('stops after the bound and rethrows the last error', async () => {
    let calls = 0;
    await expect(
      withRetry(async () => Promise.reject(new Error(`e${++calls}`)), { attempts: 3, baseMs: 1, maxMs: 1 }, { classify: () => fault(true), sleep: noSleep }),
    ).rejects.toThrow('e3');
  });

  it('never retries a non-retryable fault, nor one passed through', async () => {
    let calls = 0;
    await expect(
      withRetry(async () => Promise.reject(new Error(`e${++calls}`)), { attempts: 5, baseMs: 1, maxMs: 1 }, { classify: () => fault(false), sleep: noSleep }),
    ).rejects.toThrow('e1');
    await expect(
      withRetry(
        async () => Promise.reject(new Error('range')),
        { attempts: 5, baseMs: 1, maxMs: 1 },
        { classify: () => fault(true, 'range'), passThrough: (f) => f.kind === 'range', sleep: noSleep },
      ),
    ).rejects.toThrow('range');
  });

  it('backoff: exponential, capped, jittered to 50–100 %', () => {
    const o = { attempts: 10, baseMs: 100, maxMs: 3000 };
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffMs(a, o, () => 1))).toEqual([100, 200, 400, 800, 1600, 3000]);
    expect(backoffMs(3, o, () => 0)).toBe(200);
  });
});
