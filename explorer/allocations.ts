// A vault's allocations: a stacked bar of the shares and a table that keeps each target's
// share apart from the market's own parameters (a Morpho market's name ends with its LLTV,
// "Morpho Blue sUSDe/USDC 94.5%": that 94.5 % is the market's, not the vault's share).
import type { Allocation, VaultAllocations } from '../client/types.gen.js';
import type { Chains } from './chains.js';
import { addressLink, el, num, when } from './dom.js';
import { percent, token, tokenExact, usd, usdExact } from './format.js';
import { dataTable } from './table.js';

/** "Morpho Blue sUSDe/USDC 94.5%" of a morpho_market → name without the LLTV, and the LLTV. */
export function splitMarket(a: Allocation): { name: string; lltv: string | null } {
  const name = a.target.name ?? a.target.symbol;
  const m = a.target.strategy_type === 'morpho_market' ? /^(.*\S)\s+(\d+(?:\.\d+)?)%$/.exec(name) : null;
  return m ? { name: m[1]!, lltv: `${m[2]} %` } : { name, lltv: null };
}

const FLOW: Record<string, string> = { pending_deposit: 'pending deposit', pending_redemption: 'pending redemption' };

export interface AllocationContext {
  chains: Chains;
  symbol: string | null;
  decimals: number;
  usdPrice: number | null;
  nowMs: number;
}

export function allocationsSection(data: VaultAllocations, ctx: AllocationContext): HTMLElement {
  // largest first, in the bar and the table alike (the colours pair them)
  const items = [...data.allocations].sort((a, b) => b.allocation - a.allocation);
  const section = el('section', { id: 'allocations-section', 'aria-labelledby': 'alloc-title' }, el('h2', { id: 'alloc-title' }, 'Allocations'));
  if (items.length === 0) {
    section.append(el('p', { class: 'empty' }, 'No allocations reported.'));
    return section;
  }
  section.append(el('p', { class: 'muted' }, 'As of ', when(data.as_of, ctx.nowMs)));
  // the bar: one segment per target, in the table's order, widths by share
  const bar = el('div', { class: 'alloc-bar', role: 'img', 'aria-label': items.map((a) => `${splitMarket(a).name} ${percent(a.allocation)}`).join(', ') });
  items.forEach((a, i) => {
    const seg = el('span', { class: `seg c${i % 8}${a.target.flow ? ' pending' : ''}`, title: `${splitMarket(a).name}: ${percent(a.allocation)}` });
    seg.style.width = `${Math.max(0, Math.min(100, a.allocation * 100)).toFixed(2)}%`;
    bar.append(seg);
  });
  const table = dataTable<Allocation & { i: number }>({
    id: 'allocations',
    caption: 'Allocations: share of the vault, amount, and the market parameters',
    rowId: (a) => `${a.target.address}:${a.i}`,
    sort: { key: 'share', dir: 'desc' },
    columns: [
      {
        key: 'target',
        label: 'Target',
        priority: 'key',
        cell: (a) =>
          el(
            'span',
            { class: 'vault-name' },
            el('i', { class: `swatch c${a.i % 8}`, 'aria-hidden': 'true' }),
            addressLink(ctx.chains, a.target.chain_id, a.target.address, splitMarket(a).name),
            a.target.flow ? el('span', { class: 'badge pending' }, FLOW[a.target.flow.kind] ?? a.target.flow.kind) : null,
          ),
        sort: (a) => splitMarket(a).name,
      },
      {
        key: 'protocol',
        label: 'Protocol',
        priority: 'low',
        cell: (a) => a.target.protocol?.name ?? a.category,
        sort: (a) => a.target.protocol?.name ?? a.category,
      },
      { key: 'params', label: 'Market', cell: (a) => (splitMarket(a).lltv ? `LLTV ${splitMarket(a).lltv}` : '—'), title: 'Parameters of the market itself' },
      { key: 'share', label: 'Share', numeric: true, cell: (a) => percent(a.allocation), sort: (a) => a.allocation },
      {
        key: 'amount',
        label: 'Amount',
        numeric: true,
        priority: 'low',
        cell: (a) => {
          const s = a.amount.toFixed(Math.min(ctx.decimals, 8));
          return num(token(s, ctx.symbol, ctx.decimals, ctx.usdPrice), tokenExact(String(a.amount), ctx.symbol));
        },
        sort: (a) => a.amount,
      },
      {
        key: 'usd',
        label: 'USD',
        numeric: true,
        cell: (a) =>
          a.amount_usd === null ? el('span', { class: 'muted' }, 'no USD price') : num(usd(a.amount_usd.toFixed(2)), usdExact(String(a.amount_usd))),
        sort: (a) => a.amount_usd,
      },
    ],
  });
  table.setRows(items.map((a, i) => ({ ...a, i })));
  section.append(bar, el('div', { class: 'table-wrap' }, table.element));
  return section;
}
