// `/`: the total TVL and where it comes from, warnings about failed or stale sources and
// stalled chains, the featured vaults with their best APY, and every listed vault in a
// sortable, filterable table with a 30-day APY sparkline per row. Four requests draw the page;
// sparklines follow for the rows on screen, a few at a time, within the request budget.
import type { VaultdClient } from '../../client/createClient.js';
import type { FeaturedCard, TvlBreakdownRow, TvlRow, VaultDetail } from '../../client/types.gen.js';
import { client } from '../api.js';
import { createBudget } from '../budget.js';
import type { Chains } from '../chains.js';
import { chainLabel, chainMark, el, num, show, when } from '../dom.js';
import { familyName } from '../families.js';
import { percent, usdCompact, usdExact } from '../format.js';
import { keep, learnChains, recall } from '../session.js';
import { sparkline } from '../sparkline.js';
import { dataTable, type Column } from '../table.js';
import { dataWarnings } from '../warnings.js';

/** Requests left to the reader's clicks once sparklines have taken their share. */
const SPARK_RESERVE = 24;
const SPARK_DAYS = 30;
const WALLET = /^0x[0-9a-fA-F]{40}$/;

type Vault = VaultDetail;

export async function homePage(main: HTMLElement): Promise<void> {
  const api = client();
  const nowMs = Date.now();
  const [listed, tvl, featured, chainHealth] = await Promise.all([
    api.withResponse.vaults({ limit: 1000 }),
    api.tvl({ includeBreakdown: true }),
    api.featured(),
    // freshness is a nicety: a page without it still shows the vaults
    api.chains().catch(() => null),
  ]);
  const chains = learnChains(tvl.data.breakdown);
  const warnings = dataWarnings({ tvl: tvl.data, partialErrors: tvl.meta.partial_errors, chains: chainHealth, chainName: chains.name, nowMs });
  const failed = new Set(warnings.filter((w) => w.id.startsWith('source:')).map((w) => w.id.slice('source:'.length)));

  const warningBox =
    warnings.length === 0
      ? null
      : el(
          'section',
          { id: 'warnings', class: 'warnings', role: 'status', 'aria-label': 'Data warnings' },
          el('h2', { class: 'visually-hidden' }, 'Data warnings'),
          el(
            'ul',
            {},
            ...warnings.map((w) => el('li', { 'data-warning': w.id, title: w.detail }, el('span', { class: 'warn-icon', 'aria-hidden': 'true' }, '!'), w.text)),
          ),
        );

  // ---- total and breakdown ----
  const total = tvl.data.tvl.usd;
  const rows: (TvlRow | TvlBreakdownRow)[] = tvl.data.breakdown ?? tvl.data.totals;
  const share = (v: string | null) => (v === null || total === null || Number(total) === 0 ? null : Number(v) / Number(total));
  const sourceOf = (r: TvlRow | TvlBreakdownRow) => ('source_id' in r ? r.source_id : r.id);
  const breakdown = dataTable<TvlRow | TvlBreakdownRow>({
    id: 'breakdown',
    caption: 'Where the total value locked comes from',
    rowId: (r) => r.id,
    sort: { key: 'tvl', dir: 'desc' },
    columns: [
      {
        key: 'source',
        label: 'Source',
        priority: 'key',
        cell: (r) => {
          const chain = /^chain:(\d+)$/.exec(r.id);
          return el(
            'span',
            {},
            chain ? chainLabel(chains, Number(chain[1])) : r.label,
            failed.has(sourceOf(r)) ? el('span', { class: 'badge warn', title: 'see the warning above' }, 'stale') : null,
          );
        },
        sort: (r) => r.label,
      },
      {
        key: 'tvl',
        label: 'TVL',
        numeric: true,
        cell: (r) => num(usdCompact(r.tvl.usd), usdExact(r.tvl.usd)),
        sort: (r) => (r.tvl.usd === null ? null : Number(r.tvl.usd)),
      },
      { key: 'share', label: 'Share', numeric: true, cell: (r) => percent(share(r.tvl.usd)), sort: (r) => share(r.tvl.usd) },
      { key: 'updated', label: 'Updated', cell: (r) => when(r.updated_at, nowMs), sort: (r) => r.updated_at },
    ],
  });
  breakdown.setRows(rows);
  // open on wide screens; on a phone the vaults come first and the sources one tap away
  const sources = el(
    'details',
    { id: 'sources' },
    el('summary', {}, `Where it comes from: ${rows.length} source${rows.length === 1 ? '' : 's'}`),
    el('div', { class: 'table-wrap' }, breakdown.element),
  );
  sources.open = matchMedia('(min-width: 641px)').matches;
  const totals = el(
    'section',
    { id: 'tvl', 'aria-labelledby': 'tvl-title' },
    el('h2', { id: 'tvl-title' }, 'Total value locked'),
    el(
      'p',
      { class: 'headline' },
      num(usdCompact(total), usdExact(total), 'big num'),
      el('span', { class: 'muted' }, ' updated ', when(tvl.data.updated_at, nowMs)),
    ),
    sources,
  );

  // ---- featured ----
  const cards = el(
    'section',
    { id: 'featured', 'aria-labelledby': 'featured-title' },
    el('h2', { id: 'featured-title' }, 'Featured'),
    el('div', { class: 'cards' }, ...featured.data.map((c) => featuredCard(c, chains))),
  );

  // ---- the vault table ----
  const vaults = el('section', { id: 'vault-list', 'aria-labelledby': 'vaults-title' });
  show(main, el('h1', {}, 'Vaults'), walletForm(), warningBox, totals, cards, vaults);
  vaultTable(vaults, api, listed.body.data, chains, listed.response.rateLimit?.remaining ?? null);
}

