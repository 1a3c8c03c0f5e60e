// The HTTP bench's table: each vaultd figure beside its baseline as a ratio, against the
// DESIGN §8 targets, then every target's raw figures (the rows the README table is made from).
import type { FixedRateSummary, WrkRun } from './wrk.js';

export const TARGETS = {
  /** vaultd ≥ 90 % of bare uWS on req/s and on requests per CPU second */
  of_bare_uws: 0.9,
  /** vaultd CPU per request ≤ 1.2 × nginx's */
  cpu_over_nginx: 1.2,
  /** vaultd req/s ≥ 2 × Fastify's */
  over_fastify: 2,
  p99_ms: 5,
  timeseries_req_per_s: 20_000,
  /** issue #34: an as_of answer ≥ 0.5 × the latest snapshot's req/s on the same route */
  as_of_of_latest: 0.5,
  /** issue #11: spawn → first 200 on the demo world */
  cold_start_ms: 1000,
} as const;

export interface CaseResult {
  path: string;
  saturation: WrkRun;
  fixed_rate?: FixedRateSummary;
}

type Row = Record<string, string | number | boolean | null>;

export function compare(
  runs: Record<string, CaseResult>,
  cold: { median: number },
  rss: Record<string, { rss_mib: number } | null>,
  extra: { restart?: { median: number }; readers?: { readers_1: WrkRun; readers_3: WrkRun } | null } = {},
): { table: Row[]; summary: Record<string, unknown> } {
  const rps = (id: string) => runs[id]?.saturation.req_per_s ?? null;
  const cpu = (id: string) => runs[id]?.fixed_rate?.server_cpu_us_per_req ?? runs[id]?.saturation.server_cpu_us_per_req ?? null;
  const p99 = (id: string) => runs[id]?.saturation.latency_ms.p99 ?? null;
  const at = (id: string) => (runs[id]?.fixed_rate ? ` @${runs[id]!.fixed_rate!.offered_req_per_s} req/s` : '');
  const ratio = (a: number | null, b: number | null) => (a !== null && b !== null && b > 0 ? Math.round((a / b) * 1000) / 1000 : null);
  const ge = (x: number | null, t: number) => (x === null ? null : x >= t);
  const le = (x: number | null, t: number) => (x === null ? null : x <= t);
  const row = (figure: string, value: number | null, baseline: number | null, target: string, met: boolean | null, r = ratio(value, baseline)): Row => ({
    figure,
    value,
    baseline,
    ratio: r,
    target,
    met,
  });
  const V = 'vaultd.page_1kb';
  const B = 'vaultd.page_br';
  const N = 'vaultd.not_modified_304';
  const T = 'vaultd.timeseries_1000h';
  const TR = 'vaultd.timeseries_1000h_random';
  const TI = 'vaultd.timeseries_1000h_identity';
  const cmp = (figure: string, a: number | null, b: number | null, target: string, ok: (r: number | null) => boolean | null) =>
    row(figure, a, b, target, ok(ratio(a, b)));
  const comparisons: Row[] = [
    cmp('1 KB page req/s: vaultd / bare uWS', rps(V), rps('uws.page_1kb'), '≥ 0.90', (r) => ge(r, TARGETS.of_bare_uws)),
    cmp(`1 KB page CPU µs/req${at(V)}: vaultd / bare uWS`, cpu(V), cpu('uws.page_1kb'), '≤ 1.11 (= bare ≥ 90 %)', (r) => le(r, 1 / TARGETS.of_bare_uws)),
    cmp(`1 KB page CPU µs/req${at(V)}: vaultd / nginx`, cpu(V), cpu('nginx.page_1kb'), '≤ 1.20', (r) => le(r, TARGETS.cpu_over_nginx)),
    cmp('1 KB page req/s: vaultd / Fastify', rps(V), rps('fastify.page_1kb'), '≥ 2.00', (r) => ge(r, TARGETS.over_fastify)),
    row('1 KB page p99 ms at saturation: vaultd (beside bare uWS)', p99(V), p99('uws.page_1kb'), '≤ 5 ms', le(p99(V), TARGETS.p99_ms)),
    cmp('1 KB page req/s: vaultd / nginx', rps(V), rps('nginx.page_1kb'), '—', () => null),
    cmp('1 KB page req/s: vaultd / node:http', rps(V), rps('node_http.page_1kb'), '—', () => null),
    cmp(`1 KB page CPU µs/req${at(V)}: vaultd / Fastify`, cpu(V), cpu('fastify.page_1kb'), '—', () => null),
    cmp(`1 KB page CPU µs/req${at(V)}: vaultd / node:http`, cpu(V), cpu('node_http.page_1kb'), '—', () => null),
    cmp('brotli page req/s: vaultd / bare uWS', rps(B), rps('uws.page_br'), '≥ 0.90', (r) => ge(r, TARGETS.of_bare_uws)),
    cmp(`brotli page CPU µs/req${at(B)}: vaultd / bare uWS`, cpu(B), cpu('uws.page_br'), '≤ 1.11', (r) => le(r, 1 / TARGETS.of_bare_uws)),
    cmp(`brotli page CPU µs/req${at(B)}: vaultd / nginx`, cpu(B), cpu('nginx.page_br'), '≤ 1.20', (r) => le(r, TARGETS.cpu_over_nginx)),
    row('brotli page p99 ms at saturation: vaultd (beside bare uWS)', p99(B), p99('uws.page_br'), '≤ 5 ms', le(p99(B), TARGETS.p99_ms)),
    cmp('304 req/s: vaultd (beside bare uWS 1 KB 200)', rps(N), rps('uws.page_1kb'), '—', () => null),
    cmp(`304 CPU µs/req${at(N)}: vaultd (beside bare uWS 1 KB 200)`, cpu(N), cpu('uws.page_1kb'), '—', () => null),
    row('304 p99 ms at saturation: vaultd', p99(N), null, '≤ 5 ms', le(p99(N), TARGETS.p99_ms)),
    row(
      'timeseries 1,000 hourly points, a random window per request (uncached), gzip, req/s: vaultd (beside bare uWS sending one window, same size)',
      rps(TR),
      rps('uws.timeseries_1000h'),
      '≥ 20000',
      ge(rps(TR), TARGETS.timeseries_req_per_s),
    ),
    row('timeseries 1,000 hourly points, random windows, gzip, CPU µs/req (saturation run; beside bare uWS)', cpu(TR), cpu('uws.timeseries_1000h'), '—', null),
    row(
      'timeseries 1,000 hourly points, random windows, gzip, p99 ms at saturation',
      p99(TR),
      p99('uws.timeseries_1000h'),
      '≤ 5 ms',
      le(p99(TR), TARGETS.p99_ms),
    ),
    cmp(
      'timeseries 1,000 hourly points, one window repeated, gzip, req/s: vaultd / bare uWS (same bytes)',
      rps(T),
      rps('uws.timeseries_1000h'),
      '—',
      () => null,
    ),
    cmp(
      'timeseries 1,000 hourly points, one window repeated, gzip, req/s: vaultd / nginx (same bytes)',
      rps(T),
      rps('nginx.timeseries_1000h'),
      '—',
      () => null,
    ),
    row('timeseries 1,000 hourly points, one window repeated, gzip, CPU µs/req; p99 ms', cpu(T), p99(T), '—', null, null),
    row('timeseries 1,000 hourly points, identity, req/s', rps(TI), null, '—', null),
    row('timeseries 1,000 hourly points, identity, CPU µs/req; p99 ms (as baseline)', cpu(TI), p99(TI), '—', null, null),
    row('cold start ms, recompute (spawn → first 200 on /v1/vaults; median of 3)', cold.median, null, '≤ 1000', le(cold.median, TARGETS.cold_start_ms)),
    row(
      'restart ms, saved snapshot (spawn → first 200; median of 3)',
      extra.restart?.median ?? null,
      cold.median,
      '≤ 1000',
      extra.restart ? le(extra.restart.median, TARGETS.cold_start_ms) : null,
    ),
    cmp(
      '1 KB page req/s through nginx: 3 snapshot readers / 1 reader',
      extra.readers?.readers_3.req_per_s ?? null,
      extra.readers?.readers_1.req_per_s ?? null,
      '— (2 cores: wrk on one)',
      () => null,
    ),
    row(
      '1 KB page p99 ms through nginx, 3 readers',
      extra.readers?.readers_3.latency_ms.p99 ?? null,
      extra.readers?.readers_1.latency_ms.p99 ?? null,
      '—',
      null,
    ),
    row('vaultd RSS MiB after the run (demo world)', rss.vaultd_demo?.rss_mib ?? null, null, '—', null),
    ...(['vault_detail', 'positions'] as const).flatMap((route) => {
      const what = route === 'vault_detail' ? 'vault detail, a random vault' : 'positions, a random wallet';
      const latest = `vaultd.${route}_latest`;
      const random = `vaultd.${route}_as_of_random`;
      const monthEnd = `vaultd.${route}_as_of_month_end`;
      return [
        cmp(`${what}, req/s: as_of a random past hour / latest snapshot`, rps(random), rps(latest), '≥ 0.50', (r) => ge(r, TARGETS.as_of_of_latest)),
        row(`${what}, p99 ms at saturation: as_of a random past hour (beside latest)`, p99(random), p99(latest), '—', null, null),
        cmp(`${what}, req/s: as_of a month end / latest snapshot`, rps(monthEnd), rps(latest), '—', () => null),
        row(`${what}, p99 ms at saturation: as_of a month end (beside latest)`, p99(monthEnd), p99(latest), '—', null, null),
      ];
    }),
  ];
  const table = [...comparisons];
  for (const [id, r] of Object.entries(runs)) {
    const f = r.fixed_rate;
    table.push({
      figure: `${id}: req/s sat | CPU µs/req sat | CPU µs/req fixed (@ reached) | p99 ms sat | p99 ms fixed | server core share sat`,
      value: r.saturation.req_per_s,
      baseline: null,
      ratio: null,
      target: [
        r.saturation.server_cpu_us_per_req,
        f ? `${f.server_cpu_us_per_req} (@${f.req_per_s})` : '—',
        r.saturation.latency_ms.p99,
        f ? f.p99_ms : '—',
        r.saturation.server_cpu_util,
      ].join(' | '),
      met: null,
    });
  }
  const summary = Object.fromEntries(
    comparisons.map((r) => [r.figure as string, { value: r.value, baseline: r.baseline, ratio: r.ratio, target: r.target, met: r.met }]),
  );
  return { table, summary };
}
