// The live service level (DESIGN §11.9): every answer's route group, status and time, and each
// chain's data lag, go into per-minute buckets of a ring of 24 h, so the 5 min / 1 h / 24 h
// figures are sums over the ring's newest slots — bounded memory (a few counters and a
// log-spaced histogram per minute and group), nothing kept per request. Percentiles are the
// upper bound of the histogram bucket they fall in (buckets a factor √2 apart: within 41 %).
import type { Registry } from 'prom-client';

export interface SloObjectives {
  freshness_seconds: number;
  latency_p99_ms: number;
  availability: number;
}

/** The route groups latency is reported by (a route name's first segment, or `other`). */
export const ROUTE_GROUPS = ['health', 'vaults', 'users', 'aggregates', 'prices', 'other'] as const;
export type RouteGroup = (typeof ROUTE_GROUPS)[number];

export const SLO_WINDOWS = [
  ['5m', 5],
  ['1h', 60],
  ['24h', 1440],
] as const;

const SLOTS = 1440;
const G = ROUTE_GROUPS.length;
/** histogram buckets: bucket k holds values ≤ BASE · √2^k (the last one everything above) */
const BUCKETS = 48;
const LATENCY_BASE_MS = 0.01;
const LAG_BASE_S = 1;
const bound = (base: number, k: number) => base * Math.SQRT2 ** k;
/** chain lag is sampled at most this often (milliseconds) */
const LAG_SAMPLE_MS = 10_000;

export function routeGroup(route: string): RouteGroup {
  if (route === 'tvl' || route === 'strategies') return 'aggregates';
  const head = route.split('.', 1)[0]!;
  if (head === 'metrics' || head === 'openapi' || head === 'docs') return 'health';
  return (ROUTE_GROUPS as readonly string[]).includes(head) ? (head as RouteGroup) : 'other';
}

function bucketOf(value: number, base: number): number {
  if (!(value > base)) return 0;
  return Math.min(BUCKETS - 1, Math.ceil(Math.log2(value / base) * 2));
}

/** The value below which `q` of the histogram lies (its bucket's upper bound); null when empty. */
function quantile(hist: Uint32Array, total: number, q: number, base: number): number | null {
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let acc = 0;
  for (let k = 0; k < BUCKETS; k++) {
    acc += hist[k]!;
    if (acc >= rank) return Number(bound(base, k).toPrecision(3));
  }
  return Number(bound(base, BUCKETS - 1).toPrecision(3));
}

interface ChainRing {
  /** lag samples per slot and bucket */
  hist: Uint32Array;
  max: Float64Array;
}

export interface SloWindowFigures {
  requests: number;
  errors_5xx: number;
  /** requests answered without a 5xx over all requests; null without requests */
  non_5xx_ratio: number | null;
  /** 1 − (5xx share / allowed share): 1 untouched, 0 spent, below 0 overspent */
  error_budget_left: number;
  /** the 5xx share over the allowed share: 1 spends the budget exactly over the window */
  burn_rate: number;
  latency_ms: Record<RouteGroup, { requests: number; p50: number | null; p99: number | null }>;
  chains: { chain_id: number; samples: number; lag_seconds: { p50: number | null; p99: number | null; max: number | null } }[];
}

export interface SloReport {
  objectives: SloObjectives;
  /** seconds since the served snapshot was published; null before the first */
  publish_age_seconds: number | null;
  windows: Record<(typeof SLO_WINDOWS)[number][0], SloWindowFigures>;
}

export interface SloMonitor {
  /** one answer: its route name, status and time to build it */
  /** `ms`: when it was answered (ms since the epoch; the clock's now when omitted) */
  record(route: string, status: number, seconds: number, ms?: number): void;
  /** the figures now */
  report(): SloReport;
  /** bytes of the rings (fixed, plus one ring per chain seen): what the figures cost */
  bytes(): number;
}

export interface SloSources {
  objectives: SloObjectives;
  /** each chain's newest indexed block time (Unix seconds, null before the first) */
  chainHeads: () => { chain_id: number; latest_timestamp: number | null }[];
  /** the served snapshot's publish time (Unix seconds), null before the first */
  publishedAt: () => number | null;
  /** milliseconds since the epoch (tests pass their own) */
  now?: () => number;
}

