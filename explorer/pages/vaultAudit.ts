// The vault page's audit detail (DESIGN §11.2, §11.3): how each APY was computed, from
// `/v1/vaults/{id}/apy` (start and end snapshot, elapsed time, points, method, the reason when
// null), and the data-quality flags of the charted points as shaded stretches over every chart.
// Kept apart from vault.ts, which only wires it in.
import type { VaultdClient } from '../../client/createClient.js';
import type { ApyWindowProvenance, ProvenanceSnapshot, VaultTimeseriesPoint } from '../../client/types.gen.js';
import { el } from '../dom.js';
import { duration, percent, timestamp } from '../format.js';
import { qualityStretches, STRETCH_LABEL, type Stretch } from '../qualityStretches.js';

const REASON: Record<NonNullable<ApyWindowProvenance['reason']>, string> = {
  warming_up: 'warming up: less history than the window',
  non_positive_price: 'the start price is not positive',
};

/** The provenance table of the APYs (the latest, or as of `at`); null when the vault was never read (404). */
export async function apyProvenanceSection(api: VaultdClient, vaultId: string, at?: string): Promise<HTMLElement | null> {
  const answer = await api.apy(vaultId, at === undefined ? {} : { at }).catch(() => null);
  if (answer === null) return null;
  const snap = (s: ProvenanceSnapshot | null, cls: string) =>
    s === null
      ? el('td', { 'data-col': cls }, '—')
      : el(
          'td',
          { 'data-col': cls },
          el('span', { 'data-field': 'timestamp' }, timestamp(s.timestamp)),
          el('span', { class: 'sub' }, 'block ', el('span', { 'data-field': 'block' }, s.block_number === null ? '—' : String(s.block_number))),
          el('span', { class: 'sub' }, 'share price ', el('code', { 'data-field': 'unit_price' }, s.unit_price)),
        );
  const rows = answer.data.windows.map((w) =>
    el(
      'tr',
      { 'data-window': w.window },
      el('th', { scope: 'row' }, w.window),
      el('td', { 'data-col': 'apy', class: 'numeric' }, percent(w.apy)),
      snap(w.start, 'start'),
      snap(w.end, 'end'),
      el('td', { 'data-col': 'elapsed', title: w.elapsed_seconds === null ? '' : `${w.elapsed_seconds} s` }, duration(w.elapsed_seconds)),
      el('td', { 'data-col': 'points', class: 'numeric' }, w.points === null ? '—' : String(w.points)),
      el('td', { 'data-col': 'method' }, w.method),
      el('td', { 'data-col': 'reason' }, w.reason === null ? '—' : REASON[w.reason]),
    ),
  );
  return el(
    'section',
    { id: 'apy-provenance-section', 'aria-labelledby': 'apy-provenance-title' },
    el('h2', { id: 'apy-provenance-title' }, 'How the APYs are computed'),
    el('p', { class: 'muted' }, `As of ${timestamp(answer.data.at)}: APY = (end share price ÷ start share price)^(365 ÷ days) − 1, from the snapshots below.`),
    el(
      'div',
      { class: 'table-wrap' },
      el(
        'table',
        { id: 'apy-provenance', class: 'provenance' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ...['Window', 'APY', 'Start snapshot', 'End snapshot', 'Elapsed', 'Points', 'Method', 'Why null'].map((h) => el('th', { scope: 'col' }, h)),
          ),
        ),
        el('tbody', {}, ...rows),
      ),
    ),
  );
}

/**
 * Shades the stretches of `points` (fetched with include=quality) on every chart drawn in
 * `section`, as positioned boxes over the plot (in percent of its width, so a resize keeps
 * them in place), and says under each chart what the shading means.
 */
export function shadeQuality(section: HTMLElement, points: readonly VaultTimeseriesPoint[]): Stretch[] {
  const xs = points.map((p) => Date.parse(p.timestamp) / 1000);
  // a token without any USD price is said once under the TVL chart already: no band over all of it
  const stretches = qualityStretches(
    xs,
    points.map((p) => p.quality?.flags),
  ).filter((s) => !(s.kind === 'unpriced' && s.first === 0 && s.last === xs.length - 1));
  if (stretches.length === 0 || xs.length < 2) return stretches;
  const x0 = xs[0]!;
  const span = xs.at(-1)! - x0;
  const kinds = [...new Set(stretches.map((s) => s.kind))];
  for (const figure of section.querySelectorAll<HTMLElement>('figure.chart')) {
    const over = figure.querySelector<HTMLElement>('.u-over');
    if (!over) continue;
    const layer = el('div', { class: 'quality-bands', 'aria-hidden': 'true' });
    for (const s of stretches) {
      const band = el('div', {
        class: `quality-band q-${s.kind}`,
        'data-kind': s.kind,
        'data-from': points[s.first]!.timestamp,
        'data-to': points[s.last]!.timestamp,
        title: `${STRETCH_LABEL[s.kind]}: ${timestamp(points[s.first]!.timestamp)} – ${timestamp(points[s.last]!.timestamp)}`,
      });
      band.style.left = `${(((s.from - x0) / span) * 100).toFixed(4)}%`;
      band.style.width = `max(2px, ${(((s.to - s.from) / span) * 100).toFixed(4)}%)`;
      layer.append(band);
    }
    over.append(layer);
    figure.append(
      el(
        'p',
        { class: 'quality-note' },
        'Shaded: ',
        ...kinds.flatMap((k, i) => [i > 0 ? '; ' : '', el('i', { class: `quality-key q-${k}`, 'aria-hidden': 'true' }), STRETCH_LABEL[k]]),
        '.',
      ),
    );
  }
  return stretches;
}
