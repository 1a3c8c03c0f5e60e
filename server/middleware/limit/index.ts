// limit: a token bucket per key, or per IP for anonymous callers and preflights (DESIGN §5.5),
// weighted by what a request costs. Unknown paths outside /v1 spend from the anonymous budget
// too (chargeJunk): no free junk.
import { Counter } from 'prom-client';
import type { Common } from '../../../common/common.js';
import { VaultdError } from '../../../common/errors.js';
import { type Exchange, refusedOnRoute, type Step } from '../../exchange.js';
import { createRateLimiter } from '../../rateLimit.js';

/**
 * Tokens a request spends: a position timeseries is the dearest read (a replay of the wallet's
 * rows, on the pool when its blocks are not cached), so it costs what ten page lookups do —
 * within its budget one credential cannot fill the pool (DESIGN §5.5's buckets, weighted).
 */
export const POSITION_SERIES_COST = 10;
const POSITION_SERIES = /^\/v1\/users\/[^/]+\/positions\/[^/]+\/timeseries$/;
export function costOf(path: string): number {
  return path.endsWith('timeseries') && POSITION_SERIES.test(path) ? POSITION_SERIES_COST : 1;
}

export interface Limit {
  step: Step;
  /** spend one anonymous token for a request the pipeline refuses outside /v1 (404, 414) */
  chargeJunk(x: Exchange): void;
}

export function createLimit(common: Common, clock: { ms: number }): Limit {
  const { rate_limits } = common.config;
  const limiter = createRateLimiter({
    anonymousPerMinute: rate_limits.anonymous_per_minute,
    keyedPerMinute: rate_limits.keyed_per_minute,
    now: () => clock.ms,
  });
  const rejected = new Counter({
    name: 'vaultd_rate_limit_rejections_total',
    help: 'Requests refused with 429, by tier',
    labelNames: ['tier'],
    registers: [common.metrics],
  });

  /**
   * Spend from a bucket. Under /v1 every answer carries the values (DESIGN §5.5); elsewhere
   * only a 429 does.
   */
  function spend(x: Exchange, bucket: string, tier: 'anonymous' | 'keyed', cost: number): void {
    const limit = limiter.take(bucket, tier, cost);
    if (x.isV1 || !limit.allowed) {
      x.rateLimit = limit.limit;
      x.rateRemaining = limit.remaining;
      x.rateReset = limit.resetSeconds;
    }
    if (!limit.allowed) {
      x.retryAfter = limit.retryAfterSeconds;
      rejected.inc({ tier });
      refusedOnRoute(x);
      throw new VaultdError('RATE_LIMITED', `rate limit of ${limit.limit} requests per minute exceeded; retry after ${limit.retryAfterSeconds} s`, {
        details: { retry_after_seconds: limit.retryAfterSeconds },
      });
    }
  }

  return {
    step: (x) => {
      if (!x.isV1) return;
      // the tiers keep separate buckets: an IP and a key id never share one
      const tier = x.who.kind === 'key' ? 'keyed' : 'anonymous';
      spend(x, x.who.kind === 'key' ? x.who.id : x.req.ip, tier, x.preflight ? 1 : costOf(x.req.path));
    },
    chargeJunk: (x) => spend(x, x.req.ip, 'anonymous', 1),
  };
}
