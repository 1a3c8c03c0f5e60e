// The wallet page's async requests (DESIGN §11.8, `/v1/users/{w}/requests`): each deposit or
// redeem with its state, amount, deadline and solver tip, and whether it can be refunded; live
// on the feed's `wallet:{address}` topic (§11.7), so a pending request turns settled, refunded
// or expired in place. Kept apart from wallet.ts, which only wires it in.
import type { VaultdClient } from '../../client/createClient.js';
import type { RequestItem, VaultDetail } from '../../client/types.gen.js';
import { el, num } from '../dom.js';
import { explain } from '../explain.js';
import { age, duration, timestamp, token, tokenExact } from '../format.js';
import { dataTable } from '../table.js';

const PAGE = 50;
const KIND: Record<RequestItem['type'], string> = { deposit: 'Deposit', redeem: 'Redeem' };
const ORDER: RequestItem['status'][] = ['pending', 'expired', 'settled', 'refunded'];

export interface RequestsContext {
  api: VaultdClient;
  wallet: string;
  /** ?as_of=…: the requests as the API answered at that instant, and no live updates */
  asOf: string | undefined;
  vault: (vaultId: string) => VaultDetail | undefined;
  /** the vault's name, linked, with its chain (the positions table's cell) */
  vaultCell: (vaultId: string) => HTMLElement;
}

export interface RequestsSection {
  element: HTMLElement;
  /** the first page (awaited by the page before it is ready) */
  loaded: Promise<void>;
}

/**
 * "Now" of the data: an unresolved request's age runs to the newest data known (with as_of, known
 * then), so its deadline is compared with that, not with this browser's clock (a demo world
 * running ahead, a view of the past).
 */
const dataNowMs = (r: RequestItem) => Date.parse(r.requested.timestamp) + r.age_seconds * 1000;

function deadlineCell(r: RequestItem): HTMLElement {
  if (r.deadline === null) return el('span', { class: 'muted', title: 'no deadline in the request event' }, '—');
  const note =
    r.status === 'pending'
      ? `${age(r.deadline, dataNowMs(r)).replace(/^in /, '')} left`
      : r.status === 'expired'
        ? `passed ${age(r.deadline, dataNowMs(r))}`
        : r.resolved !== null && Date.parse(r.deadline) > Date.parse(r.resolved.timestamp)
          ? `${r.status} ${age(r.deadline, Date.parse(r.resolved.timestamp)).replace(/^in /, '')} before`
          : '';
  return el(
    'span',
    { class: 'when' },
    el('time', { datetime: r.deadline }, timestamp(r.deadline)),
    note && !note.startsWith('just now') ? el('span', { class: 'sub' }, note) : null,
  );
}

function statusCell(r: RequestItem): HTMLElement {
  return el(
    'span',
    { class: 'request-status' },
    el('span', { class: `badge ${r.status === 'expired' ? 'warn' : r.status}`, 'data-status': r.status }, r.status),
    r.refundable ? el('span', { class: 'badge refundable', title: 'past its deadline and unresolved: the wallet can take it back' }, 'refundable') : null,
    r.resolved ? el('span', { class: 'sub' }, timestamp(r.resolved.timestamp)) : null,
  );
}

