import { describe, expect, it } from 'vitest';
import { createCommon } from '../../../common/common.js';
import { loadConfig } from '../../../common/config.js';
import { VAULT_TYPES } from '../../../families/index.js';
import type { VaultdError } from '../../../common/errors.js';
import { createLogger } from '../../../common/logger.js';
import { exchangeOf } from '../../../test/helpers/exchange.js';
import { costOf, createLimit, POSITION_SERIES_COST } from './index.js';

const common = () => {
  const c = createCommon(loadConfig(VAULT_TYPES, {}, {}), { logger: createLogger('silent') });
  return { ...c, config: { ...c.config, rate_limits: { anonymous_per_minute: 20, keyed_per_minute: 600 } } };
};

describe('limit step', () => {
  it('a position timeseries costs POSITION_SERIES_COST tokens; every other path one', () => {
    expect(costOf('/v1/users/0x0000000000000000000000000000000000000001/positions/1:0x0000000000000000000000000000000000000002/timeseries')).toBe(
      POSITION_SERIES_COST,
    );
    expect(costOf('/v1/vaults/1:0x0000000000000000000000000000000000000002/timeseries')).toBe(1);
    expect(costOf('/v1/vaults')).toBe(1);
  });

  it('spends per IP under /v1 and sets the RateLimit values; past the budget a 429 with Retry-After', () => {
    const clock = { ms: Date.now() };
    const limit = createLimit(common(), clock);
    const seen: number[] = [];
    let refused: VaultdError | null = null;
    for (let i = 0; i < 25 && refused === null; i++) {
      const x = exchangeOf();
      try {
        limit.step(x);
        seen.push(x.rateRemaining);
      } catch (e) {
        refused = e as VaultdError;
        expect(x.retryAfter).toBeGreaterThan(0);
      }
    }
    expect(seen).toHaveLength(20);
    expect(seen[0]).toBe(19);
    expect(seen.at(-1)).toBe(0);
    expect(refused?.code).toBe('RATE_LIMITED');
    // another IP has its own bucket; keys and IPs never share one
    const other = exchangeOf({ ip: '10.0.0.9' });
    limit.step(other);
    expect(other.rateRemaining).toBe(19);
  });

  it('outside /v1 nothing is spent by the step; junk is charged to the anonymous bucket', () => {
    const limit = createLimit(common(), { ms: Date.now() });
    const x = exchangeOf({ path: '/nope' });
    limit.step(x);
    expect(x.rateLimit).toBe(0);
    limit.chargeJunk(x);
    const v1 = exchangeOf();
    limit.step(v1);
    expect(v1.rateRemaining).toBe(18);
  });
});
