// Pre-serialized response bodies (DESIGN §1 "publish", §5.7). `meta.request_id` is the LAST
// key of every body, so a page is a constant prefix ending in `"request_id":"` plus the
// constant suffix `"}}`: the server splices the id between them (and, because the variable
// part sits at the end, compressed variants can be spliced too: see server/transport).
import crypto, { createHash } from 'node:crypto';

export const PAGE_SUFFIX = Buffer.from('"}}');

export interface Page {
  /** the body up to and including `"request_id":"` */
  prefix: Buffer;
  /** strong ETag of the body without its request id (DESIGN §5.6) */
  etag: string;
  /**
   * Set on a page of a view of the past (pastView.ts): many, made per instant asked for and
   * short-lived. The server keeps such a page's wire form on it (`wire`) rather than in its map
   * of the snapshot's pages, and sends its identity body as parts (no private copy per page).
   */
  past?: true;
  wire?: object;
}

export interface ListMeta {
  count: number;
  limit: number | null;
  next_cursor: string | null;
  partial_errors: unknown[] | null;
  start?: string | null;
  end?: string | null;
}

/**
 * A snapshot's pages by key, each serialized the first time it is asked for: a publish (and a
 * restart from saved files) no longer serializes and hashes three pages a vault up front (on the
 * benchmark world's 1,000 vaults that and its garbage held the serving thread ~250 ms at every
 * publish: a restart's publish step went from ~320 to ~70 ms). A page is built
 * once and kept, so every request of the snapshot gets the same object (its wire variants are
 * keyed by it). Keys keep the order they were defined in.
 */
export class PageMap {
  readonly #pages = new Map<string, Page | (() => Page)>();

  define(key: string, build: () => Page): void {
    this.#pages.set(key, build);
  }

  get(key: string): Page | undefined {
    const p = this.#pages.get(key);
    if (typeof p !== 'function') return p;
    const page = p();
    this.#pages.set(key, page); // in place: the key keeps its position
    return page;
  }

  has(key: string): boolean {
    return this.#pages.has(key);
  }

  get size(): number {
    return this.#pages.size;
  }

  keys(): IterableIterator<string> {
    return this.#pages.keys();
  }

