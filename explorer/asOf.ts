// The "as of" picker of the vault and wallet pages (DESIGN §11.6): the instant lives in the URL
// (`?as_of=2026-05-01T12:30:00Z`, so a view of the past can be shared), every request of the page
// sends it, and choosing or clearing it loads the page again. The input is a UTC date-time
// (datetime-local has no zone: the label says UTC, and the value is read as UTC).
import { el } from './dom.js';
import { timestamp } from './format.js';

const PARAM = 'as_of';
/** What an ISO instant looks like in the URL: the API's own form, whole seconds, UTC. */
const ISO = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?Z?)?$/;

/** The page's as_of from its URL (the API's form), or undefined for the live data. */
export function asOfFromUrl(search = location.search): string | undefined {
  const raw = new URLSearchParams(search).get(PARAM)?.trim();
  if (!raw || !ISO.test(raw)) return undefined;
  return apiInstant(raw);
}

/** `2026-05-01`, `2026-05-01T12:30` or `…:00Z` → `2026-05-01T12:30:00Z` (read as UTC). */
export function apiInstant(value: string): string {
  const [date, time = '00:00:00'] = value.replace(/Z$/, '').split('T') as [string, string?];
  const hms = time.length === 5 ? `${time}:00` : time;
  return `${date}T${hms}Z`;
}

/** The URL of this page with `asOf` set (or cleared): the page's other parameters stay. */
export function urlWithAsOf(asOf: string | undefined, href = location.href): string {
  const url = new URL(href);
  if (asOf === undefined) url.searchParams.delete(PARAM);
  else url.searchParams.set(PARAM, asOf);
  return `${url.pathname}${url.search}${url.hash}`;
}

/**
 * The picker: a UTC date-time, "Show" and "Live". Choosing navigates to the same page with
 * `as_of` (the page renders again from the API); "Live" drops it. With an instant set, a note
 * says the figures are of the past.
 */
export function asOfPicker(asOf: string | undefined): HTMLElement {
  const input = el('input', { type: 'datetime-local', id: 'as-of-input', name: 'as_of', step: '60', value: asOf ? asOf.slice(0, 16) : '' });
  const live = el('button', { type: 'button', id: 'as-of-live' }, 'Live');
  live.disabled = asOf === undefined;
  const form = el(
    'form',
    { id: 'as-of', class: 'controls', role: 'search', 'aria-label': 'Show the figures as of a past instant' },
    el('label', { for: 'as-of-input' }, 'As of (UTC) ', input),
    el('button', { type: 'submit' }, 'Show'),
    live,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    location.assign(urlWithAsOf(input.value ? apiInstant(input.value) : undefined));
  });
  live.addEventListener('click', () => location.assign(urlWithAsOf(undefined)));
  const note = asOf
    ? el(
        'p',
        { id: 'as-of-note', class: 'notice', role: 'status' },
        `Figures as of ${timestamp(asOf)}, from the data known then. Names and settings are today's.`,
      )
    : null;
  return el('div', { class: 'as-of' }, form, note);
}
