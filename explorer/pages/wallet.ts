// `/wallets/{address}`: a wallet's portfolio for people: totals in USD (summed exactly), every
// position by its vault's name with value, cost basis, PnL and ROI, a chart of any position,
// the async requests with their deadlines (live: walletRequests.ts), and the activity as flows
// (request → settled / refunded / pending), paged, with USD amounts at the time of each flow.
import { activityFlows, type Flow } from '../../client/activityFlows.js';
import type { VaultdClient } from '../../client/createClient.js';
import type { ActivityRow, AmountPair, Position, PositionTimeseriesPoint, PricePoint, VaultDetail } from '../../client/types.gen.js';
import { client } from '../api.js';
import { asOfFromUrl, asOfPicker } from '../asOf.js';
import { createBudget, type Budget } from '../budget.js';
import type { Chains } from '../chains.js';
import { axisNumber, axisUsd, lineChart } from '../charts.js';
import { chainLabel, el, num, show, stat, txLink, when } from '../dom.js';
import { familyName } from '../families.js';
import { impliedPrice, percentOf, shortAddress, timestamp, token, tokenExact, usd, usdExact } from '../format.js';
import { portfolio, type UsdTotal } from '../portfolio.js';
import { knownChains } from '../session.js';
import { dataTable } from '../table.js';
import { positionAuditSection } from './walletAudit.js';
import { requestsSection } from './walletRequests.js';

const ACTIVITY_PAGE = 100;
const PRICE_RESERVE = 20;

const KIND: Record<Flow['kind'], string> = { deposit: 'Deposit', withdraw: 'Withdrawal', transfer_in: 'Transfer in', transfer_out: 'Transfer out' };
const STEP: Record<ActivityRow['type'], string> = {
  deposit: 'deposited',
  deposit_pending: 'requested',
  deposit_refunded: 'refunded',
  withdraw: 'withdrawn',
  withdraw_pending: 'requested',
  withdraw_refunded: 'refunded',
  transfer_in: 'received',
  transfer_out: 'sent',
};

interface Ctx {
  api: VaultdClient;
  chains: Chains;
  vaults: Map<string, VaultDetail>;
  nowMs: number;
  wallet: string;
  /** ?as_of=…: positions, activity and charts as the API answered at that instant (DESIGN §11.6) */
  asOf: string | undefined;
}

export async function walletPage(main: HTMLElement): Promise<void> {
  const wallet = decodeURIComponent(location.pathname.slice('/wallets/'.length)).toLowerCase();
  const api = client();
  const asOf = asOfFromUrl();
  const nowMs = asOf === undefined ? Date.now() : Date.parse(asOf);
  const [positions, activity, list] = await Promise.all([
    (async () => {
      const out: Position[] = [];
      for await (const p of api.iterate.positions(wallet, { includeHidden: true, limit: 500, asOf })) out.push(p);
      return out;
    })(),
    api.withResponse.activity(wallet, { limit: ACTIVITY_PAGE, includeHidden: true, asOf }),
    // names of every vault a position or a flow may point at, hidden ones included
    api.vaults({ limit: 1000, includeHidden: true }).catch(() => null),
  ]);
  document.title = `Wallet ${shortAddress(wallet)} · vaultd`;
  const heading = el('h1', {}, 'Wallet ', el('code', { class: 'wallet-address' }, wallet));
  if (positions.length === 0 && activity.body.data.length === 0) {
    const by = asOf === undefined ? '' : ` as of ${asOf}`;
    show(main, heading, asOfPicker(asOf), el('p', { class: 'empty', id: 'empty' }, `No positions or activity for ${wallet}${by}.`));
    return;
  }
  const ctx: Ctx = { api, chains: knownChains(), vaults: new Map((list?.data ?? []).map((v) => [v.vault_id, v])), nowMs, wallet, asOf };
  const budget = createBudget({ concurrency: 2, reserve: PRICE_RESERVE, remaining: activity.response.rateLimit?.remaining ?? null });
  const chart = el('section', { id: 'position-chart', 'aria-labelledby': 'chart-title' });
  const flows = el('section', { id: 'activity', 'aria-labelledby': 'activity-title' });
  const audit = el('section', { id: 'position-audit', 'aria-labelledby': 'audit-title' });
  const requests = requestsSection({ api, wallet, asOf, vault: (id) => ctx.vaults.get(id), vaultCell: (id) => vaultCell(ctx, id) });
  show(
    main,
    heading,
    asOfPicker(asOf),
    summary(positions, ctx),
    el('section', { 'aria-labelledby': 'positions-title' }, el('h2', { id: 'positions-title' }, 'Positions'), positionsTable(positions, ctx)),
    chart,
    audit,
    requests.element,
    flows,
  );
  await requests.loaded;
  await positionChart(chart, positions, ctx);
  activitySection(flows, activity.body.data, activity.body.meta.next_cursor, ctx, budget);
  // returns and lots are made from the latest data (the API answers them without as_of only)
  if (asOf === undefined) await positionAuditSection(audit, positions, { api, wallet, name: (id) => vaultName(ctx, id) });
  else if (positions.length > 0)
    audit.append(
      el('h2', { id: 'audit-title' }, 'Returns and FIFO lots'),
      el('p', { class: 'quality-note' }, 'Shown for the latest data: choose Live to see them.'),
    );
}

