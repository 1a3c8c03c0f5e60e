// Retries against a real vaultd with a tiny rate limit (config `rate_limits`): 30 requests a
// minute for anonymous callers, so a spent budget answers 429 with `Retry-After` 1 or 2: the
// seconds until the next token, rounded up (a token every 2 s; how much of the current 2 s has
// passed depends on how fast the machine spent the budget).
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
    expect([1, 2]).toContain(retryAfter);
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
    const seconds = e.retryAfterSeconds;
    expect([1, 2]).toContain(seconds);
    expect(e).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      requestId: 'limited-1',
      retryable: true,
      message: `rate limit of 30 requests per minute exceeded; retry after ${seconds} s`,
      details: { retry_after_seconds: seconds },
    });
  });

  it('a Retry-After beyond retry.maxDelayMs fails at once instead of waiting', async () => {
    await exhaust();
    // counted, not timed: a client that waited would ask again after the wait (and be served)
    let requests = 0;
    const e = await createClient({
      baseUrl: ctx.server.base,
      retry: { maxDelayMs: 500 },
      fetch: (url, init) => {
        requests++;
        return globalThis.fetch(url, init);
      },
    })
      .tvl()
      .catch((err) => err);
    expect(e).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(e.retryAfterSeconds * 1000).toBeGreaterThan(500);
    expect(requests).toBe(1);
  });
});
