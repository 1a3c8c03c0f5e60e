// The explorer pages' one script (DESIGN §5.10): which page it renders comes from
// <body data-page>. It reads the same /v1 routes as any client, through the client SDK, a
// few requests per view (the anonymous tier allows 60 a minute). Amounts are shown from their
// decimal strings; floats only place points on charts. Unknown values are shown as "—" or
// say why ("no USD price"), never as 0.
import uPlot from 'uplot';
import { activityFlows } from '../client/activityFlows.js';
import { createClient, type VaultdClient } from '../client/createClient.js';
import { VaultdApiError } from '../client/errors.js';

const KEY_STORAGE = 'vaultd.apiKey';
const $ = <T extends HTMLElement = HTMLElement>(sel: string): T => document.querySelector<T>(sel)!;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string | null)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) if (c !== null) e.append(c);
  return e;
}

function client(): VaultdClient {
  const apiKey = sessionStorage.getItem(KEY_STORAGE) || undefined;
  return createClient({ baseUrl: location.origin, apiKey, retry: { retries: 1, baseDelayMs: 500, maxDelayMs: 5000 } });
}

// ---- formatting: strings in, strings out ----

/** "1234567.891" → "1,234,567.89" (cut, not rounded, to `digits` decimals). */
export function groupDecimal(value: string, digits: number): string {
  const neg = value.startsWith('-');
  const [int = '0', frac = ''] = (neg ? value.slice(1) : value).split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const cut = frac.slice(0, digits).replace(/0+$/, '');
  return `${neg ? '-' : ''}${grouped}${cut ? `.${cut}` : ''}`;
}
const usd = (v: string | null | undefined) => (v === null || v === undefined ? 'no USD price' : `$${groupDecimal(v, 2)}`);
const amount = (v: string | null | undefined, symbol: string | null = '') =>
  v === null || v === undefined ? '—' : `${groupDecimal(v, 6)}${symbol ? ` ${symbol}` : ''}`;
const pct = (fraction: number | null | undefined) => (fraction === null || fraction === undefined ? '—' : `${(fraction * 100).toFixed(2)} %`);
const roi = (percent: number | null | undefined) => (percent === null || percent === undefined ? '—' : `${percent.toFixed(2)} %`);
const when = (unix: number | string) => new Date(typeof unix === 'number' ? unix * 1000 : unix).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

function show(target: HTMLElement, ...nodes: (Node | string)[]): void {
  target.replaceChildren(...nodes);
}

function explain(err: unknown): string {
  if (err instanceof VaultdApiError) {
    if (err.code === 'UNAUTHORIZED') return 'This server needs an API key: enter one above.';
    if (err.code === 'RATE_LIMITED') return `Rate limited: try again in ${err.retryAfterSeconds ?? 60} s.`;
    if (err.code === 'NOT_READY') return 'The server has not published its first snapshot yet.';
    return `${err.code}: ${err.message}`;
  }
  return `Request failed: ${(err as Error).message}`;
}

function table(headers: string[], rows: (Node | string)[][], attrs: Record<string, string> = {}): HTMLTableElement {
  return el(
    'table',
    attrs,
    el('thead', {}, el('tr', {}, ...headers.map((h) => el('th', {}, h)))),
    el('tbody', {}, ...rows.map((r) => el('tr', {}, ...r.map((c) => el('td', {}, c))))),
  );
}

/** A line chart; `series` values null are gaps. Returns the plot (tests read its data). */
function chart(target: HTMLElement, title: string, xs: number[], series: { label: string; values: (number | null)[] }[]): uPlot {
  const box = el('figure', { class: 'chart', 'data-title': title, 'data-points': String(xs.length) });
  target.append(box);
  const width = Math.max(280, Math.min(900, target.clientWidth || 600));
  const colors = ['#2563eb', '#dc2626', '#16a34a'];
  return new uPlot(
    {
      title,
      width,
      height: 220,
      series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: colors[i % colors.length]!, width: 1.5, spanGaps: false }))],
      axes: [{}, { size: 90 }],
    },
    [xs, ...series.map((s) => s.values)] as uPlot.AlignedData,
    box,
  );
}

