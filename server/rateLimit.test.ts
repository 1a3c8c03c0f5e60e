import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VaultdError } from '../common/errors.js';
import { createRateLimiter, rateLimitHeaders, type RateLimitResult } from './rateLimit.js';

function clock(start = 1_700_000_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('rate limiter', () => {
  it('a new bucket is full: the first request leaves limit − 1', () => {
    const c = clock();
    const limiter = createRateLimiter({ anonymousPerMinute: 60, keyedPerMinute: 600, now: c.now });
    expect(limiter.take('1.2.3.4', 'anonymous')).toEqual({
      allowed: true,
      limit: 60,
      remaining: 59,
      resetSeconds: 1,
      retryAfterSeconds: 0,
    });
    expect(limiter.take('key_a', 'keyed')).toMatchObject({ allowed: true, limit: 600, remaining: 599, resetSeconds: 1 });
  });

  it('a weighted request spends its cost; one costlier than the whole budget is capped at it', () => {
    const c = clock();
    const limiter = createRateLimiter({ anonymousPerMinute: 60, keyedPerMinute: 25, now: c.now });
    expect(limiter.take('k', 'keyed', 10)).toMatchObject({ allowed: true, remaining: 15 });
    expect(limiter.take('k', 'keyed', 10)).toMatchObject({ allowed: true, remaining: 5 });
    // not enough left: refused, nothing spent, Retry-After covers the missing 5 tokens (12 s at 25/min)
    expect(limiter.take('k', 'keyed', 10)).toMatchObject({ allowed: false, remaining: 5, retryAfterSeconds: 12 });
    expect(limiter.take('k', 'keyed')).toMatchObject({ allowed: true, remaining: 4 });
    expect(limiter.take('ip', 'anonymous', 1000)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('a burst drains the bucket, then refuses with Retry-After', () => {
    const c = clock();
    const limiter = createRateLimiter({ anonymousPerMinute: 60, keyedPerMinute: 600, now: c.now });
    for (let i = 0; i < 60; i++) expect(limiter.take('ip', 'anonymous').allowed).toBe(true);
    expect(limiter.take('ip', 'anonymous')).toEqual({
      allowed: false,
      limit: 60,
      remaining: 0,
      resetSeconds: 60,
      retryAfterSeconds: 1,
    });
  });

  it('refills continuously at limit/60 per second', () => {
    const c = clock();
    const limiter = createRateLimiter({ anonymousPerMinute: 6, keyedPerMinute: 600, now: c.now }); // 1 token / 10 s
    for (let i = 0; i < 6; i++) limiter.take('ip', 'anonymous');
    c.advance(5_000);
    expect(limiter.take('ip', 'anonymous')).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 5, resetSeconds: 55 });
    c.advance(4_999);
    expect(limiter.take('ip', 'anonymous')).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    c.advance(1);
    expect(limiter.take('ip', 'anonymous')).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 60 });
    c.advance(25_000); // 2.5 tokens, one taken: 1.5 left, 4.5 (45 s) short of full
    expect(limiter.take('ip', 'anonymous')).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 45 });
  });

  it('refused requests do not consume tokens', () => {
    const c = clock();
    const limiter = createRateLimiter({ anonymousPerMinute: 60, keyedPerMinute: 600, now: c.now });
    for (let i = 0; i < 60; i++) limiter.take('ip', 'anonymous');
    for (let i = 0; i < 100; i++) expect(limiter.take('ip', 'anonymous').allowed).toBe(false);
    c.advance(1_000);
    expect(limiter.take('ip', 'anonymous').allowed).toBe(true);
  });

  it('the bucket never holds more than its limit', () => {
    const c = clock();
    const limiter = createRateLimiter({ anonymousPerMinute: 60, keyedPerMinute: 600, now: c.now });
    limiter.take('ip', 'anonymous');
    c.advance(3_600_000);
    expect(limiter.take('ip', 'anonymous')).toMatchObject({ remaining: 59, resetSeconds: 1 });
  });

  it('buckets are separate per key and per tier', () => {
    const c = clock();
    const limiter = createRateLimiter({ anonymousPerMinute: 2, keyedPerMinute: 3, now: c.now });
    limiter.take('a', 'anonymous');
    limiter.take('a', 'anonymous');
    expect(limiter.take('a', 'anonymous').allowed).toBe(false);
    expect(limiter.take('b', 'anonymous')).toMatchObject({ allowed: true, remaining: 1 });
    expect(limiter.take('a', 'keyed')).toMatchObject({ allowed: true, limit: 3, remaining: 2 });
  });

  it('any key tier but anonymous draws on the keyed budget', () => {
    const c = clock();
    const limiter = createRateLimiter({ anonymousPerMinute: 1, keyedPerMinute: 5, now: c.now });
    expect(limiter.take('key_p', 'partner')).toMatchObject({ allowed: true, limit: 5, remaining: 4 });
    expect(limiter.take('key_p', 'keyed')).toMatchObject({ allowed: true, limit: 5, remaining: 3 });
  });

  it('a clock stepping back refills nothing and breaks nothing', () => {
    const c = clock();
    const limiter = createRateLimiter({ anonymousPerMinute: 60, keyedPerMinute: 600, now: c.now });
    limiter.take('ip', 'anonymous');
    c.advance(-10_000);
    expect(limiter.take('ip', 'anonymous')).toMatchObject({ allowed: true, remaining: 58 });
  });

  it('over any schedule, allowed requests never exceed limit + elapsed × limit/60s', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), fc.array(fc.integer({ min: 0, max: 5_000 }), { maxLength: 300 }), (limit, gaps) => {
        const c = clock();
        const limiter = createRateLimiter({ anonymousPerMinute: limit, keyedPerMinute: limit, now: c.now });
        let allowed = 0;
        let elapsed = 0;
        for (const gap of gaps) {
          c.advance(gap);
          elapsed += gap;
          const r = limiter.take('k', 'keyed');
          if (r.allowed) allowed++;
          expect(r.remaining).toBeGreaterThanOrEqual(0);
          expect(r.remaining).toBeLessThan(limit);
          expect(r.resetSeconds).toBeLessThanOrEqual(60);
          expect(r.allowed || r.retryAfterSeconds >= 1).toBe(true);
        }
        expect(allowed).toBeLessThanOrEqual(limit + Math.floor((elapsed * limit) / 60_000));
      }),
    );
  });

  it('memory: idle buckets are dropped once full again', () => {
    const c = clock();
    const limiter = createRateLimiter({ anonymousPerMinute: 60, keyedPerMinute: 600, now: c.now });
    for (let i = 0; i < 1000; i++) limiter.take(`10.0.${i >> 8}.${i & 255}`, 'anonymous');
    expect(limiter.size).toBe(1000);
    c.advance(60_000);
    for (let i = 0; i < 600; i++) limiter.take('busy', 'anonymous');
    expect(limiter.size).toBe(1);
  });

  it('memory: the least recently used bucket goes first past maxBuckets', () => {
    const c = clock();
    const limiter = createRateLimiter({ anonymousPerMinute: 2, keyedPerMinute: 2, now: c.now, maxBuckets: 3 });
    limiter.take('a', 'anonymous');
    limiter.take('b', 'anonymous');
    limiter.take('c', 'anonymous');
    limiter.take('a', 'anonymous'); // a is now the most recent; b the least
    limiter.take('d', 'anonymous'); // evicts b
    expect(limiter.size).toBe(3);
    expect(limiter.take('a', 'anonymous').allowed).toBe(false); // a kept its state
    expect(limiter.take('b', 'anonymous').remaining).toBe(1); // b starts afresh
  });

  it('error: limits must be positive integers', () => {
    const table: [Parameters<typeof createRateLimiter>[0], string][] = [
      [{ anonymousPerMinute: 0, keyedPerMinute: 600 }, 'rate limit option anonymousPerMinute must be a positive integer, got 0'],
      [{ anonymousPerMinute: 60, keyedPerMinute: 1.5 }, 'rate limit option keyedPerMinute must be a positive integer, got 1.5'],
      [{ anonymousPerMinute: 60, keyedPerMinute: Number.NaN }, 'rate limit option keyedPerMinute must be a positive integer, got NaN'],
      [{ anonymousPerMinute: 60, keyedPerMinute: 600, maxBuckets: -1 }, 'rate limit option maxBuckets must be a positive integer, got -1'],
    ];
    for (const [options, message] of table) {
      let error: unknown;
      try {
        createRateLimiter(options);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(VaultdError);
      expect((error as VaultdError).code).toBe('CONFIG_INVALID');
      expect((error as VaultdError).message).toBe(message);
    }
  });
});

describe('rateLimitHeaders', () => {
  it('allowed: the three headers and their X- twins', () => {
    const r: RateLimitResult = { allowed: true, limit: 60, remaining: 41, resetSeconds: 19, retryAfterSeconds: 0 };
    expect(rateLimitHeaders(r)).toEqual([
      ['RateLimit-Limit', '60'],
      ['RateLimit-Remaining', '41'],
      ['RateLimit-Reset', '19'],
      ['X-RateLimit-Limit', '60'],
      ['X-RateLimit-Remaining', '41'],
      ['X-RateLimit-Reset', '19'],
    ]);
  });

  it('refused: plus Retry-After', () => {
    const r: RateLimitResult = { allowed: false, limit: 600, remaining: 0, resetSeconds: 60, retryAfterSeconds: 1 };
    expect(rateLimitHeaders(r).at(-1)).toEqual(['Retry-After', '1']);
    expect(rateLimitHeaders(r)).toHaveLength(7);
  });
});
