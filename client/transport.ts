// One GET against vaultd: credentials, retries with backoff on 429/503 honoring Retry-After
// (never on other statuses), an optional ETag cache (If-None-Match; a 304 reuses the stored
// body), AbortSignal, typed errors, and what the response said about itself (ResponseInfo).
import { createEtagCache, type EtagCache } from './etagCache.js';
import { CursorStaleError, VaultdApiError, VaultdClientError, type ApiErrorCode } from './errors.js';
import { sleep } from './sleep.js';
import { CLIENT_VERSION } from './version.js';

/** The subset of `fetch` the client calls: GET with headers and a signal. */
export type FetchLike = (url: string, init: { method: 'GET'; headers: Record<string, string>; signal?: AbortSignal }) => Promise<Response>;

export interface RetryOptions {
  /** attempts after the first; default 3 */
  retries?: number;
  /** first backoff when the answer has no Retry-After; doubles per attempt (with jitter); default 250 */
  baseDelayMs?: number;
  /** longest wait before a retry; a Retry-After beyond it fails at once instead; default 30000 */
  maxDelayMs?: number;
}

export interface TransportOptions {
  /** where vaultd answers, e.g. `http://localhost:8080` (a path prefix is kept) */
  baseUrl: string;
  /** a secret from `vaultd keys create`, sent as `Authorization: Bearer <key>` */
  apiKey?: string;
  /** default: the global fetch */
  fetch?: FetchLike;
  /** default `{ retries: 3, baseDelayMs: 250, maxDelayMs: 30000 }`; `false` never retries */
  retry?: RetryOptions | false;
  /** sent outside browsers (default `vaultd-client/<version>`); browsers send their own */
  userAgent?: string;
  /** keep bodies by ETag and revalidate with If-None-Match; `true` = 500 entries; default off */
  etagCache?: boolean | { maxEntries?: number };
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** sent as X-Request-Id (`^[A-Za-z0-9._-]{1,128}$`); the server echoes it */
  requestId?: string;
}

export interface RateLimit {
  /** requests per minute of the caller's tier */
  limit: number;
  remaining: number;
  /** seconds until the budget is full again */
  reset: number;
}

/** What the answer said about itself; from `client.withResponse.<method>()`. */
export interface ResponseInfo {
  /** 200, or 304 when the body came from the ETag cache */
  status: number;
  url: string;
  requestId: string | null;
  etag: string | null;
  /** RateLimit-* headers (every /v1 answer carries them), null elsewhere */
  rateLimit: RateLimit | null;
  cacheControl: string | null;
  /** the request used a deprecated parameter (`Deprecation: true`) */
  deprecated: boolean;
  /** the body is the cached one (the server answered 304); its `meta.request_id` is the first answer's, `requestId` here is this one's */
  fromCache: boolean;
  /** requests sent, retries included */
  attempts: number;
  headers: Headers;
}

export interface Answer<T> {
  body: T;
  response: ResponseInfo;
}

export type QueryValue = string | number | boolean | undefined;

export interface Transport {
  readonly baseUrl: string;
  get<T>(path: string, query: Record<string, QueryValue>, options?: RequestOptions): Promise<Answer<T>>;
}

const DEFAULT_RETRY: Required<RetryOptions> = { retries: 3, baseDelayMs: 250, maxDelayMs: 30_000 };

function invalidOption(message: string): VaultdClientError {
  return new VaultdClientError('INVALID_ARGUMENT', `createClient: ${message}`);
}

function checkCount(name: string, value: unknown): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 0)) {
    throw invalidOption(`${name} must be a non-negative integer, got ${JSON.stringify(value)}`);
  }
}