const num = (s: string | null | undefined): number | null => (s === null || s === undefined ? null : Number(s));

// ---- header: API key ----

function header(): void {
  const input = $<HTMLInputElement>('#api-key');
  input.value = sessionStorage.getItem(KEY_STORAGE) ?? '';
  $('#key-form').addEventListener('submit', (e) => {
    e.preventDefault();
    if (input.value.trim()) sessionStorage.setItem(KEY_STORAGE, input.value.trim());
    else sessionStorage.removeItem(KEY_STORAGE);
    location.reload();
  });
}

// ---- pages ----

async function vaultsPage(): Promise<void> {
  const main = $('#main');
  const api = client();
  try {
    const [list, listed, tvl, featured] = await Promise.all([
      api.vaults({ limit: 1000, includeHidden: true }),
      api.vaults({ limit: 1000 }),
      api.tvl({ includeBreakdown: true }),
      api.featured(),
    ]);
    // hidden = served, but not listed
    const visible = new Set(listed.data.map((v) => v.vault_id));
    const totals = el(
      'section',
      { id: 'tvl' },
      el('h2', {}, `Total value locked: ${usd(tvl.data.tvl.usd)}`),
      table(
        ['source', 'TVL', 'updated'],
        (tvl.data.breakdown ?? []).map((r) => [r.label, usd(r.tvl.usd), r.updated_at ?? '—']),
      ),
    );
    const cards = el(
      'section',
      { id: 'featured' },
      el('h2', {}, 'Featured'),
      el(
        'div',
        { class: 'cards' },
        ...featured.data.map((c) =>
          el('div', { class: 'card' }, el('strong', {}, c.name), el('div', {}, usd(c.tvl.usd)), el('div', {}, `${c.chains.join(', ')}`)),
        ),
      ),
    );
    const filter = el('input', { id: 'filter', type: 'search', placeholder: 'Filter by name, chain, type…', 'aria-label': 'filter vaults' });
    const hidden = el('input', { id: 'show-hidden', type: 'checkbox' });
    const wallet = el(
      'form',
      { id: 'wallet-form' },
      el('input', { id: 'wallet', placeholder: 'Wallet address 0x…', 'aria-label': 'wallet address', pattern: '0x[0-9a-fA-F]{40}' }),
      el('button', {}, 'Open wallet'),
    );
    wallet.addEventListener('submit', (e) => {
      e.preventDefault();
      location.href = `/wallets/${$<HTMLInputElement>('#wallet').value.trim().toLowerCase()}`;
    });
    type Row = (typeof list.data)[number];
    const rows = list.data;
    let sortKey: (r: Row) => number | string = (r) => -(num(r.metrics.tvl.usd) ?? -1);
    const holder = el('div', { id: 'vault-table' });
    const columns: [string, (r: Row) => number | string][] = [
      ['name', (r) => r.name],
      ['chain', (r) => r.chain_id],
      ['type', (r) => r.vault_type],
      ['TVL (USD)', (r) => -(num(r.metrics.tvl.usd) ?? -1)],
      ['unit price', (r) => -(num(r.metrics.unit_price) ?? -1)],
      ['APY 7d', (r) => -(r.metrics.apy_7d ?? -Infinity)],
      ['APY 30d', (r) => -(r.metrics.apy_30d ?? -Infinity)],
      ['APY 90d', (r) => -(r.metrics.apy_90d ?? -Infinity)],
      ['strategy', (r) => r.strategy?.name ?? '~'],
    ];
    const render = () => {
      const q = filter.value.trim().toLowerCase();
      const shown = rows
        .filter((r) => hidden.checked || visible.has(r.vault_id))
        .filter((r) => !q || `${r.name} ${r.symbol} ${r.chain_id} ${r.vault_type}`.toLowerCase().includes(q))
        .sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : a.vault_id < b.vault_id ? -1 : 1));
      const t = table(
        columns.map(([h]) => h),
        shown.map((r) => [
          el('a', { href: `/vaults/${encodeURIComponent(r.vault_id)}` }, r.name),
          String(r.chain_id),
          r.vault_type,
          usd(r.metrics.tvl.usd),
          amount(r.metrics.unit_price),
          pct(r.metrics.apy_7d),
          pct(r.metrics.apy_30d),
          pct(r.metrics.apy_90d),
          r.strategy?.name ?? '—',
        ]),
        { id: 'vaults' },
      );
      t.querySelectorAll('th').forEach((th, i) => {
        th.tabIndex = 0;
        th.addEventListener('click', () => {
          sortKey = columns[i]![1];
          render();
        });
      });
      t.querySelectorAll('tbody tr').forEach((tr, i) => tr.setAttribute('data-vault-id', shown[i]!.vault_id));
      show(holder, t);
    };
    filter.addEventListener('input', render);
    hidden.addEventListener('change', render);
    show(
      main,
      totals,
      cards,
      el('section', {}, el('h2', {}, 'Vaults'), wallet, el('div', { class: 'controls' }, filter, el('label', {}, hidden, ' show hidden')), holder),
    );
    render();
  } catch (err) {
    show(main, el('p', { class: 'error' }, explain(err)));
  }
}

