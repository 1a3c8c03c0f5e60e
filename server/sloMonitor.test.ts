// The live service level figures (DESIGN §11.9) on a clock of the test's own: exact counts and
// 5xx-free ratios per window, minutes leaving each window as the clock passes, latency
// percentiles per route group, chain lag, and the Prometheus gauges.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createSloMonitor, registerSloMetrics, routeGroup } from './sloMonitor.js';

const OBJECTIVES = { freshness_seconds: 7200, latency_p99_ms: 50, availability: 0.99 };
const T0 = Date.parse('2026-06-01T00:00:00Z');
const MIN = 60_000;

function monitor(heads: { chain_id: number; latest_timestamp: number | null }[] = []) {
  const clock = { ms: T0 };
  const m = createSloMonitor({ objectives: OBJECTIVES, chainHeads: () => heads, publishedAt: () => T0 / 1000 - 30, now: () => clock.ms });
  return { m, clock };
}

describe('sloMonitor', () => {
  it('route groups', () => {
    expect(['health', 'health.slo', 'metrics', 'openapi', 'docs'].map(routeGroup)).toEqual(Array(5).fill('health'));
    expect(['vaults.list', 'users.requests', 'tvl', 'strategies', 'prices.timeseries', 'unmatched'].map(routeGroup)).toEqual([
      'vaults',
      'users',
      'aggregates',
      'aggregates',
      'prices',
      'other',
    ]);
  });

  it('counts every answer and its 5xx exactly per window; minutes leave the window as the clock passes', () => {
    const { m, clock } = monitor();
    // 40 minutes ago: 100 requests, 4 of them 5xx; now: 300 requests, 1 a 503
    clock.ms = T0 - 40 * MIN;
    for (let i = 0; i < 100; i++) m.record('vaults.list', i < 4 ? 500 : 200, 0.001);
    clock.ms = T0;
    for (let i = 0; i < 300; i++) m.record('users.activity', i === 0 ? 503 : i % 2 ? 404 : 200, 0.002);
    const r = m.report();
    expect(r.objectives).toEqual(OBJECTIVES);
    expect(r.publish_age_seconds).toBe(30);
    expect(r.windows['5m']).toMatchObject({ requests: 300, errors_5xx: 1, non_5xx_ratio: 299 / 300 });
    expect(r.windows['1h']).toMatchObject({ requests: 400, errors_5xx: 5, non_5xx_ratio: 395 / 400 });
    expect(r.windows['24h']).toMatchObject({ requests: 400, errors_5xx: 5 });
    // budget 1 %: 5/400 = 1.25 % burns it 1.25 times over
    expect(r.windows['1h'].burn_rate).toBeCloseTo(1.25, 12);
    expect(r.windows['1h'].error_budget_left).toBeCloseTo(-0.25, 12);
    expect(r.windows['5m'].latency_ms.users.requests).toBe(300);
    expect(r.windows['1h'].latency_ms.vaults.requests).toBe(100);
    // 25 h later nothing is left in any window; a minute reused by the ring starts empty
    clock.ms = T0 + 25 * 60 * MIN;
    m.record('health', 200, 0.0001);
    const later = m.report();
    expect(later.windows['24h']).toMatchObject({ requests: 1, errors_5xx: 0, non_5xx_ratio: 1, burn_rate: 0, error_budget_left: 1 });
    clock.ms = T0 + 25 * 60 * MIN + 24 * 60 * MIN;
    expect(m.report().windows['24h']).toMatchObject({ requests: 0, non_5xx_ratio: null, error_budget_left: 1 });
  });

  it('latency p50/p99 per group: the upper bound of the bucket the rank falls in', () => {
    const { m } = monitor();
    for (let i = 0; i < 98; i++) m.record('prices', 200, 0.0005); // 0.5 ms
    for (let i = 0; i < 2; i++) m.record('prices', 200, 0.04); // 40 ms
    const l = m.report().windows['5m'].latency_ms.prices;
    expect(l.requests).toBe(100);
    expect(l.p50).toBeGreaterThanOrEqual(0.5);
    expect(l.p50).toBeLessThan(0.5 * Math.SQRT2);
    expect(l.p99).toBeGreaterThanOrEqual(40);
    expect(l.p99).toBeLessThan(40 * Math.SQRT2);
    expect(m.report().windows['5m'].latency_ms.vaults).toEqual({ requests: 0, p50: null, p99: null });
  });

  it('chain lag: sampled at most every 10 s, max exact, chains without data left out', () => {
    const heads = [
      { chain_id: 8453, latest_timestamp: T0 / 1000 - 100 },
      { chain_id: 1, latest_timestamp: T0 / 1000 - 20 },
      { chain_id: 5, latest_timestamp: null },
    ];
    const { m, clock } = monitor(heads);
    m.report();
    clock.ms += 5_000;
    m.report(); // within 10 s: no sample
    clock.ms += 6_000;
    heads[1]!.latest_timestamp = T0 / 1000 - 300;
    const r = m.report().windows['5m'];
    expect(r.chains.map((c) => [c.chain_id, c.samples])).toEqual([
      [1, 2],
      [8453, 2],
    ]);
    expect(r.chains[0]!.lag_seconds.max).toBe(311);
    expect(r.chains[1]!.lag_seconds.max).toBe(111);
    expect(r.chains[1]!.lag_seconds.p50).toBeGreaterThanOrEqual(100);
  });

  it('memory is bounded: a million answers allocate nothing per answer', () => {
    const { m, clock } = monitor();
    const before = m.bytes();
    for (let i = 0; i < 1_000_000; i++) {
      if (i % 10_000 === 0) clock.ms += MIN;
      m.record('vaults.get', 200, 0.0001);
    }
    const r = m.report();
    expect(r.windows['24h'].requests).toBe(1_000_000);
    expect(r.windows['5m'].requests).toBe(50_000);
    // no per-request storage: the rings are what they were, under 4 MiB
    expect(m.bytes()).toBe(before);
    expect(before).toBeLessThan(4 * 1024 * 1024);
  });

  it('the same figures as gauges in /metrics', async () => {
    const { m } = monitor([{ chain_id: 1, latest_timestamp: T0 / 1000 - 42 }]);
    for (let i = 0; i < 10; i++) m.record('tvl', i === 0 ? 500 : 200, 0.001);
    const registry = new Registry();
    registerSloMetrics(registry, m);
    registerSloMetrics(registry, m); // a second handler on the same registry replaces, never throws
    const text = await registry.metrics();
    expect(text).toContain('vaultd_slo_objective{objective="availability"} 0.99');
    expect(text).toContain('vaultd_slo_requests{window="5m"} 10');
    expect(text).toContain('vaultd_slo_non_5xx_ratio{window="1h"} 0.9');
    expect(text).toMatch(/vaultd_slo_burn_rate\{window="24h"\} (10|9\.9{6,}\d*|10\.0{6,}\d*)\n/);
    expect(text).toContain('vaultd_slo_publish_age_seconds 30');
    expect(text).toContain('vaultd_slo_chain_lag_seconds{window="5m",chain_id="1",stat="max"} 42');
    expect(text).toMatch(/vaultd_slo_latency_ms\{window="5m",group="aggregates",quantile="p99"\} [\d.]+/);
  });
});
