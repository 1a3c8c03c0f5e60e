// Opaque, signed pagination cursors (DESIGN §5.4): base64url(payload JSON ‖ HMAC-SHA256/128).
// The payload binds the last key to the order and to a hash of the route and its filters.
import { hash, timingSafeEqual } from 'node:crypto';
import * as v from 'valibot';
import { VaultdError } from '../common/errors.js';
import { SlotMemo } from '../common/slotMemo.js';

export type CursorKey = string | number | readonly (string | number)[];
export type CursorOrder = 'asc' | 'desc';
type QueryValue = string | number | boolean | null | undefined;
/**
 * The query a page was made for: the raw parameters, or (better) the validated ones with
 * defaults applied, so `?order=desc` and no `order` yield the same cursor context.
 */
export type CursorQuery = URLSearchParams | Readonly<Record<string, QueryValue | readonly QueryValue[]>>;

/**
 * What a walk's first page was cut from (DESIGN §11.6, consistent paging): the data time `t`
 * (Unix seconds) every later page is answered as of, and `f`, how many rows the data held up to
 * then (fewer later means a reorganization removed some: the walk must start again).
 */
export interface CursorPin {
  t: number;
  f: number;
}

export interface CursorCodec {
  /** `generation`: the snapshot the page was cut from (readers answer the next page from it); `pin`: its data time. */
  encode(route: string, query: CursorQuery, order: CursorOrder, lastKey: CursorKey, generation?: number, pin?: CursorPin): string;
  /** The last key of the previous page; throws VaultdError INVALID_CURSOR. */
  decode(cursor: string, route: string, query: CursorQuery, order: CursorOrder): CursorKey;
  /** The pin of a cursor that decodes (call decode first); null for one made without. */
  pinOf(cursor: string): CursorPin | null;
}

/** Longest cursor accepted; encode refuses to make a longer one. */
export const MAX_CURSOR_LENGTH = 1024;
const MAC_BYTES = 16;
const HASH_BYTES = 12;
const MIN_SECRET_BYTES = 16;
// Parameters that do not select rows: `next` is the cursor itself, `limit` may change between
// pages (DESIGN §5.4), and `order` is checked on its own so the error can say so.
const UNBOUND = new Set(['next', 'limit', 'order']);
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const DOMAIN = Buffer.from('vaultd-cursor-v1\0');

const Payload = v.strictObject({
  v: v.literal(1),
  k: v.union([v.string(), v.pipe(v.number(), v.finite()), v.array(v.union([v.string(), v.pipe(v.number(), v.finite())]))]),
  o: v.picklist(['asc', 'desc']),
  h: v.string(),
  g: v.optional(v.pipe(v.number(), v.integer())),
  t: v.optional(v.pipe(v.number(), v.finite())),
  f: v.optional(v.pipe(v.number(), v.integer())),
});

