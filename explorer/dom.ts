// Small DOM helpers every page uses: element building, numbers with their exact value as a
// title, chain marks (an inline SVG circle with letters, nothing fetched) and block explorer
// links. No innerHTML anywhere: text from the API is only ever set as text.
import type { Chains } from './chains.js';
import { age, shortAddress, timestamp } from './format.js';

export type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) e.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

export function $<T extends HTMLElement = HTMLElement>(selector: string): T {
  return document.querySelector<T>(selector)!;
}

export function show(target: HTMLElement, ...nodes: Child[]): void {
  target.replaceChildren(...(nodes.filter((n) => n !== null && n !== undefined && n !== false) as (Node | string)[]));
}

/** A figure as shown, with the exact one as its title (and for the tests, `data-exact`). */
export function num(shown: string, exact: string, cls = 'num'): HTMLSpanElement {
  return el('span', { class: cls, title: exact, 'data-exact': exact }, shown);
}

/**
 * The chain's mark: a coloured disc with its letters, drawn by CSS (the letters are generated
 * content, so they are neither read aloud nor copied with the name written beside it).
 */
export function chainMark(chains: Chains, id: number): HTMLSpanElement {
  const c = chains.info(id);
  const mark = el('span', { class: `chain-mark${c.letters.length > 1 ? ' two' : ''}`, 'data-letters': c.letters, 'aria-hidden': 'true' });
  mark.style.backgroundColor = c.color;
  return mark;
}

/** Mark and name of a chain. */
export function chainLabel(chains: Chains, id: number): HTMLSpanElement {
  return el('span', { class: 'chain', 'data-chain-id': String(id) }, chainMark(chains, id), chains.name(id));
}

/** An address as a link to the chain's block explorer (shortened, full in the title), or plain text when the chain has none. */
export function addressLink(chains: Chains, chainId: number, address: string, label?: string): HTMLElement {
  const href = chains.link(chainId, 'address', address);
  const text = label ?? shortAddress(address);
  return href === null
    ? el('code', { class: 'address', title: address }, text)
    : el('a', { class: label ? 'address named' : 'address', href, title: `${address} on ${chains.name(chainId)}'s block explorer`, rel: 'noreferrer' }, text);
}

export function txLink(chains: Chains, chainId: number, hash: string): HTMLElement {
  const href = chains.link(chainId, 'tx', hash);
  return href === null
    ? el('code', { class: 'address', title: hash }, shortAddress(hash))
    : el('a', { class: 'address', href, title: `transaction ${hash}`, rel: 'noreferrer' }, shortAddress(hash));
}

/** A timestamp with its age beside it: "2026-06-01 00:00 UTC · 180 d ago". */
export function when(at: number | string | null, nowMs = Date.now()): HTMLElement {
  if (at === null) return el('span', { class: 'muted' }, 'not read yet');
  return el(
    'span',
    { class: 'when' },
    el('time', { datetime: new Date(typeof at === 'number' ? at * 1000 : at).toISOString() }, timestamp(at)),
    el('span', { class: 'age' }, ` · ${age(at, nowMs)}`),
  );
}

/** A labelled figure of a summary strip: `<div class="stat"><dt>label</dt><dd>value</dd></div>`. */
export function stat(label: string, value: Child, note?: Child, attrs: Record<string, string> = {}): HTMLDivElement {
  return el('div', { class: 'stat', ...attrs }, el('dt', {}, label), el('dd', {}, value), note ? el('dd', { class: 'note' }, note) : null);
}