const vaultName = (ctx: Ctx, id: string) => ctx.vaults.get(id)?.name ?? id;
const chainOf = (id: string) => Number(id.split(':')[0]);

function vaultCell(ctx: Ctx, id: string): HTMLElement {
  const v = ctx.vaults.get(id);
  return el(
    'span',
    { class: 'vault-name' },
    el('a', { href: `/vaults/${encodeURIComponent(id)}${ctx.asOf ? `?as_of=${ctx.asOf}` : ''}`, title: id }, vaultName(ctx, id)),
    el('span', { class: 'sub' }, chainLabel(ctx.chains, chainOf(id)), v ? ` · ${familyName(v.vault_type)}` : ''),
  );
}

function totalFigure(t: UsdTotal, ctx: Ctx, what: string): { value: HTMLElement; note: HTMLElement | null } {
  const value = t.usd === null ? el('span', { class: 'muted' }, '—') : num(usd(t.usd), usdExact(t.usd), 'big num');
  const note =
    t.missing.length === 0
      ? null
      : el('span', {}, `${t.usd === null ? 'Unknown' : 'Leaves out'} ${t.missing.map((id) => vaultName(ctx, id)).join(', ')}: no USD ${what}.`);
  return { value, note };
}

function summary(positions: Position[], ctx: Ctx): HTMLElement {
  const p = portfolio(positions);
  const value = totalFigure(p.value, ctx, 'price');
  const cost = totalFigure(p.costBasis, ctx, 'cost for every event');
  const pnl = totalFigure(p.pnl, ctx, 'cost for every event');
  const pending = [p.pendingDeposits ? `${p.pendingDeposits} deposit` : '', p.pendingRedemptions ? `${p.pendingRedemptions} redemption` : '']
    .filter(Boolean)
    .join(', ');
  return el(
    'section',
    { 'aria-labelledby': 'portfolio-title' },
    el('h2', { id: 'portfolio-title', class: 'visually-hidden' }, 'Portfolio'),
    el(
      'dl',
      { id: 'portfolio', class: 'stats' },
      stat('Value', value.value, value.note, { 'data-stat': 'value' }),
      stat('Cost basis', cost.value, cost.note, { 'data-stat': 'cost_basis' }),
      stat('PnL', pnl.value, pnl.note, { 'data-stat': 'pnl', class: `stat ${signClass(p.pnl.usd)}` }),
      stat('Return on cost', p.returnOnCostPct === null ? '—' : `${p.returnOnCostPct} %`, 'PnL ÷ cost basis, in USD', { 'data-stat': 'roc' }),
      stat('Positions', String(p.positions), pending ? `pending: ${pending}` : 'no pending requests', { 'data-stat': 'positions' }),
    ),
  );
}

const signClass = (v: string | null) => (v === null || /^0(\.0*)?$/.test(v) ? '' : v.startsWith('-') ? 'neg' : 'pos');

/** USD first (the figure people compare), the token amount under it. */
function pair(p: AmountPair, sym: string | null, decimals: number, price: number | null, cls = ''): HTMLElement {
  return el(
    'span',
    { class: `pair ${cls}`.trim() },
    p.usd === null ? el('span', { class: 'muted', title: 'no USD price' }, 'no USD price') : num(usd(p.usd), usdExact(p.usd)),
    el('span', { class: 'sub' }, num(token(p.native, sym, decimals, price), tokenExact(p.native, sym))),
  );
}