const GRANULARITIES = ['hour', 'day', 'week', 'month'] as const;

async function vaultPage(): Promise<void> {
  const main = $('#main');
  const id = decodeURIComponent(location.pathname.slice('/vaults/'.length));
  const api = client();
  const params = new URLSearchParams(location.search);
  const granularity = (GRANULARITIES as readonly string[]).includes(params.get('granularity') ?? '')
    ? (params.get('granularity') as (typeof GRANULARITIES)[number])
    : 'day';
  const start = params.get('start') || undefined;
  const end = params.get('end') || undefined;
  try {
    const [vault, definition, allocations] = await Promise.all([api.vault(id), api.definition(id).catch(() => null), api.allocations(id).catch(() => null)]);
    const v = vault.data;
    // cursor paging to the end of the window (a page holds up to 10 000 points)
    const points: Awaited<ReturnType<VaultdClient['timeseries']>>['data'] = [];
    for await (const p of api.iterate.timeseries(id, { granularity, start, end, limit: 10_000 })) points.push(p);
    const controls = el(
      'form',
      { id: 'range', method: 'get' },
      el(
        'label',
        {},
        'granularity ',
        el(
          'select',
          { name: 'granularity', id: 'granularity' },
          ...GRANULARITIES.map((g) => {
            const o = el('option', { value: g }, g);
            if (g === granularity) o.selected = true;
            return o;
          }),
        ),
      ),
      el('label', {}, ' from ', el('input', { type: 'date', name: 'start', value: start?.slice(0, 10) ?? '' })),
      el('label', {}, ' to ', el('input', { type: 'date', name: 'end', value: end?.slice(0, 10) ?? '' })),
      el('button', {}, 'Show'),
    );
    controls.querySelector('select')!.addEventListener('change', () => controls.requestSubmit());
    const facts = table(
      ['', ''],
      [
        ['vault', `${v.name} (${v.symbol})`],
        ['id', v.vault_id],
        ['type', v.vault_type],
        ['TVL', `${amount(v.metrics.tvl.native, v.numeraire_token.symbol)} · ${usd(v.metrics.tvl.usd)}`],
        ['unit price', amount(v.metrics.unit_price, v.numeraire_token.symbol)],
        ['APY 7d / 30d / 90d', `${pct(v.metrics.apy_7d)} / ${pct(v.metrics.apy_30d)} / ${pct(v.metrics.apy_90d)}`],
        ['as of', v.metrics.as_of === null ? 'not read yet' : when(v.metrics.as_of)],
      ],
      { id: 'facts' },
    );
    const charts = el('section', { id: 'charts' });
    const deployments = el('section', { id: 'deployments' });
    show(main, el('h1', {}, v.name), facts, el('h2', {}, 'History'), controls, charts, deployments);
    if (points.length === 0) charts.append(el('p', { class: 'empty' }, 'No points in this window.'));
    else {
      const xs = points.map((p) => Date.parse(p.timestamp) / 1000);
      chart(charts, 'TVL (USD)', xs, [{ label: 'TVL USD', values: points.map((p) => num(p.tvl.usd)) }]);
      chart(charts, `Unit price (${v.numeraire_token.symbol})`, xs, [{ label: 'unit price', values: points.map((p) => num(p.unit_price)) }]);
      chart(charts, 'APY (%)', xs, [
        { label: '7d', values: points.map((p) => (p.apy_7d === null ? null : p.apy_7d * 100)) },
        { label: '30d', values: points.map((p) => (p.apy_30d === null ? null : p.apy_30d * 100)) },
        { label: '90d', values: points.map((p) => (p.apy_90d === null ? null : p.apy_90d * 100)) },
      ]);
    }
    if (v.group) {
      const siblings = await api.vaultsBySlug(v.group.slug).catch(() => null);
      if (siblings && siblings.data.length > 1) {
        deployments.append(
          el('h2', {}, 'Deployments'),
          table(
            ['vault', 'chain', 'TVL'],
            siblings.data.map((d) => [el('a', { href: `/vaults/${encodeURIComponent(d.vault_id)}` }, d.name), String(d.chain_id), usd(d.metrics.tvl.usd)]),
          ),
        );
      }
    }
    if (allocations) {
      // allocation is the fraction of the vault; pending flows (requests in transit) are marked
      const items = allocations.data.allocations;
      main.append(
        el('h2', {}, 'Allocations'),
        items.length === 0
          ? el('p', { class: 'empty' }, 'No allocations reported.')
          : el(
              'div',
              { id: 'allocations' },
              ...items.map((a) => {
                const bar = el('div', { class: a.target.flow ? 'bar pending' : 'bar' });
                bar.style.width = `${Math.max(0, Math.min(100, a.allocation * 100)).toFixed(1)}%`;
                const label = `${a.category}: ${a.target.name ?? a.target.symbol}${a.target.flow ? ` (${a.target.flow.kind.replace('_', ' ')})` : ''}`;
                return el(
                  'div',
                  { class: 'alloc' },
                  el('span', {}, label),
                  bar,
                  el(
                    'span',
                    {},
                    `${(a.allocation * 100).toFixed(2)} % · ${a.amount_usd === null ? 'no USD price' : `$${a.amount_usd.toLocaleString('en-US', { maximumFractionDigits: 0 })}`}`,
                  ),
                );
              }),
            ),
      );
    }
    if (definition) main.append(el('h2', {}, 'Definition'), el('pre', { id: 'definition' }, JSON.stringify(definition.data, null, 2)));
  } catch (err) {
    show(main, el('p', { class: 'error' }, err instanceof VaultdApiError && err.code === 'NOT_FOUND' ? `No vault "${id}".` : explain(err)));
  }
}

