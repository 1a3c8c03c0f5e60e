// Token-bucket rate limits (DESIGN §5.5): anonymous callers per client IP, keyed callers per key.
// Buckets refill continuously; memory is bounded by an LRU cap and by dropping idle (full) buckets.
import { VaultdError } from '../common/errors.js';

/** Key tiers other than 'anonymous' (the api_keys.tier column is free text) share the keyed budget. */
export type RateTier = 'anonymous' | 'keyed' | (string & {});

export interface RateLimitResult {
  allowed: boolean;
  /** the bucket's capacity: requests per minute */
  limit: number;
  /** whole tokens left after this request */
  remaining: number;
  /** seconds until the bucket is full again */
  resetSeconds: number;
  /** seconds until one token is available; 0 when allowed */
  retryAfterSeconds: number;
}

export interface RateLimiterOptions {
  anonymousPerMinute: number;
  keyedPerMinute: number;
  /** milliseconds; default Date.now */
  now?: () => number;
  /** most buckets kept per tier; default 100,000 (the least recently used is dropped first) */
  maxBuckets?: number;
}

export interface RateLimiter {
  /**
   * Spend `cost` tokens (default 1; capped at the tier's limit so every request can pass once
   * the bucket is full). The result is one object per limiter, overwritten by the next take:
   * read it before taking again (the request path copies nothing it does not need).
   */
  take(bucketKey: string, tier: RateTier, cost?: number): Readonly<RateLimitResult>;
  /** buckets held, both tiers */
  readonly size: number;
}

interface Bucket {
  /** fill level in ticks: one token = 60,000 ticks, so refill is `limit` ticks per ms, exactly */
  ticks: number;
  at: number;
}

interface Tier {
  limit: number;
  /** in least-recently-used order (Map order: a take moves its bucket to the end) */
  buckets: Map<string, Bucket>;
  /** the key of the last take: its bucket is already the most recent, no move needed */
  last: string | null;
  /** `at` of the oldest bucket when last looked at: no bucket is idle before oldestAt + IDLE_MS */
  oldestAt: number;
}

const TICKS_PER_TOKEN = 60_000;
/** A bucket untouched this long is full again, as good as absent. */
const IDLE_MS = 60_000;
// Dropping at most this many idle buckets per take keeps cleanup O(1) per request.
const SWEEP_PER_TAKE = 2;

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const now = options.now ?? Date.now;
  const maxBuckets = options.maxBuckets ?? 100_000;
  checkPositiveInteger('anonymousPerMinute', options.anonymousPerMinute);
  checkPositiveInteger('keyedPerMinute', options.keyedPerMinute);
  checkPositiveInteger('maxBuckets', maxBuckets);
  const tiers = {
    anonymous: tierOf(options.anonymousPerMinute),
    keyed: tierOf(options.keyedPerMinute),
  };
  const result: RateLimitResult = { allowed: true, limit: 0, remaining: 0, resetSeconds: 0, retryAfterSeconds: 0 };

  return {
    take(bucketKey, tier, cost = 1) {
      const t = tier === 'anonymous' ? tiers.anonymous : tiers.keyed;
      const time = now();
      const { limit } = t;
      const capacity = limit * TICKS_PER_TOKEN;
      let bucket = t.buckets.get(bucketKey);
      if (bucket === undefined) {
        bucket = { ticks: capacity, at: time };
        t.buckets.set(bucketKey, bucket);
        if (t.buckets.size === 1) t.oldestAt = time;
      } else {
        if (bucketKey !== t.last) {
          // re-inserted: Map order is the LRU order
          t.buckets.delete(bucketKey);
          t.buckets.set(bucketKey, bucket);
        }
        const elapsed = Math.max(0, time - bucket.at); // a clock stepping back refills nothing
        bucket.ticks = Math.min(capacity, bucket.ticks + elapsed * limit);
        bucket.at = time;
      }
      t.last = bucketKey;
      const need = Math.min(limit, Math.max(1, Math.floor(cost))) * TICKS_PER_TOKEN;
      const allowed = bucket.ticks >= need;
      if (allowed) bucket.ticks -= need;
      sweep(t, time);

      const ticksPerSecond = limit * 1000;
      result.allowed = allowed;
      result.limit = limit;
      result.remaining = Math.floor(bucket.ticks / TICKS_PER_TOKEN);
      result.resetSeconds = Math.ceil((capacity - bucket.ticks) / ticksPerSecond);
      result.retryAfterSeconds = allowed ? 0 : Math.max(1, Math.ceil((need - bucket.ticks) / ticksPerSecond));
      return result;
    },
    get size() {
      return tiers.anonymous.buckets.size + tiers.keyed.buckets.size;
    },
  };

  function sweep(t: Tier, time: number): void {
    const buckets = t.buckets;
    if (buckets.size > maxBuckets) {
      while (buckets.size > maxBuckets) dropOldest(t);
    }
    // Any bucket untouched for a minute is full again, as good as absent: drop it. Buckets are
    // in LRU order, so the first is the oldest: nothing to look at before oldestAt + IDLE_MS.
    if (time - t.oldestAt < IDLE_MS) return;
    let n = 0;
    for (const [key, bucket] of buckets) {
      if (n++ === SWEEP_PER_TAKE || time - bucket.at < IDLE_MS) {
        t.oldestAt = bucket.at;
        return;
      }
      buckets.delete(key);
      if (key === t.last) t.last = null;
    }
    t.oldestAt = time;
  }

  function dropOldest(t: Tier): void {
    const key = t.buckets.keys().next().value!;
    t.buckets.delete(key);
    if (key === t.last) t.last = null;
  }
}

function tierOf(limit: number): Tier {
  return { limit, buckets: new Map(), last: null, oldestAt: 0 };
}

function checkPositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new VaultdError('CONFIG_INVALID', `rate limit option ${name} must be a positive integer, got ${String(value)}`);
  }
}

/**
 * Headers for a /v1 response (DESIGN §5.5): the IETF draft names, their X- twins, and
 * Retry-After when the request was refused.
 */
export function rateLimitHeaders(result: Readonly<RateLimitResult>): [string, string][] {
  const limit = String(result.limit);
  const remaining = String(result.remaining);
  const reset = String(result.resetSeconds);
  const headers: [string, string][] = [
    ['RateLimit-Limit', limit],
    ['RateLimit-Remaining', remaining],
    ['RateLimit-Reset', reset],
    ['X-RateLimit-Limit', limit],
    ['X-RateLimit-Remaining', remaining],
    ['X-RateLimit-Reset', reset],
  ];
  if (!result.allowed) headers.push(['Retry-After', String(result.retryAfterSeconds)]);
  return headers;
}
