// `/vaults/{vault_id}`: one deployment for people: its figures, history charts whose legends
// show the latest values, notes where an APY window is still warming up, its other
// deployments, its allocations and its definition in words (raw JSON behind a toggle).
import type { VaultdClient } from '../../client/createClient.js';
import type { VaultDetail, VaultTimeseriesPoint } from '../../client/types.gen.js';
import { client } from '../api.js';
import { explain, isNotFound } from '../explain.js';
import { allocationsSection } from '../allocations.js';
import { asOfFromUrl, asOfPicker } from '../asOf.js';
import type { Chains } from '../chains.js';
import { axisNumber, axisPercent, axisUsd, lineChart } from '../charts.js';
import { definitionRows } from '../definition.js';
import { addressLink, chainLabel, el, num, show, stat, when } from '../dom.js';
import { familyName } from '../families.js';
import { day, impliedPrice, percent, token, tokenExact, usd, usdCompact, usdExact } from '../format.js';
import { knownChains } from '../session.js';
import { dataTable } from '../table.js';
import { apyProvenanceSection, shadeQuality } from './vaultAudit.js';

const GRANULARITIES = ['hour', 'day', 'week', 'month'] as const;
type Granularity = (typeof GRANULARITIES)[number];
const WINDOWS = [
  { key: 'apy_7d', days: 7, label: '7d' },
  { key: 'apy_30d', days: 30, label: '30d' },
  { key: 'apy_90d', days: 90, label: '90d' },
] as const;

export async function vaultPage(main: HTMLElement): Promise<void> {
  const id = decodeURIComponent(location.pathname.slice('/vaults/'.length));
  const api = client();
  // ?as_of=…: every figure as the API answered at that instant (DESIGN §11.6); ages count from it
  const asOf = asOfFromUrl();
  const nowMs = asOf === undefined ? Date.now() : Date.parse(asOf);
  const params = new URLSearchParams(location.search);
  const granularity: Granularity = (GRANULARITIES as readonly string[]).includes(params.get('granularity') ?? '')
    ? (params.get('granularity') as Granularity)
    : 'day';
  const start = params.get('start') || undefined;
  const end = params.get('end') || undefined;
  const loaded = await Promise.all([
    api.vault(id, { asOf }),
    api.definition(id, { asOf }).catch(() => null),
    api.allocations(id, { asOf }).catch(() => null),
  ]).catch((err: unknown) => {
    const missing = asOf === undefined ? `No vault "${id}".` : `No vault "${id}" as of ${asOf}.`;
    show(main, asOfPicker(asOf), el('p', { class: 'error' }, isNotFound(err) ? missing : explain(err)));
    return null;
  });
  if (loaded === null) return;
  const [detail, definition, allocations] = loaded;
  const v = detail.data;
  const chains = knownChains();
  const sym = v.numeraire_token.symbol;
  const decimals = v.numeraire_token.decimals ?? 18;
  const price = impliedPrice({ native: v.metrics.tvl.native ?? '0', usd: v.metrics.tvl.usd });
  document.title = `${v.name} · vaultd`;

  // cursor paging to the end of the window (a page holds up to 10 000 points)
  const points: VaultTimeseriesPoint[] = [];
  let window: { start: string | null; end: string | null } = { start: null, end: null };
  let next: string | undefined;
  do {
    const page = await api.timeseries(id, { granularity, start, end, limit: 10_000, next, asOf, include: ['quality'] });
    if (next === undefined) window = { start: page.meta.start ?? null, end: page.meta.end ?? null };
    points.push(...page.data);
    next = page.meta.next_cursor ?? undefined;
  } while (next !== undefined);

  const facts = el('dl', { id: 'facts', class: 'stats' }, ...factsOf(v.metrics, sym, v.symbol, decimals, price, nowMs));
  const charts = el('section', { id: 'charts', 'aria-labelledby': 'history-title' });
  const deployments = el('section', { id: 'deployments' });
  show(
    main,
    el('h1', {}, v.name, ' ', el('span', { class: 'muted symbol' }, v.symbol)),
    el(
      'p',
      { class: 'vault-meta' },
      chainLabel(chains, v.chain_id),
      el('span', { class: 'badge' }, familyName(v.vault_type)),
      v.strategy ? el('span', { class: 'badge' }, v.strategy.name) : null,
      addressLink(chains, v.chain_id, v.address),
      el('code', { class: 'vault-id', title: 'the vault id of the API' }, v.vault_id),
    ),
    v.group?.description ? el('p', { class: 'muted' }, v.group.description) : null,
    asOfPicker(asOf),
    facts,
    charts,
    deployments,
  );
  charts.append(el('h2', { id: 'history-title' }, 'History'), rangeForm(granularity, window, asOf));
  drawCharts(charts, v, points, granularity);
  shadeQuality(charts, points);
  charts.after((await apyProvenanceSection(api, id, asOf)) ?? '');

  const names = new Map<string, string>([
    [v.address.toLowerCase(), v.name],
    [v.numeraire_token.address.toLowerCase(), sym ?? 'deposit token'],
  ]);
  for (const a of allocations?.data.allocations ?? []) names.set(a.target.address.toLowerCase(), a.target.name ?? a.target.symbol);
  if (v.group) await siblings(api, v, chains, deployments, names, asOf);
  if (allocations) main.append(allocationsSection(allocations.data, { chains, symbol: sym, decimals, usdPrice: price, nowMs }));
  if (definition) main.append(definitionSection(definition.data as unknown as Record<string, unknown>, v.chain_id, chains, names));
  // a view of the past stays in that past
  if (asOf === undefined) live(api, id, facts, sym, v.symbol, decimals);
}