function positionsTable(positions: Position[], ctx: Ctx): HTMLElement {
  const meta = (p: Position) => ({ sym: p.numeraire_token?.symbol ?? null, dec: p.numeraire_token?.decimals ?? 18, price: impliedPrice(p.metrics.value) });
  const table = dataTable<Position>({
    id: 'positions',
    caption: 'Positions: value, cost basis, PnL and ROI',
    rowId: (p) => p.vault_id,
    idAttribute: 'data-vault-id',
    sort: { key: 'value', dir: 'desc' },
    columns: [
      { key: 'vault', label: 'Vault', priority: 'key', cell: (p) => vaultCell(ctx, p.vault_id), sort: (p) => vaultName(ctx, p.vault_id).toLowerCase() },
      {
        key: 'value',
        label: 'Value',
        numeric: true,
        cell: (p) => pair(p.metrics.value, meta(p).sym, meta(p).dec, meta(p).price),
        sort: (p) => (p.metrics.value.usd === null ? null : Number(p.metrics.value.usd)),
      },
      {
        key: 'cost_basis',
        label: 'Cost basis',
        numeric: true,
        priority: 'low',
        cell: (p) => pair(p.metrics.cost_basis, meta(p).sym, meta(p).dec, meta(p).price),
        sort: (p) => (p.metrics.cost_basis.usd === null ? null : Number(p.metrics.cost_basis.usd)),
      },
      {
        key: 'pnl',
        label: 'PnL',
        numeric: true,
        cell: (p) => pair(p.metrics.pnl.total, meta(p).sym, meta(p).dec, meta(p).price, signClass(p.metrics.pnl.total.usd ?? p.metrics.pnl.total.native)),
        sort: (p) => (p.metrics.pnl.total.usd === null ? null : Number(p.metrics.pnl.total.usd)),
      },
      {
        key: 'roi',
        label: 'ROI',
        numeric: true,
        title: 'Time-weighted return, in USD (in the token when there is no USD price)',
        cell: (p) =>
          p.metrics.roi_pct.usd !== null
            ? percentOf(p.metrics.roi_pct.usd)
            : el(
                'span',
                { title: `in ${meta(p).sym ?? 'the token'}: no USD price` },
                percentOf(p.metrics.roi_pct.native),
                p.metrics.roi_pct.native === null ? '' : ` (${meta(p).sym ?? 'token'})`,
              ),
        sort: (p) => p.metrics.roi_pct.usd ?? p.metrics.roi_pct.native,
      },
      {
        key: 'pending',
        label: 'Pending',
        priority: 'low',
        cell: (p) => {
          const m = p.metrics;
          const parts = [
            /[1-9]/.test(m.pending_deposit_assets.native) ? `deposit ${token(m.pending_deposit_assets.native, meta(p).sym, meta(p).dec, meta(p).price)}` : '',
            /[1-9]/.test(m.pending_redeem_shares) ? `redeem ${token(m.pending_redeem_shares, 'shares', 18)}` : '',
          ].filter(Boolean);
          return parts.length ? parts.join(' · ') : '—';
        },
      },
    ],
  });
  table.setRows(positions);
  return el('div', { class: 'table-wrap' }, table.element);
}

