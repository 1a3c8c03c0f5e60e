// A 30-day APY sparkline: an inline SVG polyline (no image fetched, nothing for the CSP to
// refuse) with its first and last values in the accessible name.
import { el } from './dom.js';
import { percent } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';
const W = 96;
const H = 28;

/** `values` are APY fractions, oldest first; nulls are gaps. */
export function sparkline(values: (number | null)[], what: string): Element {
  const known = values.map((v, i) => [i, v] as const).filter((p): p is readonly [number, number] => p[1] !== null);
  if (known.length < 2) return el('span', { class: 'spark-none muted', title: `${what}: not enough history` }, '—');
  const ys = known.map((p) => p[1]);
  const lo = Math.min(...ys);
  const hi = Math.max(...ys);
  const span = hi - lo || Math.abs(hi) || 1;
  const x = (i: number) => ((i / Math.max(1, values.length - 1)) * (W - 2) + 1).toFixed(1);
  const y = (v: number) => (H - 2 - ((v - lo) / span) * (H - 4)).toFixed(1);
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('width', String(W));
  svg.setAttribute('height', String(H));
  svg.setAttribute('class', 'spark');
  svg.setAttribute('role', 'img');
  const first = known[0]![1];
  const last = known.at(-1)![1];
  svg.setAttribute('aria-label', `${what}: ${percent(first)} to ${percent(last)}`);
  const title = document.createElementNS(SVG, 'title');
  title.textContent = `${what}: ${percent(first)} → ${percent(last)} (low ${percent(lo)}, high ${percent(hi)})`;
  const line = document.createElementNS(SVG, 'polyline');
  line.setAttribute('points', known.map(([i, v]) => `${x(i)},${y(v)}`).join(' '));
  line.setAttribute('fill', 'none');
  line.setAttribute('stroke', last >= first ? '#047857' : '#b91c1c');
  line.setAttribute('stroke-width', '1.5');
  line.setAttribute('stroke-linejoin', 'round');
  svg.append(title, line);
  return svg;
}