/** The figures of the vault's metrics (TVL, APYs, share price, as of). */
function factsOf(
  m: VaultDetail['metrics'],
  sym: string | null,
  vaultSym: string,
  decimals: number,
  price: ReturnType<typeof impliedPrice>,
  nowMs: number,
): HTMLElement[] {
  const tvlShown =
    m.tvl.usd !== null
      ? num(usd(m.tvl.usd), usdExact(m.tvl.usd), 'big num')
      : el('span', { class: 'big muted', title: `no USD price for ${sym ?? 'its token'}` }, 'no USD price');
  return [
    stat('TVL', tvlShown, m.tvl.native === null ? null : num(token(m.tvl.native, sym, decimals, price), tokenExact(m.tvl.native, sym)), {
      'data-stat': 'tvl',
      class: 'stat wide',
    }),
    stat('APY 7d', percent(m.apy_7d), null, { 'data-stat': 'apy_7d' }),
    stat('APY 30d', percent(m.apy_30d), null, { 'data-stat': 'apy_30d' }),
    stat('APY 90d', percent(m.apy_90d), m.apy_90d === null ? 'needs 90 days of history' : null, { 'data-stat': 'apy_90d' }),
    stat(
      'Share price',
      m.unit_price === null ? '—' : num(token(m.unit_price, sym, decimals), tokenExact(m.unit_price, sym)),
      sym ? `${sym} per ${vaultSym}` : null,
      { 'data-stat': 'unit_price' },
    ),
    stat('As of', when(m.as_of, nowMs), null, { 'data-stat': 'as_of' }),
  ];
}

/**
 * The figures follow the live feed (DESIGN §11.7, topic `vault:{id}`): each publish's metrics
 * replace them in place, no reload; a resync refetches the vault. Without a feed (a `node`
 * transport server, a proxy without upgrades) the page stays as loaded.
 */
