// valibot schemas of every path and query parameter (DESIGN §5.2–§5.4). A bad value is a
// 422 INVALID_PARAMETER whose details name the parameter; the same schemas feed the OpenAPI
// document (server/openapi.ts), so the two cannot drift.
import * as v from 'valibot';
import { SlotMemo } from '../common/slotMemo.js';
import { VaultdError } from '../common/errors.js';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DATE_OR_DATE_TIME = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** ISO 8601 date (00:00:00 UTC) or date-time (no zone = UTC) → Unix seconds (fractions floored). */
export function parseInstant(text: string): number | null {
  // the form clients send most (as_of, a window's bounds): read by hand, no cache needed
  if (text.length === 20) {
    const t = canonicalInstant(text);
    if (t !== undefined) return t;
  }
  // windows repeat: remember recent answers (bounded; only well-formed, short strings)
  const hit = instants.get(text);
  if (hit !== undefined) return hit;
  const t = parseInstantUncached(text);
  if (t !== null) {
    if (instants.size >= 4096) instants.clear();
    instants.set(text, t);
  }
  return t;
}
const instants = new Map<string, number>();

/** Cumulative days before each month of a common year. */
const DAYS_BEFORE = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];

/**
 * `YYYY-MM-DDTHH:MM:SSZ` → Unix seconds, null for a date or time that does not exist; undefined
 * for any other text (parseInstantUncached decides). A random as_of per request (a random past
 * hour) made the cache above churn: every miss paid a regex, two Date.parse and a toISOString.
 */
export function canonicalInstant(text: string): number | null | undefined {
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84 || text.charCodeAt(13) !== 58) return undefined;
  if (text.charCodeAt(16) !== 58 || text.charCodeAt(19) !== 90) return undefined;
  const y = digits(text, 0, 4);
  const mo = digits(text, 5, 2);
  const d = digits(text, 8, 2);
  const h = digits(text, 11, 2);
  const mi = digits(text, 14, 2);
  const sec = digits(text, 17, 2);
  if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || sec < 0) return undefined;
  if (h > 23 || mi > 59 || sec > 59 || mo < 1 || mo > 12 || d < 1) return null;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 1 : 0;
  const inMonth = DAYS_BEFORE[mo]! - DAYS_BEFORE[mo - 1]! + (mo === 2 ? leap : 0);
  if (d > inMonth) return null;
  // days from 1970-01-01 to y-01-01 (proleptic Gregorian; floor division for years before 1970)
  const yb = y - 1;
  const before = 365 * (y - 1970) + (Math.floor(yb / 4) - Math.floor(yb / 100) + Math.floor(yb / 400)) - 477;
  const days = before + DAYS_BEFORE[mo - 1]! + (mo > 2 ? leap : 0) + d - 1;
  return days * 86_400 + h * 3600 + mi * 60 + sec;
}