export function createSloMonitor(src: SloSources): SloMonitor {
  const now = src.now ?? Date.now;
  const minuteOf = new Float64Array(SLOTS).fill(-1);
  const count = new Uint32Array(SLOTS * G);
  const errors = new Uint32Array(SLOTS * G);
  const latency = new Uint32Array(SLOTS * G * BUCKETS);
  const chains = new Map<number, ChainRing>();
  const chainMinute = new Float64Array(SLOTS).fill(-1);
  let lastLagSample = Number.NEGATIVE_INFINITY;
  // route name → group (route names are the router's few dozen, plus 'unmatched')
  const groupIndex = new Map<string, number>();

  /** the slot of `minute`, cleared when it last held an older minute */
  function slot(minute: number): number {
    const s = minute % SLOTS;
    if (minuteOf[s] !== minute) {
      minuteOf[s] = minute;
      count.fill(0, s * G, (s + 1) * G);
      errors.fill(0, s * G, (s + 1) * G);
      latency.fill(0, s * G * BUCKETS, (s + 1) * G * BUCKETS);
    }
    return s;
  }

  function chainSlot(minute: number): number {
    const s = minute % SLOTS;
    if (chainMinute[s] !== minute) {
      chainMinute[s] = minute;
      for (const c of chains.values()) {
        c.hist.fill(0, s * BUCKETS, (s + 1) * BUCKETS);
        c.max[s] = Number.NaN;
      }
    }
    return s;
  }

  function sampleLag(ms: number): void {
    if (ms - lastLagSample < LAG_SAMPLE_MS) return;
    lastLagSample = ms;
    const s = chainSlot(Math.floor(ms / 60_000));
    const t = ms / 1000;
    for (const head of src.chainHeads()) {
      if (head.latest_timestamp === null) continue;
      let c = chains.get(head.chain_id);
      if (!c) {
        chains.set(head.chain_id, (c = { hist: new Uint32Array(SLOTS * BUCKETS), max: new Float64Array(SLOTS).fill(Number.NaN) }));
        // slots this chain never saw are empty: only the current minute's is live
      }
      const lag = Math.max(0, t - head.latest_timestamp);
      c.hist[s * BUCKETS + bucketOf(lag, LAG_BASE_S)]!++;
      if (!(c.max[s]! >= lag)) c.max[s] = lag;
    }
  }

  function windowFigures(minutes: number, current: number): SloWindowFigures {
    let requests = 0;
    let bad = 0;
    const perGroup = ROUTE_GROUPS.map(() => ({ n: 0, hist: new Uint32Array(BUCKETS) }));
    for (let m = current - minutes + 1; m <= current; m++) {
      if (m < 0) continue;
      const s = m % SLOTS;
      if (minuteOf[s] !== m) continue;
      for (let g = 0; g < G; g++) {
        const n = count[s * G + g]!;
        if (n === 0) continue;
        requests += n;
        bad += errors[s * G + g]!;
        perGroup[g]!.n += n;
        const h = perGroup[g]!.hist;
        const at = (s * G + g) * BUCKETS;
        for (let k = 0; k < BUCKETS; k++) h[k]! += latency[at + k]!;
      }
    }
    const allowed = 1 - src.objectives.availability;
    const share = requests === 0 ? 0 : bad / requests;
    const latencyMs = {} as SloWindowFigures['latency_ms'];
    ROUTE_GROUPS.forEach((name, g) => {
      const { n, hist } = perGroup[g]!;
      latencyMs[name] = { requests: n, p50: quantile(hist, n, 0.5, LATENCY_BASE_MS), p99: quantile(hist, n, 0.99, LATENCY_BASE_MS) };
    });
    const chainFigures = [...chains]
      .sort(([a], [b]) => a - b)
      .map(([chain_id, c]) => {
        const hist = new Uint32Array(BUCKETS);
        let n = 0;
        let max: number | null = null;
        for (let m = current - minutes + 1; m <= current; m++) {
          if (m < 0) continue;
          const s = m % SLOTS;
          if (chainMinute[s] !== m) continue;
          for (let k = 0; k < BUCKETS; k++) {
            hist[k]! += c.hist[s * BUCKETS + k]!;
            n += c.hist[s * BUCKETS + k]!;
          }
          const x = c.max[s]!;
          if (!Number.isNaN(x) && (max === null || x > max)) max = x;
        }
        return {
          chain_id,
          samples: n,
          lag_seconds: { p50: quantile(hist, n, 0.5, LAG_BASE_S), p99: quantile(hist, n, 0.99, LAG_BASE_S), max: max === null ? null : Math.round(max) },
        };
      });
    return {
      requests,
      errors_5xx: bad,
      non_5xx_ratio: requests === 0 ? null : (requests - bad) / requests,
      error_budget_left: 1 - share / allowed,
      burn_rate: share / allowed,
      latency_ms: latencyMs,
      chains: chainFigures,
    };
  }

  return {
    record(route, status, seconds, ms = now()) {
      const s = slot(Math.floor(ms / 60_000));
      let g = groupIndex.get(route);
      if (g === undefined) groupIndex.set(route, (g = ROUTE_GROUPS.indexOf(routeGroup(route))));
      count[s * G + g]!++;
      if (status >= 500) errors[s * G + g]!++;
      latency[(s * G + g) * BUCKETS + bucketOf(seconds * 1000, LATENCY_BASE_MS)]!++;
      sampleLag(ms);
    },
    bytes() {
      let n = minuteOf.byteLength + count.byteLength + errors.byteLength + latency.byteLength + chainMinute.byteLength;
      for (const c of chains.values()) n += c.hist.byteLength + c.max.byteLength;
      return n;
    },
    report() {
      const ms = now();
      sampleLag(ms);
      const current = Math.floor(ms / 60_000);
      const published = src.publishedAt();
      const windows = {} as SloReport['windows'];
      for (const [name, minutes] of SLO_WINDOWS) windows[name] = windowFigures(minutes, current);
      return {
        objectives: src.objectives,
        publish_age_seconds: published === null ? null : Math.max(0, Math.round(ms / 1000 - published)),
        windows,
      };
    },
  };
}