function featuredCard(c: FeaturedCard, chains: Chains): HTMLElement {
  const best = c.apy_30d_max ?? c.apy_7d_max;
  const window = c.apy_30d_max !== null ? '30 d' : '7 d';
  const href = c.vault_ids[0] ? `/vaults/${encodeURIComponent(c.vault_ids[0])}` : undefined;
  return el(
    'article',
    { class: 'card', 'data-slug': c.slug },
    el('h3', {}, href ? el('a', { href }, c.name) : c.name),
    c.short_description ? el('p', { class: 'muted' }, c.short_description) : null,
    el(
      'dl',
      { class: 'card-stats' },
      el('div', {}, el('dt', {}, 'TVL'), el('dd', { 'data-stat': 'tvl' }, num(usdCompact(c.tvl.usd), usdExact(c.tvl.usd)))),
      el('div', {}, el('dt', {}, `Best APY (${window})`), el('dd', { 'data-stat': 'apy' }, percent(best))),
      c.supply_token ? el('div', {}, el('dt', {}, 'Deposit'), el('dd', {}, c.supply_token)) : null,
    ),
    el(
      'p',
      { class: 'chains' },
      ...c.chains.map((slug) => {
        const info = chains.bySlug(slug);
        return el('span', { class: 'chain' }, chainMark(chains, info.id), info.name);
      }),
    ),
  );
}