/** The decimal value of text[from, from + n) when all of it is ASCII digits, else −1. */
function digits(text: string, from: number, n: number): number {
  let v = 0;
  for (let i = from; i < from + n; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

export function parseInstantUncached(text: string): number | null {
  const m = DATE_OR_DATE_TIME.exec(text);
  if (!m) return null;
  const [, date, hh = '00', mm = '00', ss = '00', , zone = 'Z'] = m;
  if (Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) return null;
  const ms = Date.parse(`${date}T${hh}:${mm}:${ss}${zone}`);
  if (!Number.isFinite(ms)) return null;
  // Date.parse rolls 2026-02-31 over to March: reject dates that do not exist.
  const day = new Date(Date.parse(`${date}T00:00:00Z`)).toISOString().slice(0, 10);
  if (day !== date) return null;
  return Math.floor(ms / 1000);
}

// Each leaf schema below also registers a plain function that answers the common case — a
// valid value — with what the schema would output, or FAIL (then valibot parses the query and
// names the error). valibot's object walk costs ~5 µs a query; the plain walk ~0.5 µs. The
// leaves' outputs are held to valibot's by a property test (params.test.ts).
const FAIL: unique symbol = Symbol('fail');
type Leaf = (text: string) => unknown;
const LEAVES = new WeakMap<object, Leaf>();
function leaf<S extends object>(schema: S, parse: Leaf): S {
  LEAVES.set(schema, parse);
  return schema;
}

/** An integer parameter's text: up to 7 digits (then its range is checked). */
const DIGITS = /^\d{1,7}$/;
const intIn = (min: number, max: number) =>
  leaf(
    v.pipe(
      v.string(),
      v.regex(DIGITS, `must be an integer from ${min} to ${max}`),
      v.transform(Number),
      v.minValue(min, `must be an integer from ${min} to ${max}`),
      v.maxValue(max, `must be an integer from ${min} to ${max}`),
    ),
    (s) => {
      if (!DIGITS.test(s)) return FAIL;
      const n = Number(s);
      return n >= min && n <= max ? n : FAIL;
    },
  );

const bool = leaf(
  v.pipe(
    v.picklist(['true', 'false', '1', '0'], 'must be true or false'),
    v.transform((s) => s === 'true' || s === '1'),
  ),
  (s) => (s === 'true' || s === '1' ? true : s === 'false' || s === '0' ? false : FAIL),
);

const instant = leaf(
  v.pipe(
    v.string(),
    v.check((s) => parseInstant(s) !== null, 'must be an ISO 8601 date or date-time, e.g. 2026-01-31 or 2026-01-31T12:00:00Z'),
    v.transform((s) => parseInstant(s)!),
  ),
  (s) => parseInstant(s) ?? FAIL,
);

/** A picklist whose output is its input. */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T, message: string) =>
  leaf(v.picklist(values, message), (s) => ((values as readonly string[]).includes(s) ? s : FAIL));
const string = (message?: string) => leaf(v.string(message), (s) => s);
const address = leaf(v.pipe(string('is required'), v.regex(ADDRESS, 'must be a 0x-prefixed 20-byte hex address')), (s) => (ADDRESS.test(s) ? s : FAIL));

/** Unix seconds (digits) or an ISO 8601 date or date-time (DESIGN §11.2 `at`). */
const UNIX_SECONDS = /^\d{1,12}$/;
const instantOrUnix = leaf(
  v.pipe(
    v.string(),
    v.check((s) => UNIX_SECONDS.test(s) || parseInstant(s) !== null, 'must be Unix seconds or an ISO 8601 date or date-time, e.g. 1767225600 or 2026-01-01'),
    v.transform((s) => (UNIX_SECONDS.test(s) ? Number(s) : parseInstant(s)!)),
  ),
  (s) => (UNIX_SECONDS.test(s) ? Number(s) : (parseInstant(s) ?? FAIL)),
);

/** What `include` asks for (DESIGN §11.1); every flag false is the plain answer. */
export interface Include {
  provenance: boolean;
  quality: boolean;
  returns: boolean;
}
export const NO_INCLUDE: Include = Object.freeze({ provenance: false, quality: false, returns: false });
/** Whether `include` asks for anything (an absent or empty one does not: the answer is the plain one). */
export const includes = (inc: Include | undefined): inc is Include => inc !== undefined && (inc.provenance || inc.quality || inc.returns);
/** The canonical text of an include (ETag seeds): its values in a fixed order. */
export const includeKey = (inc: Include): string => `${inc.provenance ? 'provenance,' : ''}${inc.quality ? 'quality,' : ''}${inc.returns ? 'returns' : ''}`;

/**
 * `include`: a comma-separated list of the route's opt-in blocks (DESIGN §11.1); empty means
 * none. An unknown or repeated value is a 422.
 */
function includeOf<const T extends readonly (keyof Include)[]>(allowed: T) {
  const one = `(?:${allowed.join('|')})`;
  const pattern = new RegExp(`^(?:${one}(?:,${one})*)?$`);
  const message = `must be a comma-separated list of ${allowed.join(', ')}`;
  const unique = (s: string) => {
    const parts = s === '' ? [] : s.split(',');
    return new Set(parts).size === parts.length;
  };
  const toInclude = (s: string): Include => {
    const parts = s === '' ? [] : s.split(',');
    return Object.freeze({ provenance: parts.includes('provenance'), quality: parts.includes('quality'), returns: parts.includes('returns') });
  };
  return leaf(v.pipe(v.string(), v.regex(pattern, message), v.check(unique, 'must not name a value twice'), v.transform(toInclude)), (s) =>
    pattern.test(s) && unique(s) ? toInclude(s) : FAIL,
  );
}

const costBasisMethod = oneOf(['average', 'fifo'], 'must be average or fifo');

const order = oneOf(['asc', 'desc'], 'must be asc or desc');
const cursor = leaf(v.pipe(v.string(), v.minLength(1, 'must be a cursor from meta.next_cursor')), (s) => (s.length >= 1 ? s : FAIL));
const granularity = oneOf(['hour', 'day', 'week', 'month'], 'must be one of hour, day, week, month');

const WINDOW = {
  start: v.optional(instant),
  end: v.optional(instant),
  next: v.optional(cursor),
  limit: v.optional(intIn(1, 10000), '1000'),
  order: v.optional(order, 'asc'),
  granularity: v.optional(granularity, 'day'),
};

export const QUERY_SCHEMAS = {
  'vaults.list': v.object({
    next: v.optional(cursor),
    limit: v.optional(intIn(1, 1000), '1000'),
    include_hidden: v.optional(bool, 'false'),
    include: v.optional(includeOf(['quality'])),
    as_of: v.optional(instantOrUnix),
  }),
  /** routes whose only parameter is as_of (DESIGN §11.6) */
  as_of: v.object({ as_of: v.optional(instantOrUnix) }),
  'vaults.get': v.object({ include: v.optional(includeOf(['provenance', 'quality'])), as_of: v.optional(instantOrUnix) }),
  'vaults.apy': v.object({ at: v.optional(instantOrUnix) }),
  'vaults.timeseries': v.object({ ...WINDOW, include: v.optional(includeOf(['quality'])), as_of: v.optional(instantOrUnix) }),
  'users.positions': v.object({
    next: v.optional(cursor),
    limit: v.optional(intIn(1, 500), '100'),
    include_hidden: v.optional(bool, 'false'),
    include: v.optional(includeOf(['returns'])),
    cost_basis_method: v.optional(costBasisMethod, 'average'),
    as_of: v.optional(instantOrUnix),
  }),
  'users.position': v.object({
    include: v.optional(includeOf(['returns'])),
    cost_basis_method: v.optional(costBasisMethod, 'average'),
    as_of: v.optional(instantOrUnix),
  }),
  // the vault timeseries' parameters, then the cost-basis method
  'users.position.timeseries': v.object({
    ...WINDOW,
    include: v.optional(includeOf(['quality'])),
    as_of: v.optional(instantOrUnix),
    cost_basis_method: v.optional(costBasisMethod, 'average'),
  }),
  'users.position.lots': v.object({
    next: v.optional(cursor),
    limit: v.optional(intIn(1, 1000), '100'),
    state: v.optional(oneOf(['open', 'closed', 'all'], 'must be one of open, closed, all'), 'all'),
  }),
  'users.activity': v.object({
    next: v.optional(cursor),
    limit: v.optional(intIn(1, 1000), '100'),
    order: v.optional(order, 'desc'),
    vault_id: v.optional(string()),
    include_hidden: v.optional(bool, 'false'),
    as_of: v.optional(instantOrUnix),
  }),
  'users.requests': v.object({
    next: v.optional(cursor),
    limit: v.optional(intIn(1, 1000), '100'),
    status: v.optional(oneOf(['pending', 'settled', 'refunded', 'expired', 'all'], 'must be one of pending, settled, refunded, expired, all'), 'all'),
    vault_id: v.optional(string()),
    include_hidden: v.optional(bool, 'false'),
    as_of: v.optional(instantOrUnix),
  }),
  tvl: v.object({ include_breakdown: v.optional(bool), include_sources: v.optional(bool), as_of: v.optional(instantOrUnix) }),
  prices: v.object({
    address,
    chain_id: intIn(1, 9_999_999),
    at: v.optional(instant),
  }),
  'prices.timeseries': v.object({
    address,
    chain_id: intIn(1, 9_999_999),
    start: instant,
    end: instant,
    granularity: v.optional(oneOf(['raw', 'hour', 'day', 'week', 'month'], 'must be one of raw, hour, day, week, month'), 'raw'),
    limit: v.optional(intIn(1, 5000), '1000'),
  }),
} as const;

/** A route's parameters as plain leaves: [name, leaf, default text, optional]; null if a leaf has no plain function. */
type Plain = readonly (readonly [string, Leaf, string | undefined, boolean])[];
function plainOf(schema: v.ObjectSchema<v.ObjectEntries, undefined>): Plain | null {
  const out: [string, Leaf, string | undefined, boolean][] = [];
  for (const [name, entry] of Object.entries(schema.entries)) {
    const optional = entry.type === 'optional';
    const inner = optional ? (entry as v.OptionalSchema<v.GenericSchema, unknown>).wrapped : entry;
    const fallback = optional ? (entry as v.OptionalSchema<v.GenericSchema, unknown>).default : undefined;
    const parse = LEAVES.get(inner);
    if (parse === undefined || (fallback !== undefined && typeof fallback !== 'string')) return null;
    out.push([name, parse, fallback, optional]);
  }
  return out;
}
/** Each route's parameter names. */
const NAMES = new Map<string, ReadonlySet<string>>(Object.entries(QUERY_SCHEMAS).map(([route, schema]) => [route, new Set(Object.keys(schema.entries))]));
const PLAIN = new Map<string, Plain | null>(Object.entries(QUERY_SCHEMAS).map(([route, schema]) => [route, plainOf(schema)]));

/** valibot's output for `input` when every value is valid, walking the plain leaves; FAIL otherwise. */
function parsePlain(plain: Plain, input: Record<string, string>): Record<string, unknown> | typeof FAIL {
  const out: Record<string, unknown> = {};
  for (const [name, parse, fallback, optional] of plain) {
    const text = input[name] ?? fallback;
    if (text === undefined) {
      if (optional) continue;
      return FAIL;
    }
    const value = parse(text);
    if (value === FAIL) return FAIL;
    out[name] = value;
  }
  return out;
}

/**
 * parseQuery's fast path: valibot's output for a route's decoded parameters, by walking the
 * schema's plain leaves; undefined where a value is invalid (valibot then words the error),
 * null when the route has a leaf with no plain function (valibot parses it).
 */
export function parsePlainQuery(route: QueryRoute, input: Record<string, string>): Record<string, unknown> | undefined | null {
  const plain = PLAIN.get(route);
  if (!plain) return null;
  const out = parsePlain(plain, input);
  return out === FAIL ? undefined : out;
}

export type QueryRoute = keyof typeof QUERY_SCHEMAS;
export type QueryOf<R extends QueryRoute> = v.InferOutput<(typeof QUERY_SCHEMAS)[R]>;

/** The position-timeseries route takes the vault timeseries' parameters (seed). */
QUERY_SCHEMAS satisfies Record<string, v.GenericSchema>;

export function invalid(parameter: string, message: string): VaultdError {
  return new VaultdError('INVALID_PARAMETER', `invalid parameter "${parameter}": ${message}`, { details: { parameter } });
}

/**
 * Parse a raw query string against a route's schema. Repeated parameters are rejected;
 * parameters the route does not know are ignored (and never reach cache keys).
 */
export function parseQuery<R extends QueryRoute>(route: R, rawQuery: string): QueryOf<R> {
  // a popular window or list is asked for with the same query again and again: parsed once
  let memo = parsed.get(route);
  if (memo === undefined) parsed.set(route, (memo = new SlotMemo(PARSED_SLOTS)));
  const hit = memo.get(rawQuery);
  if (hit !== undefined) return hit as QueryOf<R>;
  const output = Object.freeze(parseFresh(route, rawQuery));
  // a junk query buys no memory: it takes one slot, and only while no other query wants it. Nor
  // does one asking for the past: a random instant per request only turned the slots over, and
  // short-lived answers held by a long-lived array made every scavenge dearer (measured: a random
  // hour's vault detail 12 → 9 µs in-process with 16 slots instead of 256)
  if (rawQuery.length <= PARSED_MAX_CHARS && !rawQuery.includes('as_of=')) memo.set(rawQuery, output);
  return output;
}

/** Parsed queries remembered per route, by raw query (outputs are frozen; errors are thrown, never kept). */
const parsed = new Map<QueryRoute, SlotMemo<unknown>>();
const PARSED_SLOTS = 256;
/** Longer queries are parsed every time. */
const PARSED_MAX_CHARS = 1024;

/**
 * A route's raw-query parser, compiled once from its schema's plain leaves: parameter names to
 * slots, defaults parsed ahead (a leaf is a pure function of its text), so a query is one scan
 * into the slots and one pass over them, with no record of decoded values, no default parsed
 * again and no lookup by route. It answers only the common case — every value valid, no name
 * given twice, nothing percent-encoded — with valibot's output, and undefined for anything
 * else: `parseReference` then parses and words the error. null for a route with a leaf that has
 * no plain function. A property test holds it to parseReference (params.test.ts).
 */
export type CompiledQuery = (rawQuery: string) => Record<string, unknown> | undefined;

export function compileQuery(route: QueryRoute): CompiledQuery | null {
  const plain = PLAIN.get(route);
  if (!plain) return null;
  const slots = new Map<string, number>(plain.map(([name], i) => [name, i]));
  const names = plain.map(([name]) => name);
  const leaves = plain.map(([, parse]) => parse);
  const required = plain.map(([, , fallback, optional]) => fallback === undefined && !optional);
  // a default's output, or FAIL when the route's default text would not parse (then never used)
  const defaults = plain.map(([, parse, fallback]) => (fallback === undefined ? undefined : parse(fallback)));
  const texts: (string | undefined)[] = new Array(plain.length).fill(undefined);
  return (rawQuery) => {
    // the texts are cleared on every way out: the slots are shared by this route's calls
    let ok = true;
    for (let from = 0; from < rawQuery.length; ) {
      let amp = rawQuery.indexOf('&', from);
      if (amp < 0) amp = rawQuery.length;
      if (amp > from) {
        let eq = rawQuery.indexOf('=', from);
        if (eq > amp) eq = -1;
        const name = rawQuery.slice(from, eq < 0 ? amp : eq);
        if (name.indexOf('%') >= 0 || name.indexOf('+') >= 0) {
          ok = false; // an encoded name may decode to a known one
          break;
        }
        const k = slots.get(name);
        if (k !== undefined) {
          const value = eq < 0 ? '' : rawQuery.slice(eq + 1, amp);
          if (texts[k] !== undefined || value.indexOf('%') >= 0 || value.indexOf('+') >= 0) {
            ok = false;
            break;
          }
          texts[k] = value;
        }
      }
      from = amp + 1;
    }
    let out: Record<string, unknown> | undefined = ok ? {} : undefined;
    for (let k = 0; k < texts.length; k++) {
      const text = texts[k];
      texts[k] = undefined;
      if (out === undefined) continue;
      let value: unknown;
      if (text !== undefined) value = leaves[k]!(text);
      else if (required[k]) value = FAIL;
      else if (defaults[k] === undefined) continue;
      else value = defaults[k];
      if (value === FAIL) out = undefined;
      else out[names[k]!] = value;
    }
    return out;
  };
}
const COMPILED = new Map<string, CompiledQuery | null>(Object.keys(QUERY_SCHEMAS).map((route) => [route, compileQuery(route as QueryRoute)]));

function parseFresh<R extends QueryRoute>(route: R, rawQuery: string): QueryOf<R> {
  const compiled = COMPILED.get(route);
  const out = compiled ? compiled(rawQuery) : undefined;
  return out ? (out as QueryOf<R>) : parseReference(route, rawQuery);
}

/** A raw query parsed by decoding every pair into a record, then the plain walk or valibot (which words the error). */
export function parseReference<R extends QueryRoute>(route: R, rawQuery: string): QueryOf<R> {
  const schema = QUERY_SCHEMAS[route];
  const known = NAMES.get(route)!;
  const input: Record<string, string> = {};
  // name=value pairs between '&'s, walked by index (no array of parts)
  for (let from = 0; from < rawQuery.length; ) {
    let amp = rawQuery.indexOf('&', from);
    if (amp < 0) amp = rawQuery.length;
    if (amp > from) {
      let eq = rawQuery.indexOf('=', from);
      if (eq > amp) eq = -1;
      const key = safeDecode(rawQuery.slice(from, eq < 0 ? amp : eq));
      if (key !== null && known.has(key)) {
        const value = safeDecode(eq < 0 ? '' : rawQuery.slice(eq + 1, amp));
        if (value === null) throw invalid(key, 'is not valid percent-encoding');
        if (input[key] !== undefined) throw invalid(key, 'must be given at most once');
        input[key] = value;
      }
    }
    from = amp + 1;
  }
  const out = parsePlainQuery(route, input);
  if (out) return out as QueryOf<R>;
  const result = v.safeParse(schema, input);
  if (!result.success) {
    const issue = result.issues[0]!;
    const parameter = v.getDotPath(issue) ?? 'query';
    throw invalid(parameter, issue.input === undefined ? 'is required' : issue.message);
  }
  return result.output as QueryOf<R>;
}

function safeDecode(s: string): string | null {
  // most names and values carry no escapes: nothing to decode (a regex replace and a decode per parameter otherwise)
  if (s.indexOf('%') < 0 && s.indexOf('+') < 0) return s;
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/**
 * `{chainId}:{address}` → canonical lowercase vault id, or a 422 naming `parameter`. The
 * CAIP-10 form `eip155:{chainId}:{address}` (what the upstream client's parseApiVaultId takes)
 * is an alias of the same id.
 */
export function parseVaultId(text: string, parameter = 'vault_id'): string {
  // a server's vault ids are few and asked again and again: the canonical form of each is kept
  const known = vaultIds.get(text);
  if (known !== undefined) return known;
  const id = parseVaultIdFresh(text, parameter);
  if (vaultIds.size >= VAULT_IDS_KEPT) vaultIds.clear();
  vaultIds.set(text, id);
  return id;
}
/** Valid vault-id texts → their canonical ids (cleared when full; errors are never kept). */
const vaultIds = new Map<string, string>();
const VAULT_IDS_KEPT = 4096;

function parseVaultIdFresh(text: string, parameter: string): string {
  const m = /^(?:eip155:)?(\d{1,12}):(0x[0-9a-fA-F]{40})$/.exec(text);
  if (!m || Number(m[1]) < 1) throw invalid(parameter, `"${clip(text)}" must be {chainId}:{address}, e.g. 1:0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458`);
  return `${Number(m[1])}:${m[2]!.toLowerCase()}`;
}

/** An EVM wallet address → lowercase, or a 422. */
export function parseWallet(text: string): string {
  if (!ADDRESS.test(text)) throw invalid('wallet_address', `"${clip(text)}" must be a 0x-prefixed 20-byte hex address`);
  return text.toLowerCase();
}

/** Quote user input in messages without echoing megabytes back. */
export function clip(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