  /** every page, built as needed (tests, tools: requests ask by key) */
  *[Symbol.iterator](): IterableIterator<[string, Page]> {
    for (const key of [...this.#pages.keys()]) yield [key, this.get(key)!];
  }
}

/** Serialize `{data, meta}` with meta's own keys, then as_of (a view of the past), refreshed_at and the request-id slot. */
export function buildPage(data: unknown, meta: Partial<ListMeta> | null, refreshedAt: string, asOf: string | null = null): Page {
  return buildPageOf(JSON.stringify(data), meta, refreshedAt, asOf);
}

/** buildPage of data already serialized (a view of the past reuses one vault's data JSON under many instants' envelopes). */
export function buildPageOf(dataJson: string, meta: Partial<ListMeta> | null, refreshedAt: string, asOf: string | null = null): Page {
  const prefix = Buffer.from(`{"data":${dataJson},"meta":${metaText(meta, refreshedAt, asOf)},"request_id":"`);
  return { prefix, etag: etagOf(prefix) };
}

/**
 * The bytes of buildPageOf(data, null, refreshedAt, asOf) around `data` and `asOf`: a view of
 * the past makes a page per instant asked for (DESIGN §11.6), so it copies prepared bytes instead
 * of joining strings and encoding them. Cut out of buildPageOf's own output: one format.
 */
export interface AsOfFrame {
  /** `{"data":` */
  open: Buffer;
  /** from after the data to the as_of's opening quote */
  mid: Buffer;
  /** from the as_of's closing quote to the request-id slot */
  close: Buffer;
}

export function asOfFrame(refreshedAt: string): AsOfFrame {
  const text = buildPageOf('null', null, refreshedAt, '@').prefix.toString();
  const data = text.indexOf('null');
  const at = text.indexOf('"as_of":"@"') + '"as_of":"'.length;
  return { open: Buffer.from(text.slice(0, data)), mid: Buffer.from(text.slice(data + 4, at)), close: Buffer.from(text.slice(at + 1)) };
}

/**
 * buildPageOf(the text of `data` joined, null, refreshedAt, asOf)'s prefix; `asOf` as isoSeconds
 * writes it (ASCII that JSON does not escape). `data` is byte ranges: [buffer, start, end] each.
 * `etag`: the caller's, named by what determines the body (hashing ~1 KB per page was the
 * largest single cost of a vault's detail at a random instant); etagOf(prefix) when absent.
 */
export function buildAsOfPage(frame: AsOfFrame, data: readonly (readonly [Buffer, number, number])[], asOf: string, etag?: string): Page {
  let n = frame.open.length + frame.mid.length + asOf.length + frame.close.length;
  for (const [, from, to] of data) n += to - from;
  const prefix = Buffer.allocUnsafe(n);
  let at = frame.open.copy(prefix, 0);
  for (const [b, from, to] of data) at += b.copy(prefix, at, from, to);
  at += frame.mid.copy(prefix, at);
  at += prefix.write(asOf, at, 'latin1');
  frame.close.copy(prefix, at);
  return { prefix, etag: etag ?? etagOf(prefix) };
}

/**
 * JSON of `{...meta, refreshed_at}` without its closing brace (the request id follows): meta's
 * text with refreshed_at appended, no copy of the meta object (per request for JSON bodies).
 */
export function metaText(meta: Partial<ListMeta> | null, refreshedAt: string, asOf: string | null = null): string {
  // as_of only in a view of the past: every other answer stays byte for byte what it was
  const at = `${asOf === null ? '' : `"as_of":${JSON.stringify(asOf)},`}"refreshed_at":${JSON.stringify(refreshedAt)}`;
  if (meta instanceof WindowMeta) {
    const text = meta.text();
    if (text !== null) return `${text},${at}`;
  }
  const text = meta === null ? '{}' : JSON.stringify(meta);
  return text.length === 2 ? `{${at}` : `${text.slice(0, -1)},${at}`;
}

/**
 * A window's meta (count, limit, next_cursor, partial_errors, start, end: JSON.stringify's order
 * of these members), whose JSON metaText writes by template (per request: ~0.4 µs against
 * ~1.3 µs through JSON.stringify and a slice). Its values are what a window has — numbers, a
 * base64url cursor, ISO instants — and anything else goes through JSON.stringify.
 */
export class WindowMeta implements ListMeta {
  // declared, not initialized: the constructor makes the members in JSON's order
  declare count: number;
  declare limit: number;
  declare next_cursor: string | null;
  declare partial_errors: null;
  declare start: string | null;
  declare end: string | null;

  constructor(count: number, limit: number, nextCursor: string | null, start: string | null, end: string | null) {
    this.count = count;
    this.limit = limit;
    this.next_cursor = nextCursor;
    this.partial_errors = null;
    this.start = start;
    this.end = end;
  }

  /** `{"count":…,"end":…` without the closing brace; null when a value would need JSON.stringify. */
  text(): string | null {
    const { count, limit, next_cursor: next, start, end } = this;
    if (!Number.isFinite(count) || !Number.isFinite(limit) || !plain(next) || !plain(start) || !plain(end)) return null;
    return `{"count":${count},"limit":${limit},"next_cursor":${quoted(next)},"partial_errors":null,"start":${quoted(start)},"end":${quoted(end)}`;
  }
}

/** Text JSON writes as it is between quotes (no escapes). */
const PLAIN_TEXT = /^[A-Za-z0-9_:.+-]*$/;
const plain = (s: string | null) => s === null || PLAIN_TEXT.test(s);
const quoted = (s: string | null) => (s === null ? 'null' : `"${s}"`);

export function etagOf(prefix: Buffer): string {
  return `"${sha256(prefix).slice(0, 27)}"`;
}

// crypto.hash (Node ≥ 20.12) hashes in one call, without a Hash object per page: a view of the
// past builds a page per instant asked for, so this is on its path; older Nodes take createHash
const oneShot = (crypto as { hash?: (algorithm: string, data: Buffer, encoding: 'base64url') => string }).hash;
const sha256 = oneShot ? (b: Buffer) => oneShot('sha256', b, 'base64url') : (b: Buffer) => createHash('sha256').update(b).digest('base64url');

/** The whole body for a given request id (tests, and the uncompressed hot path). */
export function pageBody(page: Page, requestId: string): Buffer {
  return Buffer.concat([page.prefix, Buffer.from(requestId), PAGE_SUFFIX]);
}