function walletForm(): HTMLFormElement {
  const input = el('input', {
    id: 'wallet',
    name: 'wallet',
    placeholder: '0x… wallet address',
    'aria-label': 'Wallet address',
    pattern: '0x[0-9a-fA-F]{40}',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const form = el(
    'form',
    { id: 'wallet-form', role: 'search' },
    el('label', { for: 'wallet', class: 'visually-hidden' }, 'Wallet address'),
    input,
    el('button', {}, 'Open wallet'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const w = input.value.trim();
    if (WALLET.test(w)) {
      location.href = `/wallets/${w.toLowerCase()}`;
      return;
    }
    input.setCustomValidity('A wallet address is 0x and 40 hex digits.');
    input.reportValidity();
  });
  input.addEventListener('input', () => input.setCustomValidity(''));
  return form;
}

function vaultTable(section: HTMLElement, api: VaultdClient, listed: Vault[], chains: Chains, remaining: number | null): void {
  let all: Vault[] | null = null;
  const visible = new Set(listed.map((v) => v.vault_id));
  // the other three requests of the page ran beside the one whose count we read
  const budget = createBudget({ concurrency: 2, reserve: SPARK_RESERVE, remaining: remaining === null ? null : remaining - 3 });
  const sparks = new Map<string, (number | null)[]>();
  const pending = new Set<string>();

  const filter = el('input', {
    id: 'filter',
    type: 'search',
    placeholder: 'Filter: name, chain, family, strategy',
    'aria-label': 'Filter vaults',
    autocomplete: 'off',
  });
  const hidden = el('input', { id: 'show-hidden', type: 'checkbox' });
  const count = el('p', { id: 'vault-count', class: 'muted', 'aria-live': 'polite' });

  const sparkCell = (v: Vault) => {
    const holder = el('span', { class: 'spark-cell', 'data-spark': v.vault_id });
    const known = sparks.get(v.vault_id);
    holder.append(known ? sparkline(known, `${v.name}: 7-day APY, last ${SPARK_DAYS} days`) : el('span', { class: 'spark-wait muted' }, '…'));
    return holder;
  };
  const columns: Column<Vault>[] = [
    {
      key: 'name',
      label: 'Vault',
      priority: 'key',
      cell: (v) =>
        el(
          'span',
          { class: 'vault-name' },
          el('a', { href: `/vaults/${encodeURIComponent(v.vault_id)}` }, v.name),
          el('span', { class: 'sub' }, v.symbol),
          el('span', { class: 'sub phone-only' }, `${chains.name(v.chain_id)} · ${familyName(v.vault_type)}`),
        ),
      sort: (v) => v.name.toLowerCase(),
    },
    { key: 'chain', label: 'Chain', priority: 'low', cell: (v) => chainLabel(chains, v.chain_id), sort: (v) => chains.name(v.chain_id) },
    { key: 'type', label: 'Family', priority: 'low', cell: (v) => familyName(v.vault_type), sort: (v) => familyName(v.vault_type) },
    {
      key: 'tvl',
      label: 'TVL',
      numeric: true,
      cell: (v) =>
        v.metrics.tvl.usd === null
          ? el('span', { class: 'muted', title: `no USD price for ${v.numeraire_token.symbol ?? 'its token'}` }, 'no USD price')
          : num(usdCompact(v.metrics.tvl.usd), usdExact(v.metrics.tvl.usd)),
      sort: (v) => (v.metrics.tvl.usd === null ? null : Number(v.metrics.tvl.usd)),
    },
    { key: 'apy_7d', label: 'APY 7d', numeric: true, cell: (v) => percent(v.metrics.apy_7d), sort: (v) => v.metrics.apy_7d },
    { key: 'apy_30d', label: 'APY 30d', numeric: true, cell: (v) => percent(v.metrics.apy_30d), sort: (v) => v.metrics.apy_30d },
    { key: 'trend', label: '7d APY, 30 days', title: 'The 7-day APY of each of the last 30 days', cell: sparkCell },
    { key: 'apy_90d', label: 'APY 90d', numeric: true, priority: 'low', cell: (v) => percent(v.metrics.apy_90d), sort: (v) => v.metrics.apy_90d },
    { key: 'strategy', label: 'Strategy', priority: 'low', cell: (v) => v.strategy?.name ?? '—', sort: (v) => v.strategy?.name ?? null },
  ];

  const observer = new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        observer.unobserve(e.target);
        const id = (e.target as HTMLElement).dataset.spark!;
        const v = (all ?? listed).find((x) => x.vault_id === id);
        if (v) void loadSpark(v);
      }
    },
    { rootMargin: '0px 0px 120px 0px' },
  );

  async function loadSpark(v: Vault): Promise<void> {
    if (sparks.has(v.vault_id) || pending.has(v.vault_id)) return;
    const asOf = v.metrics.as_of;
    if (asOf === null) return place(v, []);
    const key = `vaultd.spark:${v.vault_id}:${asOf}`;
    const cached = recall<(number | null)[]>(key);
    if (cached) return place(v, cached);
    pending.add(v.vault_id);
    try {
      const body = await budget.run(() =>
        api.withResponse.timeseries(v.vault_id, {
          granularity: 'day',
          start: new Date((asOf - SPARK_DAYS * 86_400) * 1000),
          end: new Date(asOf * 1000),
          limit: SPARK_DAYS + 2,
        }),
      );
      if (body === null) {
        for (const cell of section.querySelectorAll<HTMLElement>(`[data-spark="${CSS.escape(v.vault_id)}"]`)) {
          cell.replaceChildren(el('span', { class: 'muted', title: 'not loaded, to stay within the request budget; reload in a minute' }, '·'));
        }
        return;
      }
      const values = body.data.map((p) => p.apy_7d);
      keep(key, values);
      place(v, values);
    } catch {
      // a sparkline is decoration: its failure leaves the cell empty, the page intact
    } finally {
      pending.delete(v.vault_id);
    }
  }
  function place(v: Vault, values: (number | null)[]): void {
    sparks.set(v.vault_id, values);
    for (const cell of section.querySelectorAll<HTMLElement>(`[data-spark="${CSS.escape(v.vault_id)}"]`)) {
      cell.replaceChildren(sparkline(values, `${v.name}: 7-day APY, last ${SPARK_DAYS} days`));
    }
  }

  const table = dataTable<Vault>({
    id: 'vaults',
    caption: 'Vaults, sortable by each column',
    columns,
    rowId: (v) => v.vault_id,
    idAttribute: 'data-vault-id',
    sort: { key: 'tvl', dir: 'desc' },
    empty: 'No vault matches the filter.',
    onRender: (made) => {
      observer.disconnect();
      for (const { row, tr } of made) {
        if (sparks.has(row.vault_id)) continue;
        const cell = tr.querySelector<HTMLElement>('[data-spark]');
        if (cell) observer.observe(cell);
      }
    },
  });

  const render = () => {
    const q = filter.value.trim().toLowerCase();
    const source = hidden.checked && all ? all : listed;
    const shown = source.filter(
      (v) =>
        !q ||
        `${v.name} ${v.symbol} ${chains.name(v.chain_id)} ${familyName(v.vault_type)} ${v.vault_type} ${v.strategy?.name ?? ''}`.toLowerCase().includes(q),
    );
    const hiddenCount = shown.filter((v) => !visible.has(v.vault_id)).length;
    count.textContent = `${shown.length} vault${shown.length === 1 ? '' : 's'}${hiddenCount ? `, ${hiddenCount} hidden` : ''}`;
    table.setRows(shown);
  };
  filter.addEventListener('input', render);
  hidden.addEventListener('change', async () => {
    if (hidden.checked && all === null) {
      hidden.disabled = true;
      try {
        all = (await api.vaults({ limit: 1000, includeHidden: true })).data;
      } catch {
        hidden.checked = false;
      } finally {
        hidden.disabled = false;
      }
    }
    render();
  });
  show(
    section,
    el('h2', { id: 'vaults-title' }, 'All vaults'),
    el('div', { class: 'controls' }, filter, el('label', { class: 'check' }, hidden, ' Show hidden vaults'), count),
    el('div', { class: 'table-wrap' }, table.element),
  );
  render();
}
