// Line charts with uPlot (canvas; thousands of points without lag). The legend is the
// explorer's own, above the plot: it shows the latest values until the pointer is on the plot
// and goes back to them when it leaves, so nothing reads "--" as if data were missing. Axes
// use the page's number format; times are UTC like every other time on the pages.
import uPlot from 'uplot';
import { el } from './dom.js';
import { day, timestamp, UNKNOWN, usdCompactNumber } from './format.js';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  /** a value as the legend shows it */
  format: (v: number | null) => string;
}

export interface ChartOptions {
  title: string;
  /** Unix seconds */
  xs: number[];
  series: ChartSeries[];
  /** the y axis' tick labels */
  axis: (v: number) => string;
  /** notes under the plot (a missing USD price, a window still warming up) */
  notes?: string[];
  /** hour ticks show a time; coarser grids show dates */
  hourly?: boolean;
}

const COLORS = ['#1d4ed8', '#b91c1c', '#047857', '#7c3aed'];

/** The last index where the series has a value; -1 when it has none. */
function lastIndex(values: (number | null)[]): number {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null && values[i] !== undefined) return i;
  return -1;
}

export interface Chart {
  figure: HTMLElement;
  plot: uPlot | null;
}

export function lineChart(target: HTMLElement, o: ChartOptions): Chart {
  const legend = el('div', { class: 'legend', 'aria-live': 'off' });
  const figure = el('figure', { class: 'chart', 'data-title': o.title, 'data-points': String(o.xs.length) }, el('figcaption', {}, o.title), legend);
  target.append(figure);
  const plotBox = el('div', { class: 'plot' });
  figure.append(plotBox);
  for (const n of o.notes ?? []) figure.append(el('p', { class: 'note' }, n));

  // the legend at data index `idx` per series (null: each series' latest value)
  const items = o.series.map((s, i) => {
    const value = el('b', {});
    const at = el('span', { class: 'legend-at' });
    const item = el(
      'span',
      { class: 'legend-item', 'data-series': s.label },
      el('i', { class: `swatch s${i}`, 'aria-hidden': 'true' }),
      `${s.label} `,
      value,
      at,
    );
    legend.append(item);
    return { value, at };
  });
  const setLegend = (idx: number | null) => {
    o.series.forEach((s, i) => {
      const k = idx ?? lastIndex(s.values);
      const v = k >= 0 ? (s.values[k] ?? null) : null;
      items[i]!.value.textContent = s.format(v);
      items[i]!.at.textContent = k >= 0 && o.xs[k] !== undefined ? ` ${idx === null ? 'latest, ' : ''}${o.hourly ? timestamp(o.xs[k]!) : day(o.xs[k]!)}` : '';
    });
    legend.dataset.state = idx === null ? 'latest' : 'cursor';
  };
  setLegend(null);

  if (o.xs.length === 0 || o.series.every((s) => s.values.every((v) => v === null))) {
    plotBox.append(el('p', { class: 'empty' }, 'No values in this window.'));
    return { figure, plot: null };
  }
  const width = () => Math.max(260, Math.min(1040, plotBox.clientWidth || target.clientWidth || 600));
  const plot = new uPlot(
    {
      width: width(),
      height: 220,
      legend: { show: false },
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      cursor: { drag: { x: false, y: false } },
      series: [{}, ...o.series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length]!, width: 1.5, spanGaps: false }))],
      axes: [
        { stroke: '#374151', grid: { stroke: '#e5e7eb' } },
        { stroke: '#374151', grid: { stroke: '#e5e7eb' }, size: 64, values: (_u, ticks) => ticks.map((t) => o.axis(t)) },
      ],
      hooks: { setCursor: [(u) => setLegend(u.cursor.idx ?? null)] },
    },
    [o.xs, ...o.series.map((s) => s.values)] as uPlot.AlignedData,
    plotBox,
  );
  // follow the layout (phones turning, a window resized)
  new ResizeObserver(() => {
    const w = width();
    if (Math.abs(w - plot.width) > 4) plot.setSize({ width: w, height: 220 });
  }).observe(plotBox);
  return { figure, plot };
}

/** An axis label of a percent value: 5 → "5 %", 5.25 → "5.25 %". */
export function axisPercent(v: number): string {
  return `${Number(v.toFixed(2))} %`;
}

/** A plain number on an axis: compact from a thousand up (17.02M), else as it is (1.015). */
export function axisNumber(v: number): string {
  if (!Number.isFinite(v)) return UNKNOWN;
  if (Math.abs(v) >= 1000) return axisUsd(v).replace('$', '');
  return String(Number(v.toPrecision(6)));
}

/** A USD axis label: compact, trailing zeros dropped ($50K, $1.5M, $0). */
export function axisUsd(v: number): string {
  return usdCompactNumber(v).replace(/\.?0+(?=[KMBT]?$)/, '');
}