export function requestsSection(ctx: RequestsContext): RequestsSection {
  const items = new Map<string, RequestItem>();
  let next: string | null = null;
  const count = el('p', { id: 'requests-count', class: 'muted', 'aria-live': 'polite' });
  const holder = el('div', { class: 'table-wrap' });
  const more = el('button', { id: 'more-requests', type: 'button', hidden: '' }, 'Load older requests');
  const element = el('section', { id: 'requests', 'aria-labelledby': 'requests-title' }, el('h2', { id: 'requests-title' }, 'Requests'), count, holder, more);
  const unit = (r: RequestItem) => {
    const t = ctx.vault(r.vault_id)?.numeraire_token;
    return { sym: t?.symbol ?? null, dec: t?.decimals ?? 18 };
  };
  const table = dataTable<RequestItem>({
    id: 'request-table',
    caption: 'Async requests: state, amount, deadline and solver tip',
    rowId: (r) => r.request_hash,
    idAttribute: 'data-request-hash',
    sort: { key: 'requested', dir: 'desc' },
    empty: 'No async requests.',
    onRender: (rows) => {
      for (const { row, tr } of rows) tr.setAttribute('data-status', row.status);
    },
    columns: [
      {
        key: 'requested',
        label: 'Requested',
        // its age: to its resolution, or (unresolved) to the newest data known
        cell: (r) =>
          el(
            'span',
            { class: 'when' },
            el('time', { datetime: r.requested.timestamp }, timestamp(r.requested.timestamp)),
            el('span', { class: 'sub' }, `${r.resolved === null ? 'open for' : 'resolved after'} ${duration(r.age_seconds)}`),
          ),
        sort: (r) => r.requested.timestamp,
      },
      { key: 'vault', label: 'Vault', priority: 'key', cell: (r) => ctx.vaultCell(r.vault_id) },
      { key: 'kind', label: 'Kind', cell: (r) => KIND[r.type], sort: (r) => r.type },
      { key: 'status', label: 'Status', cell: statusCell, sort: (r) => ORDER.indexOf(r.status) },
      {
        key: 'amount',
        label: 'Amount',
        numeric: true,
        title: 'A deposit’s assets, a redeem’s shares',
        cell: (r) =>
          r.type === 'deposit'
            ? num(token(r.amount, unit(r).sym, unit(r).dec), tokenExact(r.amount, unit(r).sym))
            : num(token(r.amount, 'shares', 18), tokenExact(r.amount, 'shares')),
      },
      { key: 'deadline', label: 'Deadline', cell: deadlineCell, sort: (r) => r.deadline },
      {
        key: 'solver_tip',
        label: 'Solver tip',
        numeric: true,
        priority: 'low',
        cell: (r) =>
          r.solver_tip === null
            ? el('span', { class: 'muted' }, '—')
            : num(token(r.solver_tip, unit(r).sym, unit(r).dec), tokenExact(r.solver_tip, unit(r).sym)),
      },
    ],
  });
  holder.append(table.element);

  const render = () => {
    const all = [...items.values()];
    const by = (s: RequestItem['status']) => all.filter((r) => r.status === s).length;
    const refundable = all.filter((r) => r.refundable).length;
    const parts = ORDER.map((s) => [s, by(s)] as const)
      .filter(([, n]) => n > 0)
      .map(([s, n]) => `${n} ${s}`);
    count.textContent =
      all.length === 0
        ? ''
        : `${parts.join(', ')}${refundable ? ` (${refundable} refundable)` : ''}; newest first${next === null ? '' : ', older ones below'}${ctx.asOf === undefined ? '' : ` as of ${timestamp(ctx.asOf)}`}`;
    more.hidden = next === null;
    table.setRows(all);
  };
  const load = async (cursor: string | undefined) => {
    const page = await ctx.api.requests(ctx.wallet, { limit: PAGE, includeHidden: true, next: cursor, asOf: ctx.asOf });
    for (const r of page.data) if (!items.has(r.request_hash)) items.set(r.request_hash, r);
    next = page.meta.next_cursor ?? null;
    render();
  };
  more.addEventListener('click', async () => {
    if (next === null) return;
    more.disabled = true;
    try {
      await load(next);
    } finally {
      more.disabled = false;
    }
  });
  const loaded = load(undefined).then(
    () => {
      if (ctx.asOf === undefined) live(ctx, element, items, render);
    },
    (err: unknown) => void holder.replaceChildren(el('p', { class: 'error' }, explain(err))),
  );
  return { element, loaded };
}

/**
 * Every `wallet.request` message (a new request, or one that left pending) replaces that request
 * in place; a resync refetches the first page. Without a feed the list stays as loaded.
 */
function live(ctx: RequestsContext, section: HTMLElement, items: Map<string, RequestItem>, render: () => void): void {
  let stream: ReturnType<VaultdClient['stream']>;
  try {
    stream = ctx.api.stream({ topics: [`wallet:${ctx.wallet}`] });
  } catch {
    return;
  }
  stream.on('message', (msg) => {
    if (msg.kind !== 'wallet.request') return;
    const r = msg.data as RequestItem;
    items.set(r.request_hash, r);
    section.setAttribute('data-generation', String(msg.generation));
    render();
  });
  stream.on('resync', () => {
    ctx.api.requests(ctx.wallet, { limit: PAGE, includeHidden: true }).then(
      (page) => {
        for (const r of page.data) items.set(r.request_hash, r);
        render();
      },
      () => undefined,
    );
  });
  stream.on('error', () => undefined);
  addEventListener('pagehide', () => stream.close(), { once: true });
}
