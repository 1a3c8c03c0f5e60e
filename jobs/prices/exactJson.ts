// Reads JSON from price and TVL APIs without letting a float touch a number: number literals
// stay as their source text (`JsonNumber`) and become exact decimal strings (DESIGN §4.7), so
// `0.99987654321` or `1.2e9` in a body is stored digit for digit. Also: a GET helper whose
// errors say what failed and what to check, and dot paths (`data.items.0.usd`) into a body.
import { classifyRpcError, type RpcFault, type RpcFaultKind } from '../evm/rpcErrors.js';
import { VaultdError } from '../../common/errors.js';

/** A JSON number literal exactly as written in the body. */
export class JsonNumber {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type ExactJson = null | boolean | string | JsonNumber | ExactJson[] | { [key: string]: ExactJson };

/** A body that is not JSON; `position` is the offset in the text where parsing stopped. */
export class ExactJsonSyntaxError extends SyntaxError {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at position ${position}`);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const MAX_DEPTH = 512;

/** JSON.parse, except that numbers come back as `JsonNumber` holding their source text. */
export function parseExactJson(text: string): ExactJson {
  let i = 0;
  const n = text.length;
  const fail = (what: string, at = i): never => {
    throw new ExactJsonSyntaxError(at >= n ? `Unexpected end of JSON input (${what})` : `Unexpected ${JSON.stringify(text[at])} (${what})`, at);
  };
  const skipWs = () => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else return;
    }
  };
  const str = (): string => {
    const start = i++; // the opening quote
    let escaped = false;
    for (;;) {
      if (i >= n) fail('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 34) break;
      if (c < 32) fail('control character in string');
      if (c === 92) {
        escaped = true;
        i += 2;
      } else i++;
    }
    i++; // the closing quote
    if (!escaped) return text.slice(start + 1, i - 1);
    try {
      return JSON.parse(text.slice(start, i)) as string; // escapes, validated by the engine
    } catch {
      return fail('bad escape in string', start);
    }
  };
  const value = (depth: number): ExactJson => {
    if (depth > MAX_DEPTH) fail('nested too deeply');
    skipWs();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: { [key: string]: ExactJson } = {};
      skipWs();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        skipWs();
        if (text[i] !== '"') fail('expected a key');
        const key = str();
        skipWs();
        if (text[i] !== ':') fail('expected ":"');
        i++;
        const v = value(depth + 1);
        // an own "__proto__" key is data, as with JSON.parse, never the prototype
        if (key === '__proto__') Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
        else obj[key] = v;
        skipWs();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return obj;
        } else fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      i++;
      const arr: ExactJson[] = [];
      skipWs();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value(depth + 1));
        skipWs();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return arr;
        } else fail('expected "," or "]"');
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) return ((i += 4), true);
    if (text.startsWith('false', i)) return ((i += 5), false);
    if (text.startsWith('null', i)) return ((i += 4), null);
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) return fail('expected a value');
    i += m[0].length;
    return new JsonNumber(m[0]);
  };
  const out = value(0);
  skipWs();
  if (i < n) fail('expected the end of the body');
  return out;
}

export type PathResult = { found: true; value: ExactJson } | { found: false; reason: string };

/** What a JSON value is, for messages: "a number", "an object", "null"... */
export const jsonKind = (v: ExactJson): string =>
  v === null
    ? 'null'
    : v instanceof JsonNumber
      ? 'a number'
      : Array.isArray(v)
        ? 'an array'
        : typeof v === 'object'
          ? 'an object'
          : typeof v === 'string'
            ? 'a string'
            : 'a boolean';

/**
 * The value at a dot path: object keys and array indexes ("data.tvl", "0.usd", "chains.2.tvl");
 * the empty path is the body itself. A miss says where the walk stopped.
 */
export function pathValue(body: ExactJson, path: string): PathResult {
  if (path === '') return { found: true, value: body };
  let cur = body;
  const segs = path.split('.');
  for (let k = 0; k < segs.length; k++) {
    const seg = segs[k]!;
    const at = k === 0 ? 'the body' : `"${segs.slice(0, k).join('.')}"`;
    if (Array.isArray(cur)) {
      if (!/^(?:0|[1-9]\d*)$/.test(seg)) return { found: false, reason: `${at} is an array and "${seg}" is not an index` };
      const idx = Number(seg);
      if (idx >= cur.length) return { found: false, reason: `${at} has no index ${seg} (length ${cur.length})` };
      cur = cur[idx]!;
    } else if (cur !== null && typeof cur === 'object' && !(cur instanceof JsonNumber)) {
      if (!Object.hasOwn(cur, seg)) return { found: false, reason: `${at} has no key "${seg}"` };
      cur = cur[seg]!;
    } else {
      return { found: false, reason: `${at} is ${jsonKind(cur)}, not an object or array` };
    }
  }
  return { found: true, value: cur };
}

/**
 * A URL fit for logs and error messages: no user-info, and the values of query parameters not
 * in `keep` replaced by "***" (query strings can carry API keys).
 */
export function displayUrl(url: string, keep: readonly string[] = []): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '<invalid url>';
  }
  const params = [...u.searchParams].map(([k, v]) => `${k}=${keep.includes(k) ? v : '***'}`);
  const shown = `${u.origin}${u.pathname}${params.length ? `?${params.join('&')}` : ''}`;
  return shown.length > 300 ? `${shown.slice(0, 297)}...` : shown;
}

export interface FetchJsonOptions {
  headers?: Record<string, string>;
  timeoutMs: number;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** query parameters safe to show in errors (see `displayUrl`) */
  showParams?: readonly string[];
}

/** What `fetchExactJson` throws: `details.kind` is an RPC fault kind, so `withRetry` can classify it. */
export interface FetchJsonErrorDetails {
  kind: RpcFaultKind;
  url: string;
  status?: number;
  retryAfterMs?: number;
}

function statusHint(status: number): string {
  if (status === 401 || status === 403) return 'check the API key in headers';
  if (status === 404) return 'check the URL (and any coin id or key in it)';
  if (status === 429) return 'rate limited: lower the schedule or configure an API key';
  if (status >= 500) return 'the server failed; check its status page or try later';
  return 'check the URL and its parameters';
}

/**
 * GET `url` and parse the body exactly. Throws a `VaultdError` (SOURCE_FAILED) whose message
 * names the URL (query values hidden) and what to check, never a header value; 429, 5xx and
 * connection failures are marked retryable, timeouts are not (they already cost timeoutMs).
 */
export async function fetchExactJson(url: string, opts: FetchJsonOptions): Promise<ExactJson> {
  const shown = displayUrl(url, opts.showParams);
  const fail = (message: string, details: Omit<FetchJsonErrorDetails, 'url'>, cause?: unknown): never => {
    throw new VaultdError('SOURCE_FAILED', message, {
      details: { ...details, url: shown },
      cause,
      retryable: details.kind === 'rate_limited' || details.kind === 'server' || details.kind === 'network',
    });
  };
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const doFetch = opts.fetch ?? fetch;
  let text: string;
  let status: number;
  let retryAfter: string | null;
  try {
    const res = await doFetch(url, { method: 'GET', headers: { accept: 'application/json', ...opts.headers }, signal });
    status = res.status;
    retryAfter = res.headers.get('retry-after');
    text = await res.text();
  } catch (err) {
    if (timeout.aborted)
      return fail(`GET ${shown} timed out after ${opts.timeoutMs} ms — check that the host is up, or raise timeout_ms`, { kind: 'timeout' }, err);
    if (opts.signal?.aborted) return fail(`GET ${shown} was aborted (shutdown)`, { kind: 'fatal' }, err);
    const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
    const why = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : (err as Error).message;
    return fail(`GET ${shown} failed (${why}) — check the URL and that the host is reachable`, { kind: 'network' }, err);
  }
  if (status < 200 || status > 299) {
    const kind: RpcFaultKind = status === 429 ? 'rate_limited' : status >= 500 || status === 408 ? 'server' : 'fatal';
    const retryAfterMs = retryAfter && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter.trim()) * 1000 : undefined;
    return fail(`GET ${shown} answered HTTP ${status} — ${statusHint(status)}`, {
      kind,
      status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  try {
    return parseExactJson(text);
  } catch (err) {
    return fail(
      `GET ${shown} returned a body that is not JSON (${(err as Error).message}) — check that the URL points at a JSON API`,
      { kind: 'garbage' },
      err,
    );
  }
}

/** `withRetry`'s classifier for `fetchExactJson` errors (keeps the server's Retry-After). */
export function classifyFetchError(err: unknown): RpcFault {
  if (err instanceof VaultdError && err.details && typeof (err.details as FetchJsonErrorDetails).kind === 'string') {
    const d = err.details as FetchJsonErrorDetails;
    return { kind: d.kind, retryable: err.retryable, message: err.message, ...(d.retryAfterMs === undefined ? {} : { retryAfterMs: d.retryAfterMs }) };
  }
  return classifyRpcError(err);
}