export function createCursorCodec(secret: Buffer): CursorCodec {
  if (secret.length < MIN_SECRET_BYTES) {
    throw new VaultdError('CONFIG_INVALID', `cursor secret is ${secret.length} bytes; it must be at least ${MIN_SECRET_BYTES}`);
  }
  // one MAC for signing and checking (its buffers are used within a synchronous call)
  const macB64 = macB64Of(secret);
  const mac = macOf(macB64);
  const signed = signerOf(macB64);
  // a cursor is a pure function of its payload: every client of a popular window gets the same
  const made = new SlotMemo<string>(CURSORS_MADE);
  // a window shape's context (its route and bounds) is hashed once while its slot holds it: a
  // popular window's cursor, remembered by its payload, no longer makes the hash first
  const contexts = new SlotMemo<string>(CONTEXTS_KEPT);
  const contextHash = (route: string, query: CursorQuery): string => {
    const text = canonicalText(route, query);
    let h = contexts.get(text);
    if (h === undefined) contexts.set(text, (h = hashOf(text)));
    return h;
  };

  return {
    encode(route, query, order, lastKey, generation, pin) {
      const text = payloadText(lastKey, order, contextHash(route, query), generation, pin);
      let cursor = made.get(text);
      if (cursor !== undefined) return cursor;
      cursor = signed(text);
      if (cursor.length > MAX_CURSOR_LENGTH) {
        throw new VaultdError('INTERNAL', `cursor of ${cursor.length} chars exceeds ${MAX_CURSOR_LENGTH}; the page key is too long`);
      }
      made.set(text, cursor);
      return cursor;
    },

    decode(cursor, route, query, order) {
      const payload = verified(cursor);
      if (payload === undefined) {
        throw invalid(`next ${quote(cursor)} is not a valid cursor; pass meta.next_cursor from the previous page unchanged`);
      }
      if (payload.o !== order) {
        throw invalid(`next ${quote(cursor)} was issued for order=${payload.o}, not order=${order}`);
      }
      if (payload.h !== contextHash(route, query)) {
        throw invalid(`next ${quote(cursor)} belongs to another route or query; only limit may change between pages`);
      }
      return payload.k;
    },

    pinOf(cursor) {
      const payload = verified(cursor);
      return payload?.t !== undefined && payload.f !== undefined ? { t: payload.t, f: payload.f } : null;
    },
  };

  /** The payload when `cursor` is canonical base64url of a payload with a good MAC. */
  function verified(cursor: string): v.InferOutput<typeof Payload> | undefined {
    if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) return undefined;
    const bytes = Buffer.from(cursor, 'base64url');
    // Re-encoding must give the input back, or two strings would name one cursor.
    if (bytes.length <= MAC_BYTES || bytes.toString('base64url') !== cursor) return undefined;
    const json = bytes.subarray(0, bytes.length - MAC_BYTES);
    if (!timingSafeEqual(bytes.subarray(bytes.length - MAC_BYTES), mac(json))) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(json.toString('utf8'));
    } catch {
      return undefined;
    }
    const result = v.safeParse(Payload, parsed);
    return result.success ? result.output : undefined;
  }
}

/**
 * HMAC-SHA256(secret, DOMAIN ‖ payload) as base64url, RFC 2104 spelled out with one-shot
 * hashes over precomputed pads (the same bytes as createHmac; the test compares them). The
 * payload is written into a reused buffer after the inner pad, and digests are asked as
 * base64url: Node 20's one-shot SHA-256 of ~300 bytes gives base64url in ~0.4 µs, hex in ~0.6
 * µs and a Buffer in ~0.9 µs.
 */
function macB64Of(secret: Buffer): (payload: string | Buffer) => string {
  const key = secret.length > BLOCK ? Buffer.from(hash('sha256', secret, 'hex'), 'hex') : secret;
  const inner = Buffer.alloc(BLOCK + DOMAIN.length, 0x36);
  const outer = Buffer.alloc(BLOCK + 32, 0x5c);
  for (let i = 0; i < key.length; i++) {
    inner[i]! ^= key[i]!;
    outer[i]! ^= key[i]!;
  }
  DOMAIN.copy(inner, BLOCK);
  const input = Buffer.alloc(inner.length + PAYLOAD_ROOM);
  inner.copy(input, 0);
  return (payload) => {
    // UTF-8 is at most 3 bytes a UTF-16 unit: a string that can fit does
    const fits = typeof payload === 'string' ? 3 * payload.length <= PAYLOAD_ROOM : payload.length <= PAYLOAD_ROOM;
    let message: Buffer;
    if (!fits) message = Buffer.concat([inner, typeof payload === 'string' ? Buffer.from(payload) : payload]);
    else {
      const n = typeof payload === 'string' ? input.write(payload, inner.length, 'utf8') : payload.copy(input, inner.length);
      message = input.subarray(0, inner.length + n);
    }
    outer.write(hash('sha256', message, 'base64url'), BLOCK, 32, 'base64url');
    return hash('sha256', outer, 'base64url');
  };
}

const BLOCK = 64;
/** Payload bytes signed in the reused buffers (a cursor's payload always fits: it is under MAX_CURSOR_LENGTH chars). */
const PAYLOAD_ROOM = 3 * MAX_CURSOR_LENGTH;

/** The MAC of `json`: HMAC-SHA256 cut to MAC_BYTES. */
function macOf(macB64: (payload: string | Buffer) => string): (json: Buffer) => Buffer {
  return (json) => Buffer.from(macB64(json), 'base64url').subarray(0, MAC_BYTES);
}

/**
 * The cursor of payload `text`: base64url(text ‖ MAC), its bytes made in a reused buffer
 * (a timeseries cursor ~3.5–4.5 µs with the context hash; ~5.2–7.6 µs with Buffer digests
 * and concatenations).
 */