async function walletPage(): Promise<void> {
  const main = $('#main');
  const wallet = decodeURIComponent(location.pathname.slice('/wallets/'.length)).toLowerCase();
  const api = client();
  try {
    const [positions, activity] = await Promise.all([
      api.positions(wallet, { includeHidden: true }),
      api.activity(wallet, { limit: 200, includeHidden: true }),
    ]);
    if (positions.data.length === 0 && activity.data.length === 0) {
      show(main, el('h1', {}, 'Wallet'), el('p', { class: 'empty', id: 'empty' }, `No positions or activity for ${wallet}.`));
      return;
    }
    const rows = positions.data.map((p) => {
      const m = p.metrics;
      const sym = p.numeraire_token?.symbol ?? '';
      return [
        el('a', { href: `/vaults/${encodeURIComponent(p.vault_id)}` }, p.vault_id),
        amount(m.shares_owned),
        `${amount(m.value.native, sym)} · ${usd(m.value.usd)}`,
        `${amount(m.cost_basis.native, sym)} · ${usd(m.cost_basis.usd)}`,
        `${amount(m.pnl.total.native, sym)} · ${usd(m.pnl.total.usd)}`,
        roi(m.roi_pct.native),
        amount(m.pending_deposit_assets.native, sym),
        amount(m.pending_redeem_shares),
      ];
    });
    const charts = el('section', { id: 'charts' });
    const flows = activityFlows(activity.data);
    show(
      main,
      el('h1', {}, `Wallet ${wallet}`),
      el('h2', {}, 'Positions'),
      table(['vault', 'shares', 'value', 'cost basis', 'PnL', 'ROI', 'pending deposit', 'pending redeem'], rows, { id: 'positions' }),
      charts,
      el('h2', {}, 'Activity'),
      table(
        ['latest', 'kind', 'status', 'vault', 'net assets', 'rows'],
        flows
          .slice()
          .sort((a, b) => b.rows.at(-1)!.block_timestamp - a.rows.at(-1)!.block_timestamp)
          .map((f) => [when(f.rows.at(-1)!.block_timestamp), f.kind, f.status, f.vault_id, amount(f.net.assets.native), String(f.rows.length)]),
        { id: 'flows' },
      ),
      activity.meta.next_cursor ? el('p', {}, 'Older activity: page through /v1/users/{wallet}/activity with next.') : '',
    );
    const first = positions.data[0];
    if (first) {
      const series = await api.positionTimeseries(wallet, first.vault_id, { granularity: 'day', limit: 10_000 });
      const xs = series.data.map((p) => Date.parse(p.timestamp) / 1000);
      chart(charts, `Value and PnL of ${first.vault_id} (${first.numeraire_token?.symbol ?? 'native'})`, xs, [
        { label: 'value', values: series.data.map((p) => num(p.value.native)) },
        { label: 'PnL', values: series.data.map((p) => num(p.pnl.total.native)) },
      ]);
    }
  } catch (err) {
    show(main, el('p', { class: 'error' }, explain(err)));
  }
}

