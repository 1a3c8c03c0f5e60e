// A data table: semantic <table> with scoped headers, sortable columns (a button in each
// sortable header, so Tab and Enter work; `aria-sort` says the order), numbers aligned right,
// and on phones a list of cards (every cell labelled by its column; `low` columns hidden) so
// the figures people open the page for never sit off-screen.
import { el, type Child } from './dom.js';

export type SortKey = number | string | null;

export interface Column<R> {
  /** `data-col` of the cells */
  key: string;
  label: string;
  cell: (row: R) => Child;
  /** sorting by this column; null values always sort last */
  sort?: (row: R) => SortKey;
  numeric?: boolean;
  /** `key`: spans the card on phones (the row's name); `low`: hidden on phones */
  priority?: 'key' | 'low';
  /** a header tooltip */
  title?: string;
}

export interface TableOptions<R> {
  id: string;
  caption: string;
  columns: Column<R>[];
  rowId: (row: R) => string;
  /** the row attribute that carries `rowId` (default `data-id`) */
  idAttribute?: string;
  /** initial order */
  sort?: { key: string; dir: 'asc' | 'desc' };
  /** shown instead of an empty body */
  empty?: string;
  /** called after every render (sparklines attach to new rows) */
  onRender?: (rows: { row: R; tr: HTMLTableRowElement }[]) => void;
}

export interface DataTable<R> {
  element: HTMLTableElement;
  /** new rows, same order settings */
  setRows(rows: readonly R[]): void;
}

function compare(a: SortKey, b: SortKey, dir: 1 | -1): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return (a - b) * dir;
  return String(a).localeCompare(String(b), 'en') * dir;
}

export function dataTable<R>(options: TableOptions<R>): DataTable<R> {
  const { columns } = options;
  let rows: readonly R[] = [];
  let sort = options.sort ?? null;
  const head = el('tr');
  const body = el('tbody');
  const table = el('table', { id: options.id, class: 'data' }, el('caption', { class: 'visually-hidden' }, options.caption), el('thead', {}, head), body);

  const headers = columns.map((c) => {
    const th = el('th', {
      scope: 'col',
      'data-col': c.key,
      class: [c.numeric ? 'numeric' : '', c.priority ? `p-${c.priority}` : ''].join(' ').trim() || undefined,
      title: c.title,
    });
    if (c.sort) {
      const button = el('button', { type: 'button', class: 'sort' }, c.label, el('span', { class: 'sort-icon', 'aria-hidden': 'true' }));
      button.addEventListener('click', () => {
        // numbers start from the largest, text from A
        const first = c.numeric ? 'desc' : 'asc';
        sort = sort?.key === c.key ? { key: c.key, dir: sort.dir === 'asc' ? 'desc' : 'asc' } : { key: c.key, dir: first };
        render();
        button.focus();
      });
      th.append(button);
    } else th.append(c.label);
    head.append(th);
    return th;
  });

  function render(): void {
    const col = sort ? columns.find((c) => c.key === sort!.key) : undefined;
    const dir = sort?.dir === 'asc' ? 1 : -1;
    const shown = col?.sort ? [...rows].sort((a, b) => compare(col.sort!(a), col.sort!(b), dir) || (options.rowId(a) < options.rowId(b) ? -1 : 1)) : [...rows];
    headers.forEach((th, i) => {
      const c = columns[i]!;
      if (!c.sort) return;
      th.setAttribute('aria-sort', sort?.key === c.key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none');
    });
    const made = shown.map((row) => {
      const tr = el('tr', { [options.idAttribute ?? 'data-id']: options.rowId(row) });
      for (const c of columns) {
        tr.append(
          el(
            'td',
            {
              'data-col': c.key,
              'data-label': c.label,
              class: [c.numeric ? 'numeric' : '', c.priority ? `p-${c.priority}` : ''].join(' ').trim() || undefined,
            },
            c.cell(row),
          ),
        );
      }
      return { row, tr };
    });
    if (made.length === 0 && options.empty)
      body.replaceChildren(el('tr', { class: 'empty-row' }, el('td', { colspan: String(columns.length) }, options.empty)));
    else body.replaceChildren(...made.map((m) => m.tr));
    options.onRender?.(made);
  }

  return {
    element: table,
    setRows(next) {
      rows = next;
      render();
    },
  };
}
