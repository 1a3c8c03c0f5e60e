// /health/slo (DESIGN §11.9) on `vaultd serve` over the demo world: the configured objectives
// beside live figures, the requests between two reports counted exactly (4xx are not 5xx: the
// 5xx-free ratio stays 1), the route groups they fell in, and the same figures in /metrics.
// The harness validates every body against /openapi.json.
import { describe, expect, it } from 'vitest';
import { UNKNOWN_WALLET, UNLIMITED, useServer } from './server.js';

const ctx = useServer('slo', { ...UNLIMITED, slo: { availability: 0.995, latency_p99_ms: 80 } });

interface Window {
  requests: number;
  errors_5xx: number;
  non_5xx_ratio: number | null;
  error_budget_left: number;
  burn_rate: number;
  latency_ms: Record<string, { requests: number; p50: number | null; p99: number | null }>;
  chains: { chain_id: number; samples: number; lag_seconds: { p50: number | null; p99: number | null; max: number | null } }[];
}
interface Slo {
  objectives: { freshness_seconds: number; latency_p99_ms: number; availability: number };
  publish_age_seconds: number | null;
  windows: Record<'5m' | '1h' | '24h', Window>;
}

describe('/health/slo', () => {
  it('objectives from the config beside the figures of three windows', async () => {
    const r = await ctx.api.ok<Slo>('/health/slo');
    expect(r.objectives).toEqual({ freshness_seconds: 7200, latency_p99_ms: 80, availability: 0.995 });
    expect(Object.keys(r.windows)).toEqual(['5m', '1h', '24h']);
    expect(r.publish_age_seconds).not.toBeNull();
    // the demo world's chains, each with its lag sampled
    const chains = (await ctx.api.ok<{ chain_id: number }[]>('/health/chains')).map((c) => c.chain_id);
    expect(r.windows['5m'].chains.map((c) => c.chain_id)).toEqual(chains);
    for (const c of r.windows['5m'].chains) {
      expect(c.samples).toBeGreaterThan(0);
      expect(c.lag_seconds.max).not.toBeNull();
      expect(c.lag_seconds.p99!).toBeGreaterThanOrEqual(c.lag_seconds.p50!);
    }
  });

  it('counts exactly the requests answered between two reports; 4xx leave the 5xx-free ratio at 1', async () => {
    const a = await ctx.api.ok<Slo>('/health/slo');
    const paths = [
      ...Array.from({ length: 7 }, () => '/v1/vaults'),
      ...Array.from({ length: 5 }, () => `/v1/users/${UNKNOWN_WALLET}/requests`),
      '/v1/vaults/1:0x0000000000000000000000000000000000000bad', // 404
      '/v1/vaults?limit=0', // 422
      '/v1/tvl',
      '/no/such/route', // 404, group other
    ];
    for (const p of paths) await ctx.api.get(p);
    const b = await ctx.api.ok<Slo>('/health/slo');
    for (const w of ['5m', '1h', '24h'] as const) {
      // the first report itself is counted once it was answered
      expect(b.windows[w].requests - a.windows[w].requests, w).toBe(paths.length + 1);
      expect(b.windows[w].errors_5xx).toBe(a.windows[w].errors_5xx);
    }
    const d = (g: string) => b.windows['5m'].latency_ms[g]!.requests - a.windows['5m'].latency_ms[g]!.requests;
    expect([d('vaults'), d('users'), d('aggregates'), d('other'), d('health')]).toEqual([9, 5, 1, 1, 1]);
    expect(b.windows['5m']).toMatchObject({ errors_5xx: 0, non_5xx_ratio: 1, error_budget_left: 1, burn_rate: 0 });
    expect(b.windows['5m'].latency_ms.vaults!.p99).not.toBeNull();
  });

  it('the same figures as vaultd_slo_* gauges in /metrics', async () => {
    const text = (await ctx.api.get('/metrics')).text;
    const r = await ctx.api.ok<Slo>('/health/slo');
    expect(text).toContain('vaultd_slo_objective{objective="availability"} 0.995');
    expect(text).toContain('vaultd_slo_non_5xx_ratio{window="5m"} 1');
    const n = Number(/vaultd_slo_requests\{window="24h"\} (\d+)/.exec(text)![1]);
    // /metrics was answered after its figures were read, then /health/slo read them again
    expect(r.windows['24h'].requests).toBe(n + 1);
    for (const c of r.windows['5m'].chains) expect(text).toContain(`vaultd_slo_chain_lag_seconds{window="5m",chain_id="${c.chain_id}",stat="max"}`);
  });
});