async function positionChart(section: HTMLElement, positions: Position[], ctx: Ctx): Promise<void> {
  if (positions.length === 0) return;
  const select = el('select', { id: 'position-select', 'aria-label': 'Position to chart' });
  // in the table's order: the largest value first
  const usdValue = (p: Position) => (p.metrics.value.usd === null ? -Infinity : Number(p.metrics.value.usd));
  positions = [...positions].sort((a, b) => usdValue(b) - usdValue(a));
  for (const p of positions) select.append(el('option', { value: p.vault_id }, `${vaultName(ctx, p.vault_id)} · ${ctx.chains.name(chainOf(p.vault_id))}`));
  const plot = el('div', { id: 'position-plot' });
  section.append(el('h2', { id: 'chart-title' }, 'Value and PnL'), el('div', { class: 'controls' }, el('label', {}, 'Position ', select)), plot);
  const cache = new Map<string, PositionTimeseriesPoint[]>();
  const draw = async (id: string) => {
    const p = positions.find((x) => x.vault_id === id)!;
    let series = cache.get(id);
    if (!series) {
      series = [];
      for await (const point of ctx.api.iterate.positionTimeseries(ctx.wallet, id, { granularity: 'day', limit: 10_000, asOf: ctx.asOf })) series.push(point);
      cache.set(id, series);
    }
    const xs = series.map((s) => Date.parse(s.timestamp) / 1000);
    const sym = p.numeraire_token?.symbol ?? '';
    const inUsd = series.length > 0 && series.every((s) => s.value.usd !== null && s.pnl.total.usd !== null);
    const f = (s: string | null) => (s === null ? null : Number(s));
    const decimals = p.numeraire_token?.decimals ?? 18;
    const money = inUsd
      ? (x: number | null) => (x === null ? '—' : usd(x.toFixed(2)))
      : (x: number | null) => (x === null ? '—' : token(x.toFixed(Math.min(decimals, 8)), sym, decimals));
    plot.replaceChildren();
    lineChart(plot, {
      title: `${vaultName(ctx, id)} (${inUsd ? 'USD' : sym || 'token'})`,
      xs,
      series: [
        { label: 'Value', values: series.map((s) => f(inUsd ? s.value.usd : s.value.native)), format: money },
        { label: 'PnL', values: series.map((s) => f(inUsd ? s.pnl.total.usd : s.pnl.total.native)), format: money },
      ],
      axis: inUsd ? axisUsd : axisNumber,
      notes: inUsd ? [] : [`No USD price for every day of this position: shown in ${sym || 'the token'}.`],
    });
  };
  select.addEventListener('change', () => {
    document.body.removeAttribute('data-chart-ready');
    void draw(select.value).finally(() => document.body.setAttribute('data-chart-ready', select.value));
  });
  await draw(positions[0]!.vault_id);
  document.body.setAttribute('data-chart-ready', positions[0]!.vault_id);
}

// ---- activity ----

interface PriceSeries {
  points: PricePoint[];
}

