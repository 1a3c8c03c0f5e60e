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
  /** Spend `cost` tokens (default 1; capped at the tier's limit so every request can pass once the bucket is full). */
  take(bucketKey: string, tier: RateTier, cost?: number): RateLimitResult;
  /** buckets held, both tiers */
  readonly size: number;
}

interface Bucket {
  /** fill level in ticks: one token = 60,000 ticks, so refill is `limit` ticks per ms, exactly */
  ticks: number;
  at: number;
}

const TICKS_PER_TOKEN = 60_000;
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

  return {
    take(bucketKey, tier, cost = 1) {
      const t = tier === 'anonymous' ? tiers.anonymous : tiers.keyed;
      const time = now();
      const { limit } = t;
      const capacity = limit * TICKS_PER_TOKEN;
      let bucket = t.buckets.get(bucketKey);
      if (bucket === undefined) {
        bucket = { ticks: capacity, at: time };
      } else {
        t.buckets.delete(bucketKey); // re-inserted below: Map order is the LRU order
        const elapsed = Math.max(0, time - bucket.at); // a clock stepping back refills nothing
        bucket.ticks = Math.min(capacity, bucket.ticks + elapsed * limit);
        bucket.at = time;
      }
      const need = Math.min(limit, Math.max(1, Math.floor(cost))) * TICKS_PER_TOKEN;
      const allowed = bucket.ticks >= need;
      if (allowed) bucket.ticks -= need;
      t.buckets.set(bucketKey, bucket);
      sweep(t.buckets, time);

      const ticksPerSecond = limit * 1000;
      return {
        allowed,
        limit,
        remaining: Math.floor(bucket.ticks / TICKS_PER_TOKEN),
        resetSeconds: Math.ceil((capacity - bucket.ticks) / ticksPerSecond),
        retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((need - bucket.ticks) / ticksPerSecond)),
      };
    },
    get size() {
      return tiers.anonymous.buckets.size + tiers.keyed.buckets.size;
    },
  };

  function sweep(buckets: Map<string, Bucket>, time: number): void {
    while (buckets.size > maxBuckets) buckets.delete(buckets.keys().next().value!);
    // Any bucket untouched for a minute is full again, as good as absent: drop it.
    let n = 0;
    for (const [key, bucket] of buckets) {
      if (n++ === SWEEP_PER_TAKE || time - bucket.at < 60_000) break;
      buckets.delete(key);
    }
  }
}

function tierOf(limit: number): { limit: number; buckets: Map<string, Bucket> } {
  return { limit, buckets: new Map() };
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
export function rateLimitHeaders(result: RateLimitResult): [string, string][] {
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