/** The same figures as Prometheus gauges, computed when /metrics is scraped (registered once per registry). */
export function registerSloMetrics(registry: Registry, monitor: SloMonitor): void {
  const gauge = (name: string, help: string, values: (r: SloReport) => { labels: Record<string, string | number>; value: number }[]) => {
    if (registry.getSingleMetric(name)) registry.removeSingleMetric(name);
    registry.registerMetric({
      name,
      help,
      type: 'gauge',
      get: async () => ({ name, help, type: 'gauge', aggregator: 'sum', values: values(monitor.report()) }),
      reset: () => undefined,
    } as never);
  };
  const each = <T>(r: SloReport, f: (window: string, w: SloWindowFigures) => T[]) => Object.entries(r.windows).flatMap(([k, w]) => f(k, w));
  gauge('vaultd_slo_objective', 'Configured service level objectives (slo.*)', (r) =>
    Object.entries(r.objectives).map(([objective, value]) => ({ labels: { objective }, value })),
  );
  gauge('vaultd_slo_publish_age_seconds', 'Seconds since the served snapshot was published', (r) =>
    r.publish_age_seconds === null ? [] : [{ labels: {}, value: r.publish_age_seconds }],
  );
  gauge('vaultd_slo_requests', 'Requests answered in the window', (r) => each(r, (window, w) => [{ labels: { window }, value: w.requests }]));
  gauge('vaultd_slo_non_5xx_ratio', 'Share of requests answered without a 5xx in the window', (r) =>
    each(r, (window, w) => (w.non_5xx_ratio === null ? [] : [{ labels: { window }, value: w.non_5xx_ratio }])),
  );
  gauge('vaultd_slo_error_budget_left', 'Error budget left over the window (1 untouched, 0 spent)', (r) =>
    each(r, (window, w) => [{ labels: { window }, value: w.error_budget_left }]),
  );
  gauge('vaultd_slo_burn_rate', 'Error budget burn rate over the window', (r) => each(r, (window, w) => [{ labels: { window }, value: w.burn_rate }]));
  gauge('vaultd_slo_latency_ms', 'Time to build a response by route group (histogram bucket upper bound)', (r) =>
    each(r, (window, w) =>
      Object.entries(w.latency_ms).flatMap(([group, l]) =>
        (['p50', 'p99'] as const).flatMap((quantile) => (l[quantile] === null ? [] : [{ labels: { window, group, quantile }, value: l[quantile]! }])),
      ),
    ),
  );
  gauge('vaultd_slo_chain_lag_seconds', 'Data lag per chain: now minus the newest indexed block time', (r) =>
    each(r, (window, w) =>
      w.chains.flatMap((c) =>
        (['p50', 'p99', 'max'] as const).flatMap((stat) =>
          c.lag_seconds[stat] === null ? [] : [{ labels: { window, chain_id: c.chain_id, stat }, value: c.lag_seconds[stat]! }],
        ),
      ),
    ),
  );
}
