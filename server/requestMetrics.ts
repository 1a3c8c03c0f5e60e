// Per-request metrics as plain numbers (issue #11: the request path only looks things up):
// counts per (route, status) and a latency histogram per route are kept in arrays and turned
// into Prometheus series when /metrics is scraped, instead of prom-client label lookups and
// observe() on every request. Same names, types, labels and buckets as before.
import type { Registry } from 'prom-client';

export interface RequestMetrics {
  record(route: string, status: number, seconds: number): void;
}

interface RouteStats {
  /** requests by status code (100–599 at index status − 100): an add, not a Map update */
  statuses: Float64Array;
  /** non-cumulative bucket counts; the last slot is +Inf */
  buckets: Float64Array;
  sum: number;
  count: number;
}

export function createRequestMetrics(
  registry: Registry,
  opts: { counter: string; counterHelp: string; histogram: string; histogramHelp: string; buckets: number[] },
): RequestMetrics {
  const bounds = [...opts.buckets].sort((a, b) => a - b);
  const routes = new Map<string, RouteStats>();
  registry.registerMetric({
    name: opts.counter,
    help: opts.counterHelp,
    type: 'counter',
    get: async () => ({
      name: opts.counter,
      help: opts.counterHelp,
      type: 'counter',
      aggregator: 'sum',
      values: [...routes].flatMap(([route, r]) => {
        const out: { labels: { route: string; status: string }; value: number }[] = [];
        r.statuses.forEach((value, i) => {
          if (value > 0) out.push({ labels: { route, status: String(i + 100) }, value });
        });
        return out;
      }),
    }),
    reset: () => routes.clear(),
  } as never);
  registry.registerMetric({
    name: opts.histogram,
    help: opts.histogramHelp,
    type: 'histogram',
    get: async () => ({
      name: opts.histogram,
      help: opts.histogramHelp,
      type: 'histogram',
      aggregator: 'sum',
      values: [...routes].flatMap(([route, r]) => {
        let acc = 0;
        const out: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
        for (let i = 0; i <= bounds.length; i++) {
          acc += r.buckets[i]!;
          out.push({ metricName: `${opts.histogram}_bucket`, labels: { le: i < bounds.length ? bounds[i]! : '+Inf', route }, value: acc });
        }
        out.push({ metricName: `${opts.histogram}_sum`, labels: { route }, value: r.sum });
        out.push({ metricName: `${opts.histogram}_count`, labels: { route }, value: r.count });
        return out;
      }),
    }),
    reset: () => routes.clear(),
  } as never);
  return {
    record(route, status, seconds) {
      let r = routes.get(route);
      if (r === undefined) routes.set(route, (r = { statuses: new Float64Array(500), buckets: new Float64Array(bounds.length + 1), sum: 0, count: 0 }));
      r.statuses[status - 100]!++;
      let i = 0;
      while (i < bounds.length && seconds > bounds[i]!) i++;
      r.buckets[i]!++;
      r.sum += seconds;
      r.count++;
    },
  };
}