function live(api: VaultdClient, id: string, facts: HTMLElement, sym: string | null, vaultSym: string, decimals: number): void {
  const put = (m: VaultDetail['metrics'], generation: number | null) => {
    const price = impliedPrice({ native: m.tvl.native ?? '0', usd: m.tvl.usd });
    facts.replaceChildren(...factsOf(m, sym, vaultSym, decimals, price, Date.now()));
    if (generation !== null) facts.setAttribute('data-generation', String(generation));
    facts.setAttribute('data-as-of', String(m.as_of ?? ''));
    facts.setAttribute('data-tvl', m.tvl.usd ?? m.tvl.native ?? '');
  };
  let stream: ReturnType<VaultdClient['stream']>;
  try {
    stream = api.stream({ topics: [`vault:${id}`] });
  } catch {
    return;
  }
  stream.on('message', (msg) => {
    if (msg.kind === 'vault.metrics') put((msg.data as VaultDetail).metrics, msg.generation);
  });
  stream.on('resync', () => {
    api.vault(id).then(
      (d) => put(d.data.metrics, null),
      () => undefined,
    );
  });
  addEventListener('pagehide', () => stream.close(), { once: true });
}

function rangeForm(granularity: Granularity, window: { start: string | null; end: string | null }, asOf: string | undefined): HTMLFormElement {
  const select = el('select', { name: 'granularity', id: 'granularity' });
  for (const g of GRANULARITIES) {
    const o = el('option', { value: g }, g);
    if (g === granularity) o.selected = true;
    select.append(o);
  }
  // the window the API answered, so the inputs show the range the charts cover
  const from = el('input', { type: 'date', name: 'start', id: 'start', value: window.start ? day(window.start) : '' });
  const to = el('input', { type: 'date', name: 'end', id: 'end', value: window.end ? day(window.end) : '' });
  const form = el(
    'form',
    { id: 'range', method: 'get', class: 'controls' },
    el('label', {}, 'Granularity ', select),
    el('label', {}, 'From ', from),
    el('label', {}, 'To ', to),
    el('button', {}, 'Show'),
    // the window of a view of the past stays in that past
    asOf === undefined ? null : el('input', { type: 'hidden', name: 'as_of', value: asOf }),
  );
  select.addEventListener('change', () => form.requestSubmit());
  return form;
}

function drawCharts(target: HTMLElement, v: VaultDetail, points: VaultTimeseriesPoint[], granularity: Granularity): void {
  if (points.length === 0) {
    target.append(el('p', { class: 'empty' }, 'No points in this window.'));
    return;
  }
  const sym = v.numeraire_token.symbol ?? '';
  const decimals = v.numeraire_token.decimals ?? 18;
  const xs = points.map((p) => Date.parse(p.timestamp) / 1000);
  const hourly = granularity === 'hour';
  const f = (s: string | null) => (s === null ? null : Number(s));
  const hasUsd = points.some((p) => p.tvl.usd !== null);
  if (hasUsd) {
    lineChart(target, {
      title: 'TVL (USD)',
      xs,
      hourly,
      series: [{ label: 'TVL', values: points.map((p) => f(p.tvl.usd)), format: (x) => (x === null ? '—' : usd(x.toFixed(2))) }],
      axis: axisUsd,
      notes: points.some((p) => p.tvl.usd === null) ? ['Gaps: no USD price for the token at those times.'] : [],
    });
  } else {
    lineChart(target, {
      title: `TVL (${sym})`,
      xs,
      hourly,
      series: [
        {
          label: 'TVL',
          values: points.map((p) => f(p.tvl.native)),
          format: (x) => (x === null ? '—' : token(x.toFixed(Math.min(decimals, 8)), sym, decimals)),
        },
      ],
      axis: axisNumber,
      notes: [`No USD price for ${sym || 'this token'}: TVL is shown in ${sym || 'the token'}.`],
    });
  }
  lineChart(target, {
    title: `Share price (${sym})`,
    xs,
    hourly,
    series: [
      {
        label: 'Share price',
        values: points.map((p) => f(p.unit_price)),
        format: (x) => (x === null ? '—' : token(x.toFixed(Math.min(decimals, 12)), sym, decimals)),
      },
    ],
    axis: axisNumber,
  });
  const notes: string[] = [];
  for (const w of WINDOWS) {
    const values = points.map((p) => p[w.key]);
    const first = values.findIndex((x) => x !== null);
    if (first === -1) notes.push(`The ${w.days}-day APY needs ${w.days} days of history: none in this window yet.`);
    else if (first > 0) notes.push(`The ${w.days}-day APY starts on ${day(xs[first]!)}, once ${w.days} days of history exist.`);
  }
  lineChart(target, {
    title: 'APY (%)',
    xs,
    hourly,
    series: WINDOWS.map((w) => ({
      label: w.label,
      values: points.map((p) => (p[w.key] === null ? null : p[w.key]! * 100)),
      format: (x) => (x === null ? '—' : `${x.toFixed(2)} %`),
    })),
    axis: axisPercent,
    notes,
  });
}