function docsPage(): void {
  // each operation's form: fill the path and query, call the running server, show the answer
  document.querySelectorAll<HTMLFormElement>('form.try').forEach((form) => {
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const out = form.querySelector('output')!;
      let path = form.dataset.path!;
      const query = new URLSearchParams();
      for (const input of form.querySelectorAll<HTMLInputElement>('input[data-in]')) {
        if (!input.value) continue;
        if (input.dataset.in === 'path') path = path.replace(`{${input.name}}`, encodeURIComponent(input.value));
        else query.set(input.name, input.value);
      }
      const url = `${path}${query.size > 0 ? `?${query}` : ''}`;
      const key = sessionStorage.getItem(KEY_STORAGE);
      out.textContent = `GET ${url} …`;
      try {
        const res = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
        const text = await res.text();
        out.dataset.status = String(res.status);
        let pretty = text;
        try {
          pretty = JSON.stringify(JSON.parse(text), null, 2);
        } catch {
          // not JSON: shown as it is
        }
        out.textContent = `GET ${url} → ${res.status}\n${pretty.slice(0, 20_000)}`;
      } catch (err) {
        out.textContent = `GET ${url} failed: ${(err as Error).message}`;
      }
    });
  });
}

header();
const page = document.body.dataset.page;
const done = page === 'vaults' ? vaultsPage() : page === 'vault' ? vaultPage() : page === 'wallet' ? walletPage() : (docsPage(), Promise.resolve());
void done.finally(() => document.body.setAttribute('data-ready', 'true'));