function signerOf(macB64: (payload: string | Buffer) => string): (text: string) => string {
  const mac = macOf(macB64);
  const bytes = Buffer.alloc(PAYLOAD_ROOM + MAC_BYTES);
  return (text) => {
    if (3 * text.length > PAYLOAD_ROOM) {
      const json = Buffer.from(text);
      return Buffer.concat([json, mac(json)]).toString('base64url');
    }
    const n = bytes.write(text, 0, 'utf8');
    bytes.write(macB64(text), n, MAC_BYTES, 'base64url');
    return bytes.toString('base64url', 0, n + MAC_BYTES);
  };
}

/** A codec whose secret can change with the store a generation was published from (createCursorKeyring). */
export interface CursorKeyring extends CursorCodec {
  /**
   * `secret` signs the cursors of generation `from` and later (by default, in place of the
   * current secret). The secrets before it still verify (the last few).
   */
  use(secret: Buffer, from?: number): void;
  /** The secret that signs the cursors of generation `g` (of the newest one when omitted). */
  secretFor(g?: number): Buffer;
}

/**
 * Cursors across a change of store: a database replaced under a server is another store with
 * another secret, and its generations follow the replaced store's. A cursor is signed with the
 * secret of the generation it names, so every process that serves that generation (readers
 * keep the last few, so a walk stays on one generation) verifies it, whether or not it has
 * seen the newer store yet; a cursor that fails its own generation's secret is tried against
 * the other kept secrets before it is refused.
 */
export function createCursorKeyring(secret: Buffer, keep = 2): CursorKeyring {
  type Entry = { secret: Buffer; from: number; codec: CursorCodec };
  // newest first; a generation is signed by the first entry whose `from` it reaches
  let entries: Entry[] = [{ secret, from: Number.NEGATIVE_INFINITY, codec: createCursorCodec(secret) }];
  const entryFor = (g: number | null | undefined): Entry => (g == null ? entries[0]! : (entries.find((e) => e.from <= g) ?? entries.at(-1)!));
  return {
    encode: (route, query, order, lastKey, generation, pin) => entryFor(generation).codec.encode(route, query, order, lastKey, generation, pin),
    // the pin is read off the payload (decode verified it): any codec reads it the same
    pinOf: (cursor) => entries[0]!.codec.pinOf(cursor),
    decode(cursor, route, query, order) {
      const first = entryFor(cursorGeneration(cursor));
      try {
        return first.codec.decode(cursor, route, query, order);
      } catch (err) {
        for (const e of entries) {
          if (e === first) continue;
          try {
            return e.codec.decode(cursor, route, query, order);
          } catch {
            // not this one's either
          }
        }
        throw err;
      }
    },
    use(next, from = entries[0]!.from) {
      const same = entries.find((e) => e.secret.equals(next));
      if (same && same === entries[0] && same.from <= from) return;
      const entry = { secret: next, from, codec: same?.codec ?? createCursorCodec(next) };
      entries = [entry, ...entries.filter((e) => e !== same)].slice(0, keep + 1);
    },
    secretFor: (g) => entryFor(g).secret,
  };
}

/**
 * The snapshot generation a cursor names, unverified (null when none): it only chooses which
 * retained snapshot answers; the route then verifies the cursor's MAC, which covers it.
 */
export function cursorGeneration(cursor: string): number | null {
  if (cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) return null;
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length <= MAC_BYTES) return null;
  try {
    const g = (JSON.parse(bytes.subarray(0, bytes.length - MAC_BYTES).toString('utf8')) as { g?: unknown }).g;
    return Number.isSafeInteger(g) ? (g as number) : null;
  } catch {
    return null;
  }
}

/** A context hash's text (base64url): JSON writes it as it is. */
const HASH_TEXT = /^[A-Za-z0-9_-]*$/;

/**
 * JSON.stringify({ v: 1, k, o, h, g, t, f }) (undefined members left out), written by template
 * when every number is finite (a window's or list's cursor): the order, the hash (base64url) and
 * the numbers have nothing to escape. Anything else goes through JSON.stringify.
 */