async function siblings(
  api: VaultdClient,
  v: VaultDetail,
  chains: Chains,
  target: HTMLElement,
  names: Map<string, string>,
  asOf: string | undefined,
): Promise<void> {
  const all = await api.vaultsBySlug(v.group!.slug, { asOf }).catch(() => null);
  if (!all || all.data.length <= 1) return;
  for (const d of all.data) names.set(d.address.toLowerCase(), `${d.name} (${chains.name(d.chain_id)})`);
  const table = dataTable<VaultDetail>({
    id: 'deployment-table',
    caption: 'Other deployments of this vault',
    rowId: (d) => d.vault_id,
    sort: { key: 'tvl', dir: 'desc' },
    columns: [
      {
        key: 'chain',
        label: 'Chain',
        priority: 'key',
        cell: (d) =>
          d.vault_id === v.vault_id
            ? el('span', {}, chainLabel(chains, d.chain_id), ' (this page)')
            : el('a', { href: `/vaults/${encodeURIComponent(d.vault_id)}${asOf ? `?as_of=${asOf}` : ''}` }, chainLabel(chains, d.chain_id)),
        sort: (d) => chains.name(d.chain_id),
      },
      {
        key: 'tvl',
        label: 'TVL',
        numeric: true,
        cell: (d) => num(usdCompact(d.metrics.tvl.usd), usdExact(d.metrics.tvl.usd)),
        sort: (d) => (d.metrics.tvl.usd === null ? null : Number(d.metrics.tvl.usd)),
      },
      { key: 'apy_30d', label: 'APY 30d', numeric: true, cell: (d) => percent(d.metrics.apy_30d), sort: (d) => d.metrics.apy_30d },
      { key: 'family', label: 'Family', priority: 'low', cell: (d) => familyName(d.vault_type), sort: (d) => familyName(d.vault_type) },
    ],
  });
  table.setRows(all.data);
  target.append(el('h2', {}, 'Deployments'), el('div', { class: 'table-wrap' }, table.element));
}

function definitionSection(definition: Record<string, unknown>, chainId: number, chains: Chains, names: Map<string, string>): HTMLElement {
  const rows = definitionRows(definition, names);
  const list = el(
    'dl',
    { id: 'definition', class: 'definition' },
    ...rows.map((r) =>
      el(
        'div',
        { 'data-field': r.key },
        el('dt', {}, r.label),
        el(
          'dd',
          {},
          r.value.kind === 'text'
            ? r.value.text
            : el('span', {}, r.value.name ? el('span', { class: 'addr-name' }, r.value.name, ' ') : null, addressLink(chains, chainId, r.value.address)),
        ),
      ),
    ),
  );
  return el(
    'section',
    { id: 'definition-section', 'aria-labelledby': 'def-title' },
    el('h2', { id: 'def-title' }, 'Definition'),
    list,
    el('details', {}, el('summary', {}, 'Raw JSON'), el('pre', { id: 'definition-json' }, JSON.stringify(definition, null, 2))),
  );
}