function activitySection(section: HTMLElement, first: ActivityRow[], cursor: string | null, ctx: Ctx, budget: Budget): void {
  const rows: ActivityRow[] = [...first];
  let next = cursor;
  // prices by `${chain}:${token}`, each a daily series over the loaded rows' span
  const prices = new Map<string, Promise<PriceSeries | null>>();
  const status = el('p', { id: 'activity-count', class: 'muted', 'aria-live': 'polite' });
  const more = el('button', { id: 'more-activity', type: 'button' }, 'Load older activity');
  const holder = el('div', { class: 'table-wrap' });
  section.append(el('h2', { id: 'activity-title' }, 'Activity'), status, holder, more);

  const priced = new Set<string>();
  for (const v of ctx.vaults.values()) if (v.metrics.tvl.usd !== null) priced.add(`${v.chain_id}:${v.numeraire_token.address.toLowerCase()}`);

  const priceOf = (flowRows: ActivityRow[]): Promise<PriceSeries | null> | null => {
    const t = flowRows[0]!.assets_delta.token;
    const chain = chainOf(flowRows[0]!.vault_id);
    if (!t) return null;
    const key = `${chain}:${t.address.toLowerCase()}`;
    if (!priced.has(key)) return null;
    // one series per token over every row loaded so far (a new page asks again for its span)
    const span = rows.filter((r) => r.assets_delta.token?.address.toLowerCase() === t.address.toLowerCase() && chainOf(r.vault_id) === chain);
    const lo = Math.min(...span.map((r) => r.block_timestamp));
    const hi = Math.max(...span.map((r) => r.block_timestamp));
    const cacheKey = `${key}:${lo}:${hi}`;
    let p = prices.get(cacheKey);
    if (!p) {
      p = budget
        .run(() =>
          ctx.api.withResponse.priceTimeseries({
            chainId: chain,
            address: t.address,
            start: new Date(Math.floor(lo / 86_400) * 86_400 * 1000),
            end: new Date((Math.floor(hi / 86_400) + 1) * 86_400 * 1000),
            granularity: 'day',
            limit: 5000,
          }),
        )
        .then((b) => (b === null ? null : { points: b.data }))
        .catch(() => null);
      prices.set(cacheKey, p);
    }
    return p;
  };

  const render = () => {
    const flows = activityFlows(rows).sort((a, b) => b.rows.at(-1)!.block_timestamp - a.rows.at(-1)!.block_timestamp || (a.id < b.id ? -1 : 1));
    status.textContent = `${flows.length} flow${flows.length === 1 ? '' : 's'} from ${rows.length} events, newest first${next ? '' : ' (all of them)'}`;
    more.hidden = next === null;
    const table = dataTable<Flow<ActivityRow>>({
      id: 'flows',
      caption: 'Activity, grouped as flows',
      rowId: (f) => f.id,
      columns: [
        { key: 'when', label: 'When', cell: (f) => when(f.rows.at(-1)!.block_timestamp, ctx.nowMs) },
        { key: 'vault', label: 'Vault', priority: 'key', cell: (f) => vaultCell(ctx, f.vault_id) },
        {
          key: 'action',
          label: 'Action',
          cell: (f) =>
            el(
              'span',
              {},
              KIND[f.kind],
              ' ',
              el('span', { class: `badge ${f.status}` }, f.status),
              f.rows.length > 1
                ? el('span', { class: 'sub' }, f.rows.map((r) => `${STEP[r.type]} ${timestamp(r.block_timestamp).slice(5, 16)}`).join(' → '))
                : null,
            ),
        },
        {
          key: 'amount',
          label: 'Amount',
          numeric: true,
          cell: (f) => {
            const t = f.net.assets.token;
            const abs = f.net.assets.native.replace(/^-/, '');
            const shares = f.net.shares.replace(/^-/, '');
            return /[1-9]/.test(abs)
              ? num(token(abs, t?.symbol ?? null, t?.decimals ?? 18, knownPrice(ctx, f)), tokenExact(abs, t?.symbol ?? null))
              : el('span', { class: 'muted' }, /[1-9]/.test(shares) ? `${token(shares, 'shares', 18)}` : '—');
          },
        },
        {
          key: 'usd',
          label: 'USD then',
          numeric: true,
          title: 'The amount at the daily USD price of the day of each event',
          cell: (f) => {
            const cell = el('span', { class: 'muted' }, '…');
            // a flow that moved no assets in the end (a pending redemption, a refund) has no USD amount
            if (!/[1-9]/.test(f.net.assets.native)) {
              cell.textContent = '—';
              return cell;
            }
            const series = priceOf(f.rows);
            if (series === null) cell.textContent = 'no USD price';
            else
              void series.then((s) => {
                const v = s === null ? null : usdThen(f.rows, s.points);
                cell.className = v === null ? 'muted' : 'num';
                cell.textContent = v === null ? (s === null ? 'not loaded' : '—') : `≈ ${usd(v.toFixed(2))}`;
                if (s === null) cell.title = 'not loaded, to stay within the request budget';
              });
            return cell;
          },
        },
        { key: 'tx', label: 'Transaction', priority: 'low', cell: (f) => txLink(ctx.chains, chainOf(f.vault_id), f.rows.at(-1)!.tx_hash) },
      ],
    });
    table.setRows(flows);
    holder.replaceChildren(table.element);
  };
  more.addEventListener('click', async () => {
    if (next === null) return;
    more.disabled = true;
    try {
      const page = await ctx.api.withResponse.activity(ctx.wallet, { limit: ACTIVITY_PAGE, includeHidden: true, next, asOf: ctx.asOf });
      budget.observe(page.response.rateLimit?.remaining);
      rows.push(...page.body.data);
      next = page.body.meta.next_cursor;
      render();
    } finally {
      more.disabled = false;
    }
  });
  render();
}

/** The spot price of a flow's vault token, for the amount's precision. */
function knownPrice(ctx: Ctx, f: Flow<ActivityRow>): number | null {
  const v = ctx.vaults.get(f.vault_id);
  return v ? impliedPrice({ native: v.metrics.tvl.native ?? '0', usd: v.metrics.tvl.usd }) : null;
}

/** |Σ assets × the day's price| of a flow's rows; null when a row's day has no price. */
function usdThen(rows: ActivityRow[], points: PricePoint[]): number | null {
  let sum = 0;
  for (const r of rows) {
    const amount = Number(r.assets_delta.native);
    if (amount === 0) continue;
    const ms = r.block_timestamp * 1000;
    let price: number | null = null;
    for (const p of points) {
      if (Date.parse(p.timestamp) <= ms) price = p.price.usd;
      else break;
    }
    if (price === null) return null;
    sum += amount * price;
  }
  return Math.abs(sum);
}
