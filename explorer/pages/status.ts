// `/status`: the service level (DESIGN §11.9) — the configured objectives beside the server's
// live figures over 5 min, 1 h and 24 h (from /health/slo, through the SDK), each marked met
// or missed, and charts of the 5-minute figures as this page has seen them, refreshed every
// REFRESH_MS (kept in the tab only: at most HISTORY readings).
import type { SloReport, SloWindow } from '../../client/types.gen.js';
import { client } from '../api.js';
import { axisNumber, lineChart } from '../charts.js';
import { el, show } from '../dom.js';
import { duration, UNKNOWN } from '../format.js';

type Slo = SloReport;
type Window = SloWindow;

export const REFRESH_MS = 10_000;
const HISTORY = 360;
const WINDOWS = ['5m', '1h', '24h'] as const;

const ms = (v: number | null) => (v === null ? UNKNOWN : `${Number(v.toPrecision(3))} ms`);
const ratio = (v: number | null) => (v === null ? UNKNOWN : `${Number((v * 100).toFixed(4))} %`);
const seconds = (v: number | null) => (v === null ? UNKNOWN : duration(v));

/** The figure's cell, marked `met` or `missed` against its objective (none without a figure). */
function judged(text: string, met: boolean | null): HTMLElement {
  return el('td', { class: 'num', ...(met === null ? {} : { 'data-met': String(met) }) }, text, met === null ? '' : met ? ' ✓' : ' ✗');
}

function worstP99(w: Window): number | null {
  const all = Object.values(w.latency_ms)
    .map((l) => l.p99)
    .filter((v): v is number => v !== null);
  return all.length === 0 ? null : Math.max(...all);
}

function maxLag(w: Window): number | null {
  const all = w.chains.map((c) => c.lag_seconds.max).filter((v): v is number => v !== null);
  return all.length === 0 ? null : Math.max(...all);
}

function summary(s: Slo): HTMLElement {
  const o = s.objectives;
  const rows = WINDOWS.map((name) => {
    const w = s.windows[name];
    const p99 = worstP99(w);
    const lag = maxLag(w);
    return el(
      'tr',
      { 'data-window': name },
      el('th', { scope: 'row' }, name),
      el('td', { class: 'num' }, String(w.requests)),
      judged(ratio(w.non_5xx_ratio), w.non_5xx_ratio === null ? null : w.non_5xx_ratio >= o.availability),
      el('td', { class: 'num' }, ratio(w.error_budget_left)),
      el('td', { class: 'num' }, Number(w.burn_rate.toFixed(3)).toString()),
      judged(ms(p99), p99 === null ? null : p99 <= o.latency_p99_ms),
      judged(seconds(lag), lag === null ? null : lag <= o.freshness_seconds),
    );
  });
  return el(
    'table',
    { class: 'slo' },
    el('caption', {}, `Objectives: ${ratio(o.availability)} answered without a 5xx, p99 ≤ ${ms(o.latency_p99_ms)}, data lag ≤ ${seconds(o.freshness_seconds)}`),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ...['window', 'requests', 'non-5xx', 'error budget left', 'burn rate', 'worst p99', 'max data lag'].map((h) => el('th', { scope: 'col' }, h)),
      ),
    ),
    el('tbody', {}, ...rows),
  );
}

function groups(w: Window): HTMLElement {
  return el(
    'table',
    { class: 'slo-groups' },
    el('caption', {}, 'Time to build a response, last 5 minutes, by route group'),
    el('thead', {}, el('tr', {}, ...['group', 'requests', 'p50', 'p99'].map((h) => el('th', { scope: 'col' }, h)))),
    el(
      'tbody',
      {},
      ...Object.entries(w.latency_ms).map(([g, l]) =>
        el(
          'tr',
          { 'data-group': g },
          el('th', { scope: 'row' }, g),
          el('td', { class: 'num' }, String(l.requests)),
          el('td', { class: 'num' }, ms(l.p50)),
          el('td', { class: 'num' }, ms(l.p99)),
        ),
      ),
    ),
  );
}

export async function statusPage(main: HTMLElement): Promise<void> {
  const api = client();
  const seen: { t: number; s: Slo }[] = [];
  const render = (s: Slo) => {
    seen.push({ t: Math.floor(Date.now() / 1000), s });
    if (seen.length > HISTORY) seen.shift();
    const xs = seen.map((x) => x.t);
    const w5 = (x: { s: Slo }) => x.s.windows['5m'];
    const box = el('section', { class: 'charts' });
    show(
      main,
      el('h1', {}, 'Service level'),
      el(
        'p',
        { class: 'note' },
        `Published ${seconds(s.publish_age_seconds)} ago. Refreshed every ${REFRESH_MS / 1000} s; charts show what this page has seen.`,
      ),
      summary(s),
      groups(s.windows['5m']),
      box,
    );
    lineChart(box, {
      title: 'p99 time to build a response, 5 min (ms)',
      xs,
      hourly: true,
      axis: axisNumber,
      series: Object.keys(s.windows['5m'].latency_ms)
        .filter((g) => seen.some((x) => w5(x).latency_ms[g as keyof Window['latency_ms']].p99 !== null))
        .map((g) => ({ label: g, values: seen.map((x) => w5(x).latency_ms[g as keyof Window['latency_ms']].p99), format: ms })),
    });
    lineChart(box, {
      title: 'Answered without a 5xx, 5 min (%)',
      xs,
      hourly: true,
      axis: axisNumber,
      series: [
        {
          label: 'non-5xx',
          values: seen.map((x) => (w5(x).non_5xx_ratio === null ? null : w5(x).non_5xx_ratio! * 100)),
          format: (v) => (v === null ? UNKNOWN : `${v} %`),
        },
      ],
    });
    lineChart(box, {
      title: 'Data lag per chain, max over 5 min (s)',
      xs,
      hourly: true,
      axis: axisNumber,
      series: s.windows['5m'].chains.map((c) => ({
        label: `chain ${c.chain_id}`,
        values: seen.map((x) => w5(x).chains.find((d) => d.chain_id === c.chain_id)?.lag_seconds.max ?? null),
        format: seconds,
      })),
    });
    main.dataset.readings = String(seen.length);
  };
  render(await api.slo());
  const timer = setInterval(() => {
    api.slo().then(render, () => undefined);
  }, REFRESH_MS);
  addEventListener('pagehide', () => clearInterval(timer));
}