export function payloadText(k: CursorKey, o: CursorOrder, h: string, g: number | undefined, pin: CursorPin | undefined): string {
  if (
    typeof k !== 'number' ||
    !Number.isFinite(k) ||
    !HASH_TEXT.test(h) ||
    (g !== undefined && !Number.isFinite(g)) ||
    (pin !== undefined && !(Number.isFinite(pin.t) && Number.isFinite(pin.f)))
  ) {
    return JSON.stringify({ v: 1, k, o, h, g, t: pin?.t, f: pin?.f });
  }
  // JSON.stringify writes -0 as 0; a template would too (`${-0}` is "0")
  return `{"v":1,"k":${k},"o":"${o}","h":"${h}"${g === undefined ? '' : `,"g":${g}`}${pin === undefined ? '' : `,"t":${pin.t},"f":${pin.f}`}}`;
}

/**
 * The hash of a context's canonical text (the route and every row-selecting parameter: sorted
 * names, values in order). Kept per codec in a few direct-mapped slots by that text (a replaced
 * entry dies young): it was once kept per frozen query object in a WeakMap, but under random
 * windows every query is new, and those entries (a Map and its strings per query) were most of
 * what each request left in the old generation (~0.4 of ~0.66 KB a window, sampled).
 */
function hashOf(canonical: string): string {
  // 12 bytes are 16 base64url characters, the digest's first 16 (3 bytes make 4 characters)
  return hash('sha256', canonical, 'base64url').slice(0, (4 * HASH_BYTES) / 3);
}

/** Contexts kept per codec (slots: common/slotMemo.ts). */
const CONTEXTS_KEPT = 64;

/** JSON of [route, [[name, [values…]]…]]: names sorted, values as strings in order, unbound names and absent values left out. */
function canonicalText(route: string, query: CursorQuery): string {
  if (query instanceof URLSearchParams) {
    const byName = new Map<string, string[]>();
    for (const [name, value] of query) {
      if (UNBOUND.has(name)) continue;
      const values = byName.get(name);
      if (values) values.push(value);
      else byName.set(name, [value]);
    }
    return JSON.stringify([route, [...byName].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
  }
  const names = sortedNames(query);
  let text = `[${JSON.stringify(route)},[`;
  let first = true;
  for (const name of names) {
    if (UNBOUND.has(name)) continue;
    const value = query[name];
    let values = '';
    if (Array.isArray(value)) {
      for (const item of value as readonly QueryValue[]) if (item !== undefined && item !== null) values += `${values === '' ? '' : ','}${quoted(item)}`;
    } else if (value !== undefined && value !== null) values = quoted(value as string | number | boolean);
    if (values === '') continue;
    text += `${first ? '' : ','}[${quotedName(name)},[${values}]]`;
    first = false;
  }
  return `${text}]]`;
}

/**
 * An object query's names, sorted: once per shape (a route's queries have one list of names,
 * in one order), so a window's cursor does not sort its names per request.
 */
function sortedNames(query: Readonly<Record<string, unknown>>): readonly string[] {
  const names = Object.keys(query);
  const last = lastShape;
  if (last !== null && last.names.length === names.length && last.names.every((n, i) => n === names[i])) return last.sorted;
  // distinct names, a few: sorted by insertion
  const sorted = [...names];
  for (let i = 1; i < sorted.length; i++) {
    const name = sorted[i]!;
    let j = i - 1;
    for (; j >= 0 && sorted[j]! > name; j--) sorted[j + 1] = sorted[j]!;
    sorted[j + 1] = name;
  }
  lastShape = { names, sorted };
  return sorted;
}
let lastShape: { names: readonly string[]; sorted: readonly string[] } | null = null;

/** JSON.stringify(String(value)): a number's or boolean's text has nothing to escape. */
function quoted(value: string | number | boolean): string {
  return typeof value === 'string' ? JSON.stringify(value) : `"${value}"`;
}

/** JSON of a parameter name, remembered: an object query's names are a schema's few keys. */
function quotedName(name: string): string {
  let text = NAMES.get(name);
  if (text === undefined) {
    if (NAMES.size >= 256) NAMES.clear();
    NAMES.set(name, (text = JSON.stringify(name)));
  }
  return text;
}
const NAMES = new Map<string, string>();

/** Cursors remembered by their payload text per codec (slots: common/slotMemo.ts). */
const CURSORS_MADE = 64;

function invalid(message: string): VaultdError {
  return new VaultdError('INVALID_CURSOR', message, { details: { parameter: 'next' } });
}

/** The offending value, quoted and cut short: cursors may be huge or hold control characters. */
function quote(cursor: string): string {
  return JSON.stringify(cursor.length > 24 ? `${cursor.slice(0, 24)}…` : cursor);
}
