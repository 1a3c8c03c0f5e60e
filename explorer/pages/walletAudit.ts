// The wallet page's audit detail (DESIGN §11.4, §11.5) for one position at a time: the
// time-weighted return beside the money-weighted one (include=returns), and the FIFO lots
// (every acquisition, what is still open, what was disposed of and realized), with the open
// shares summed exactly. Kept apart from wallet.ts, which only wires it in.
import { add, dec, format, ZERO } from '../../client/decimal.js';
import type { VaultdClient } from '../../client/createClient.js';
import type { Lot, Position, PositionReturns } from '../../client/types.gen.js';
import { el, num, stat } from '../dom.js';
import { explain } from '../explain.js';
import { percentOf, timestamp, token, tokenExact, usd, usdExact } from '../format.js';
import { dataTable } from '../table.js';

export interface AuditContext {
  api: VaultdClient;
  wallet: string;
  /** a vault's name for the select */
  name: (vaultId: string) => string;
}

const ACQUIRED: Record<Lot['acquired']['type'], string> = { deposit: 'Deposit', transfer_in: 'Transfer in' };

/** A USD / token percent pair as the positions table shows ROI: USD first, the token's under it. */
function legs(p: { native: number | null; usd: number | null }, sym: string): HTMLElement {
  return el(
    'span',
    { class: 'pair' },
    el('span', { 'data-leg': 'usd' }, percentOf(p.usd)),
    el('span', { class: 'sub', 'data-leg': 'native' }, `${percentOf(p.native)} in ${sym}`),
  );
}

function returnsList(r: PositionReturns, sym: string): HTMLElement {
  const days = r.period.days;
  return el(
    'dl',
    { id: 'returns', class: 'stats' },
    stat('Time-weighted return', legs(r.twr_pct, sym), 'the share price’s growth while held (= ROI)', { 'data-stat': 'twr' }),
    stat('TWR, annualized', legs(r.twr_annualized_pct, sym), days === null || days < 1 ? 'needs a day of history' : null, { 'data-stat': 'twr_annualized' }),
    stat('Money-weighted return, annualized', legs(r.mwr_annualized_pct, sym), 'the IRR of this wallet’s own deposits and withdrawals', {
      'data-stat': 'mwr_annualized',
    }),
    stat(
      'Net invested',
      r.net_invested.usd === null ? el('span', { class: 'muted' }, 'no USD price') : num(usd(r.net_invested.usd), usdExact(r.net_invested.usd)),
      `${timestamp(r.period.start)} – ${timestamp(r.period.end)}`,
      { 'data-stat': 'net_invested' },
    ),
  );
}

function lotsTable(lots: Lot[], sym: string, decimals: number): HTMLElement {
  const amount = (a: { native: string; usd: string | null }) =>
    el(
      'span',
      { class: 'pair' },
      a.usd === null ? el('span', { class: 'muted' }, 'no USD price') : num(usd(a.usd), usdExact(a.usd)),
      el('span', { class: 'sub' }, num(token(a.native, sym, decimals), tokenExact(a.native, sym))),
    );
  const table = dataTable<Lot>({
    id: 'lots',
    caption: 'FIFO lots: each acquisition, its open shares and cost, and its disposals',
    rowId: (l) => l.lot_id,
    idAttribute: 'data-lot-id',
    sort: { key: 'acquired', dir: 'asc' },
    columns: [
      {
        key: 'acquired',
        label: 'Acquired',
        priority: 'key',
        cell: (l) => el('span', {}, ACQUIRED[l.acquired.type], el('span', { class: 'sub' }, timestamp(l.acquired.timestamp))),
        sort: (l) => Date.parse(l.acquired.timestamp),
      },
      { key: 'shares_acquired', label: 'Shares', numeric: true, priority: 'low', cell: (l) => num(token(l.shares_acquired, null, 18), l.shares_acquired) },
      {
        key: 'shares_open',
        label: 'Open shares',
        numeric: true,
        cell: (l) => num(token(l.shares_open, null, 18), l.shares_open),
        sort: (l) => Number(l.shares_open),
      },
      { key: 'cost_open', label: 'Open cost', numeric: true, cell: (l) => amount(l.cost_open) },
      { key: 'unit_cost', label: 'Unit cost', numeric: true, priority: 'low', cell: (l) => amount(l.unit_cost) },
      {
        key: 'disposals',
        label: 'Disposals',
        numeric: true,
        priority: 'low',
        cell: (l) => {
          const realized = l.disposals.reduce((s, d) => add(s, dec(d.realized.native)), ZERO);
          return l.disposals.length === 0
            ? '—'
            : el('span', {}, String(l.disposals.length), el('span', { class: 'sub' }, `realized ${token(format(realized), sym, decimals)}`));
        },
        sort: (l) => l.disposals.length,
      },
    ],
  });
  table.setRows(lots);
  return el('div', { class: 'table-wrap' }, table.element);
}

/** Renders the audit of `vaultId` into `body`: returns first, then every lot (all pages). */
async function drawAudit(body: HTMLElement, p: Position, ctx: AuditContext): Promise<void> {
  const sym = p.numeraire_token?.symbol ?? 'token';
  const decimals = p.numeraire_token?.decimals ?? 18;
  const [one, lots] = await Promise.all([
    ctx.api.position(ctx.wallet, p.vault_id, { include: ['returns'] }),
    (async () => {
      const out: Lot[] = [];
      for await (const lot of ctx.api.iterate.lots(ctx.wallet, p.vault_id, { limit: 500 })) out.push(lot);
      return out;
    })(),
  ]);
  const open = lots.reduce((s, l) => add(s, dec(l.shares_open)), ZERO);
  const returns = one.data.returns;
  body.replaceChildren(
    returns ? returnsList(returns, sym) : el('p', { class: 'muted' }, 'No returns for this position.'),
    el(
      'p',
      { id: 'lots-summary' },
      `${lots.length} lot${lots.length === 1 ? '' : 's'}, `,
      el('span', { id: 'lots-open' }, format(open)),
      ' shares open (owned and escrowed in redemption requests).',
    ),
    lots.length === 0 ? '' : lotsTable(lots, sym, decimals),
  );
}

/** The section: a position select (largest value first, like the chart) and its audit. */
export async function positionAuditSection(section: HTMLElement, positions: readonly Position[], ctx: AuditContext): Promise<void> {
  if (positions.length === 0) return;
  const usdValue = (p: Position) => (p.metrics.value.usd === null ? -Infinity : Number(p.metrics.value.usd));
  const sorted = [...positions].sort((a, b) => usdValue(b) - usdValue(a));
  const select = el('select', { id: 'audit-select', 'aria-label': 'Position to audit' });
  for (const p of sorted) select.append(el('option', { value: p.vault_id }, ctx.name(p.vault_id)));
  const body = el('div', { id: 'audit-body' });
  section.append(el('h2', { id: 'audit-title' }, 'Returns and FIFO lots'), el('div', { class: 'controls' }, el('label', {}, 'Position ', select)), body);
  const draw = (id: string) => drawAudit(body, sorted.find((p) => p.vault_id === id)!, ctx);
  select.addEventListener('change', () => {
    document.body.removeAttribute('data-audit-ready');
    void draw(select.value)
      .catch((err: unknown) => body.replaceChildren(el('p', { class: 'error' }, explain(err))))
      .finally(() => document.body.setAttribute('data-audit-ready', select.value));
  });
  await draw(sorted[0]!.vault_id);
  document.body.setAttribute('data-audit-ready', sorted[0]!.vault_id);
}
