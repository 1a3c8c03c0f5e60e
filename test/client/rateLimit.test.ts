// Retries against a real vaultd with a tiny rate limit (config `rate_limits`): 30 requests a
// minute for anonymous callers, so a spent budget answers 429 with `Retry-After: 2`.
import { describe, expect, it } from 'vitest';
import { createClient, VaultdApiError } from 'vaultd/client';
import { useServer } from '../api/server.js';

const ctx = useServer('client-limit', { rate_limits: { anonymous_per_minute: 30, keyed_per_minute: 1_000_000 } });

/** Spend the loopback IP's budget; returns the Retry-After of the first 429. */
async function exhaust(): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${ctx.server.base}/v1/strategies`);
    await res.arrayBuffer();
    if (res.status === 429) return Number(res.headers.get('retry-after'));
  }
  throw new Error('no 429 after 100 requests');
}

describe('client retries against vaultd with a tiny rate limit', () => {
  it('a 429 is retried after Retry-After and the call succeeds', async () => {
    const retryAfter = await exhaust();
    expect(retryAfter).toBe(2);
    const t0 = Date.now();
    const { body, response } = await createClient({ baseUrl: ctx.server.base }).withResponse.strategies();
    const waited = Date.now() - t0;
    expect(body.data.length).toBeGreaterThan(0);
    expect(response.status).toBe(200);
    expect(response.attempts).toBe(2);
    expect(waited).toBeGreaterThanOrEqual(retryAfter * 1000 - 50);
    expect(waited).toBeLessThan(retryAfter * 1000 + 3000);
    expect(response.rateLimit).toEqual({ limit: 30, remaining: 0, reset: expect.any(Number) });
  });

  it('error: with retry off, RATE_LIMITED arrives typed, with Retry-After and details', async () => {
    await exhaust();
    const e = await createClient({ baseUrl: ctx.server.base, retry: false })
      .vaults({ requestId: 'limited-1' })
      .catch((err) => err);
    expect(e).toBeInstanceOf(VaultdApiError);
    expect(e).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      requestId: 'limited-1',
      retryAfterSeconds: 2,
      retryable: true,
      message: 'rate limit of 30 requests per minute exceeded; retry after 2 s',
      details: { retry_after_seconds: 2 },
    });
  });

  it('a Retry-After beyond retry.maxDelayMs fails at once instead of waiting', async () => {
    const retryAfter = await exhaust();
    const t0 = Date.now();
    const e = await createClient({ baseUrl: ctx.server.base, retry: { maxDelayMs: 500 } })
      .tvl()
      .catch((err) => err);
    expect(e).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    // a wait of Retry-After lasts at least that long however fast the machine; one request takes far less
    expect(Date.now() - t0).toBeLessThan(retryAfter * 1000);
  });
});