export function createTransport(options: TransportOptions): Transport {
  if (options === null || typeof options !== 'object') throw invalidOption('options must be an object with a baseUrl');
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw invalidOption(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw invalidOption(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
  }
  const baseUrl = base.href.replace(/\/+$/, '');
  if (options.apiKey !== undefined && (typeof options.apiKey !== 'string' || options.apiKey === '')) throw invalidOption('apiKey must be a non-empty string');
  const retry = options.retry === false ? { ...DEFAULT_RETRY, retries: 0 } : { ...DEFAULT_RETRY, ...options.retry };
  if (options.retry !== false && options.retry !== undefined) {
    checkCount('retry.retries', options.retry.retries);
    checkCount('retry.baseDelayMs', options.retry.baseDelayMs);
    checkCount('retry.maxDelayMs', options.retry.maxDelayMs);
  }
  const fetchFn: FetchLike = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const cache: EtagCache | null = options.etagCache ? createEtagCache(typeof options.etagCache === 'object' ? options.etagCache.maxEntries : undefined) : null;
  const fixed: Record<string, string> = { Accept: 'application/json' };
  if (options.apiKey) fixed.Authorization = `Bearer ${options.apiKey}`;
  // Browsers send their own User-Agent, and a custom one would need a CORS preflight vaultd does not allow.
  const browser = typeof (globalThis as { document?: unknown }).document !== 'undefined';
  if (!browser) fixed['User-Agent'] = options.userAgent ?? `vaultd-client/${CLIENT_VERSION}`;

  return {
    baseUrl,
    async get<T>(path: string, query: Record<string, QueryValue>, request: RequestOptions = {}): Promise<Answer<T>> {
      const url = baseUrl + path + queryString(query);
      const headers: Record<string, string> = { ...fixed };
      if (request.requestId !== undefined) headers['X-Request-Id'] = request.requestId;
      // the cache is per credential: wallet routes are private
      const cacheKey = `${options.apiKey ?? ''} ${url}`;
      for (let attempt = 1; ; attempt++) {
        const cached = cache?.get(cacheKey);
        if (cached) headers['If-None-Match'] = cached.etag;
        let res: Response;
        try {
          res = await fetchFn(url, { method: 'GET', headers, signal: request.signal });
        } catch (err) {
          if (request.signal?.aborted) throw request.signal.reason;
          if (attempt <= retry.retries) {
            await sleep(backoff(retry, attempt), request.signal);
            continue;
          }
          throw new VaultdClientError('NETWORK', `GET ${url} failed: ${(err as Error)?.message ?? String(err)}`, { cause: err });
        }
        if (res.status === 304 && cached) {
          await res.arrayBuffer().catch(() => undefined); // release the connection
          return { body: JSON.parse(cached.text) as T, response: info(res, url, attempt, true) };
        }
        const text = await res.text();
        if (res.status >= 200 && res.status < 300) {
          const body = parseBody(res, url, text) as T;
          const etag = res.headers.get('etag');
          if (cache && etag) cache.set(cacheKey, { etag, text });
          return { body, response: info(res, url, attempt, false) };
        }
        const error = apiError(res, url, text);
        if (error.retryable && attempt <= retry.retries) {
          const wait = error.retryAfterSeconds !== null ? error.retryAfterSeconds * 1000 : backoff(retry, attempt);
          // a wait beyond the bound fails now rather than hang the caller for minutes
          if (wait <= retry.maxDelayMs) {
            await sleep(wait, request.signal);
            continue;
          }
        }
        throw error;
      }
    },
  };
}

/** Exponential backoff with jitter: base·2^(n−1) scaled by [0.5, 1), at most maxDelayMs. */
function backoff(retry: Required<RetryOptions>, attempt: number): number {
  const exp = retry.baseDelayMs * 2 ** (attempt - 1);
  return Math.min(retry.maxDelayMs, Math.round(exp * (0.5 + Math.random() / 2)));
}

function queryString(query: Record<string, QueryValue>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

function parseBody(res: Response, url: string, text: string): unknown {
  if (!/json/i.test(res.headers.get('content-type') ?? '')) return text;
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new VaultdApiError('UNEXPECTED_RESPONSE', `GET ${url} answered ${res.status} with a body that is not JSON`, {
      status: res.status,
      requestId: res.headers.get('x-request-id'),
      retryAfterSeconds: null,
      cause,
    });
  }
}

function intHeader(headers: Headers, name: string): number | null {
  const raw = headers.get(name);
  if (raw === null || !/^\d+$/.test(raw.trim())) return null;
  return Number(raw);
}

/** Retry-After as seconds: a delay (`120`) or an HTTP date; null when absent or unreadable. */
function retryAfter(headers: Headers): number | null {
  const raw = headers.get('retry-after');
  if (raw === null) return null;
  if (/^\d+$/.test(raw.trim())) return Number(raw);
  const at = Date.parse(raw);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - Date.now()) / 1000)) : null;
}

function info(res: Response, url: string, attempts: number, fromCache: boolean): ResponseInfo {
  const h = res.headers;
  const limit = intHeader(h, 'ratelimit-limit');
  const remaining = intHeader(h, 'ratelimit-remaining');
  const reset = intHeader(h, 'ratelimit-reset');
  return {
    status: res.status,
    url,
    requestId: h.get('x-request-id'),
    etag: h.get('etag'),
    rateLimit: limit !== null && remaining !== null && reset !== null ? { limit, remaining, reset } : null,
    cacheControl: h.get('cache-control'),
    deprecated: h.get('deprecation') === 'true',
    fromCache,
    attempts,
    headers: h,
  };
}

// a Record over the generated code union: a code added on the server is a compile error here
const API_CODES: Record<ApiErrorCode, true> = {
  UNAUTHORIZED: true,
  NOT_FOUND: true,
  METHOD_NOT_ALLOWED: true,
  URI_TOO_LONG: true,
  INVALID_PARAMETER: true,
  INVALID_CURSOR: true,
  CURSOR_STALE: true,
  RATE_LIMITED: true,
  NOT_READY: true,
  INTERNAL: true,
};

function apiError(res: Response, url: string, text: string): VaultdApiError {
  const init = { status: res.status, requestId: res.headers.get('x-request-id'), retryAfterSeconds: retryAfter(res.headers) };
  let envelope: { error?: { code?: unknown; message?: unknown; details?: unknown } } | null = null;
  try {
    envelope = JSON.parse(text);
  } catch {
    // not JSON: below
  }
  const e = envelope?.error;
  if (e && typeof e.message === 'string' && typeof e.code === 'string' && Object.hasOwn(API_CODES, e.code)) {
    if (e.code === 'CURSOR_STALE') return new CursorStaleError('CURSOR_STALE', e.message, { ...init, details: e.details });
    return new VaultdApiError(e.code as ApiErrorCode, e.message, { ...init, details: e.details });
  }
  return new VaultdApiError('UNEXPECTED_RESPONSE', `GET ${url} answered ${res.status} without vaultd's error envelope: ${text.slice(0, 200)}`, init);
}
