// The request pipeline (DESIGN §5) as an explicit middleware chain (PIPELINE below): fresh
// keys → request id + CORS → auth → rate limit → target length → preflight → method → static
// files → route (snapshot, handler, then ETag/304, encoding, Cache-Control, Vary).
// Synchronous and free of uWS: server/httpServer.ts copies the request in and writes the Reply.
// The common path only looks things up (issue #11): a page's header lines and bodies are built
// once per snapshot and encoding (PageWire), the Cache-Control line once a second, rate-limit
// values travel as numbers; counters are plain numbers turned into Prometheus series at scrape.
import { createHash } from 'node:crypto';
import { crc32Range } from '../common/crc32.js';
import { Counter } from 'prom-client';
import type { Common } from '../common/common.js';
import { VaultdError } from '../common/errors.js';
import type { AuthTable } from './auth.js';
import type { CursorCodec } from './cursor.js';
import { createRateLimiter } from './rateLimit.js';
import {
  compressible,
  errorBody,
  headerLines,
  headerText,
  JSON_TYPE,
  jsonPage,
  OPEN_ARRAY,
  PAGE_BROTLI_QUALITY,
  PAGE_GZIP_LEVEL,
  type Body,
  type JsonBody,
  type Reply,
} from './reply.js';
import { requestIdFrom } from './requestId.js';
import { cursorsFor, servedFor } from './generations.js';
import { createRequestMetrics } from './requestMetrics.js';
import { matchRoute, type RouteMatch, type RouteName } from './router.js';
import { routeHandler, type RouteContext } from './routes/index.js';
import type { StaticAssets } from './static/staticAssets.js';
import { createEncodingChooser, type Encoding } from './transport/negotiate.js';
import {
  brTemplate,
  brVariant,
  gzipItemsTemplate,
  gzipTemplate,
  gzipVariant,
  identityTemplate,
  PRECOMPRESS_MIN_BYTES,
  type BodyTemplate,
} from './transport/splice.js';
import { PAGE_SUFFIX, type Page, type ReadModel } from '../engine/publish/index.js';

export interface IncomingRequest {
  method: string;
  path: string;
  query: string;
  ip: string;
  authorization: string;
  apiKey: string;
  acceptEncoding: string;
  ifNoneMatch: string;
  requestId: string;
}

/**
 * A page ready for the wire: one body template per encoding (a page over 1 KiB is compressed
 * for the first client that takes each encoding: a client asking for identity, or gzip only,
 * does not wait for a brotli pass — 33–69 ms on the benchmark world's 841 KB vault list, on
 * the first request after every publish) and the header lines after the per-request ones, per encoding and /v1-ness.
 */
export interface PageWire {
  page: Page;
  /** sent compressed to clients that take it (over 1 KiB) */
  compress: boolean;
  templates: Partial<Record<Encoding, BodyTemplate>>;
  /** [encoding 0–2 for a 200, 3 for a 304] × [not /v1, /v1] */
  lines: (Buffer | undefined)[];
}

export interface HandlerDeps {
  common: Common;
  /** the newest published read model, null before the first publish */
  current: () => ReadModel | null;
  /** whether scheduled jobs publish new snapshots (else /health never turns degraded) */
  jobs: boolean;
  auth: () => AuthTable;
  /**
   * When the key table may be stale (the database changed since it was read), a promise that
   * settles once it is re-read; null when it is current. Requests carrying a credential wait
   * for it, so a key works the moment `vaultd keys create` returns and a revoked one stops.
   */
  keysReloading?: () => Promise<void> | null;
  cursors: CursorCodec;
  /**
   * Kept generations (readers): the snapshot of the generation a cursor names, so a paged
   * walk stays on one generation (server/generations.ts); absent = always the newest.
   */
  generation?: (g: number) => ReadModel | null | Promise<ReadModel | null>;
  /** seconds until the next scheduled publish, or null when no schedule runs */
  secondsToNextPublish: () => number | null;
  started: number;
  /** prebuilt files (the client SDK under /client/); none when absent */
  assets?: StaticAssets;
  /** each page's wire form (a test may pass its own map to look at what was made) */
  wires?: WeakMap<object, PageWire>;
}

const CORS: [string, string][] = [
  ['Access-Control-Allow-Origin', '*'],
  [
    'Access-Control-Expose-Headers',
    'ETag, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Deprecation, Link',
  ],
];
const PREFLIGHT: [string, string][] = [
  ['Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS'],
  ['Access-Control-Allow-Headers', 'Authorization, X-API-Key, If-None-Match, X-Request-Id, Accept-Encoding, Content-Type'],
  ['Access-Control-Max-Age', '86400'],
];
const JSON_CONTENT: [string, string] = ['Content-Type', JSON_TYPE];
const PREFLIGHT_LINES = headerLines([...CORS, ...PREFLIGHT]);
const ERROR_LINES = headerLines([...CORS, JSON_CONTENT]);
const ENCODINGS: readonly Encoding[] = ['identity', 'gzip', 'br'];
const NO_PARTS: Buffer[] = [];

const ANONYMOUS = { kind: 'anonymous' } as const;

/** One request on its way through the pipeline: what the steps have learned and the headers every answer carries. */
interface Exchange {
  req: IncomingRequest;
  t0: number;
  requestId: string;
  isV1: boolean;
  preflight: boolean;
  who: ReturnType<AuthTable['authenticate']>;
  route: RouteMatch | null;
  /** the RateLimit-* values once the limit step ran (0: no such headers) and Retry-After */
  rateLimit: number;
  rateRemaining: number;
  rateReset: number;
  retryAfter: number;
}
/** A step passes (undefined) or answers. */
type Step = (x: Exchange) => Reply | Promise<Reply> | void;
/**
 * Tokens a request spends: a position timeseries replays the wallet's rows on this thread
 * (~0.1 s for a long history), so it costs what ten page lookups do — within its budget one
 * credential cannot hold the event loop (DESIGN §5.5's buckets, weighted).
 */
export const POSITION_SERIES_COST = 10;
const POSITION_SERIES = /^\/v1\/users\/[^/]+\/positions\/[^/]+\/timeseries$/;
function costOf(path: string): number {
  return path.endsWith('timeseries') && POSITION_SERIES.test(path) ? POSITION_SERIES_COST : 1;
}

/** Longest request target (path and query) served; cursors are at most 1 KiB. */
export const MAX_TARGET = 8192;
/** Route-match cache budget, in path characters. */
const ROUTE_CACHE_BYTES = 4 * 1024 * 1024;
const USERS_PREFIX = '/v1/users/';
/** /v1 answers depend on the credential (401, tier headers): caches must key on it too. */
const VARY_V1 = 'Accept-Encoding, Authorization, X-API-Key';
/** Per-request JSON answers' constant header lines as text, around their ETag (writeJson). */
const CORS_TEXT = headerText(CORS);
const VARY_V1_TEXT = headerText([['Vary', VARY_V1]]);
const VARY_TEXT = headerText([['Vary', 'Accept-Encoding']]);
const JSON_TEXT = headerText([JSON_CONTENT]);
const JSON_GZIP_TEXT = headerText([JSON_CONTENT, ['Content-Encoding', 'gzip']]);

/** One access-log line per this many requests (errors are always logged). */
const LOG_SAMPLE = 1000;
/** Page answers remembered per request target for the newest snapshot (cleared when full). */
const PAGE_TARGETS = 100_000;
/** ... and their targets' characters at most (a junk query per request must not buy memory). */
const PAGE_TARGET_CHARS = 4 * 1024 * 1024;

export function createHandler(deps: HandlerDeps) {
  let sampled = 0;
  const { config } = deps.common;
  // One clock read per request: the rate limiter and the Cache-Control second use the request's
  // start (Date.now() is a system call on some VMs, ~0.3 µs here; performance.now() is not).
  let clock = 0;
  const limiter = createRateLimiter({
    anonymousPerMinute: config.rate_limits.anonymous_per_minute,
    keyedPerMinute: config.rate_limits.keyed_per_minute,
    now: () => clock,
  });
  const metrics = createRequestMetrics(deps.common.metrics, {
    counter: 'vaultd_http_requests_total',
    counterHelp: 'HTTP requests by route and status',
    histogram: 'vaultd_http_request_duration_seconds',
    histogramHelp: 'Time to build a response, by route',
    buckets: [0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.02, 0.1],
  });
  const rejected = new Counter({
    name: 'vaultd_rate_limit_rejections_total',
    help: 'Requests refused with 429, by tier',
    labelNames: ['tier'],
    registers: [deps.common.metrics],
  });

  // Route matches of recently seen paths, bounded by bytes (cleared when full). Misses are not
  // kept: unique junk paths must not buy memory. Nor are wallet paths: one per wallet, seldom
  // asked twice in a row under random-wallet traffic, they only missed here and filled the
  // memo with matches that lived long enough to be promoted (old-generation garbage).
  const routes = new Map<string, RouteMatch>();
  let routeBytes = 0;
  const routeOf = (path: string): RouteMatch | null => {
    if (path.startsWith(USERS_PREFIX)) return matchRoute(path);
    const hit = routes.get(path);
    if (hit !== undefined) return hit;
    const m = matchRoute(path);
    if (m === null) return null;
    if (routeBytes + path.length > ROUTE_CACHE_BYTES) {
      routes.clear();
      routeBytes = 0;
    }
    routes.set(path, m);
    routeBytes += path.length;
    return m;
  };
  // Requests for a page of the newest snapshot: the handler's answer is a function of the
  // target (path and query) alone, so it is remembered per target — the query is parsed and
  // validated once, not per request (errors are thrown, never remembered). Targets carrying a
  // cursor are not: the generation it names decides the snapshot, and walks rarely repeat.
  let pagesOf: ReadModel | null = null;
  const pagesByTarget = new Map<string, Page>();
  const pageRoutes = new Set<RouteName>();
  let pageTargetChars = 0;
  const targetOf = (req: IncomingRequest): string | null => (req.query === '' ? req.path : req.query.includes('next=') ? null : `${req.path}?${req.query}`);
  const choose = createEncodingChooser();
  // each page's wire form, made on its first request (pages are per snapshot: they go with it)
  const wires = deps.wires ?? new WeakMap<object, PageWire>();
  const assetsUnderV1 = deps.assets?.servesUnder('/v1') ?? false;
  let maxAgeAt = -1;
  let maxAgePublic = headerLines([]);
  let maxAgePrivate = maxAgePublic;
  const noStore = headerLines([['Cache-Control', 'no-store']]);

  /**
   * The middleware chain, in order. Each step reads and adds to the exchange and either passes
   * (undefined) or answers; a thrown VaultdError becomes its error envelope. Every answer
   * carries the request id and CORS headers the exchange starts with.
   */
  const PIPELINE: readonly Step[] = [
    // auth: a browser's preflight carries no credential, so it is never authenticated
    (x) => {
      if (!x.isV1) return;
      x.who =
        x.preflight || (!x.req.authorization && !x.req.apiKey)
          ? ANONYMOUS
          : deps.auth().authenticate({ authorization: x.req.authorization, apiKey: x.req.apiKey });
      if (x.who.kind === 'invalid')
        throw new VaultdError('UNAUTHORIZED', 'the credential is unknown or revoked; pass a valid key as "Authorization: Bearer <key>" or "x-api-key: <key>"');
      if (x.who.kind === 'anonymous' && !config.auth.anonymous && !x.preflight) {
        throw new VaultdError('UNAUTHORIZED', 'this server requires a credential; pass "Authorization: Bearer <key>" or "x-api-key: <key>"');
      }
    },
    // limit: a token bucket per key, or per IP for anonymous callers and preflights (weighted)
    (x) => {
      if (!x.isV1) return;
      // the tiers keep separate buckets: an IP and a key id never share one
      const tier = x.who.kind === 'key' ? 'keyed' : 'anonymous';
      spend(x, x.who.kind === 'key' ? x.who.id : x.req.ip, tier, x.preflight ? 1 : costOf(x.req.path));
    },
    // target length: 414 past MAX_TARGET
    (x) => {
      if (x.req.path.length + x.req.query.length <= MAX_TARGET) return;
      if (!x.isV1) chargeJunk(x);
      throw new VaultdError('URI_TOO_LONG', `the request target is ${x.req.path.length + x.req.query.length} bytes; the limit is ${MAX_TARGET}`);
    },
    // preflight: 204 with the allowed methods and headers
    (x) => (x.preflight ? reply(x, 204, PREFLIGHT_LINES, null) : undefined),
    // method: this API is read-only
    (x) => {
      if (x.req.method === 'GET' || x.req.method === 'HEAD') return;
      throw new VaultdError('METHOD_NOT_ALLOWED', `method ${x.req.method} is not allowed; this API is read-only (GET, HEAD, OPTIONS)`, {
        details: { allowed: ['GET', 'HEAD', 'OPTIONS'] },
      });
    },
    // static files: the client SDK, the explorer and its pages (none under /v1)
    (x) => {
      if (x.isV1 && !assetsUnderV1) return;
      const asset = deps.assets?.answer(x.req);
      return asset ? reply(x, asset.status, headerLines([...CORS, ...asset.headers]), null, null, asset.parts) : undefined;
    },
    // route: the route table, the snapshot (of the cursor's generation), the handler, cache headers
    (x) => {
      const route = (x.route = routeOf(x.req.path));
      if (!route) {
        if (!x.isV1) chargeJunk(x);
        throw new VaultdError('NOT_FOUND', `no route for "${x.req.path.slice(0, 200)}"; see /openapi.json`);
      }
      const current = deps.current();
      // routes that have never answered with a page (windows, wallets) skip the lookup: their
      // target, a fresh string per request, would be concatenated and hashed only to miss
      const target = current === null || !pageRoutes.has(route.name) ? null : targetOf(x.req);
      if (target !== null) {
        if (pagesOf !== current) {
          pagesByTarget.clear();
          pageTargetChars = 0;
          pagesOf = current;
        }
        const page = pagesByTarget.get(target);
        if (page !== undefined) return writePage(x, page);
      }
      const served = servedFor(current, deps.generation, x.req.query);
      if (served instanceof Promise) return served.then((s) => answer(x, route, s));
      return answer(x, route, served);
    },
  ];

  const reply = (
    x: Exchange,
    status: number,
    fixed: Buffer,
    cacheControl: Buffer | null,
    template: BodyTemplate | null = null,
    parts: Buffer[] = NO_PARTS,
  ): Reply => {
    const name = x.route?.name ?? 'unmatched';
    const seconds = (performance.now() - x.t0) / 1000;
    metrics.record(name, status, seconds);
    // Sampled access log: every error response, and one request in LOG_SAMPLE otherwise.
    if (status >= 500 || ++sampled % LOG_SAMPLE === 0) {
      deps.common.logger.info({ request_id: x.requestId, method: x.req.method, path: x.req.path, route: name, status, ms: seconds * 1000 }, 'request');
    }
    let length = 0;
    if (template !== null) length = template.length(x.requestId);
    else for (let i = 0; i < parts.length; i++) length += parts[i]!.length;
    return {
      status,
      requestId: x.requestId,
      rateLimit: x.rateLimit,
      rateRemaining: x.rateRemaining,
      rateReset: x.rateReset,
      retryAfter: x.retryAfter,
      cacheControl,
      fixed,
      template,
      parts,
      length,
    };
  };
  const fail = (x: Exchange, original: VaultdError): Reply => {
    let err = original;
    if (err.status === 500) {
      deps.common.logger.error({ request_id: x.requestId, path: x.req.path, err: err.cause ?? err }, 'request failed');
      // Program errors (a store or source failure) never reach a client under their own code.
      if (err.code !== 'INTERNAL') err = new VaultdError('INTERNAL', `internal error (request ${x.requestId}); the server logged the cause`);
    }
    return reply(x, err.status, ERROR_LINES, null, null, [errorBody(err)]);
  };
  const caught = (x: Exchange, err: unknown): Reply =>
    fail(
      x,
      err instanceof VaultdError ? err : new VaultdError('INTERNAL', `internal error (request ${x.requestId}); the server logged the cause`, { cause: err }),
    );

  /**
   * Spend from a bucket. Under /v1 every answer carries the values (DESIGN §5.5); elsewhere
   * (unknown paths outside /v1 count against the anonymous budget: no free junk) only a 429.
   */
  function spend(x: Exchange, bucket: string, tier: 'anonymous' | 'keyed', cost: number): void {
    const limit = limiter.take(bucket, tier, cost);
    if (x.isV1 || !limit.allowed) {
      x.rateLimit = limit.limit;
      x.rateRemaining = limit.remaining;
      x.rateReset = limit.resetSeconds;
    }
    if (!limit.allowed) {
      x.retryAfter = limit.retryAfterSeconds;
      rejected.inc({ tier });
      throw new VaultdError('RATE_LIMITED', `rate limit of ${limit.limit} requests per minute exceeded; retry after ${limit.retryAfterSeconds} s`, {
        details: { retry_after_seconds: limit.retryAfterSeconds },
      });
    }
  }

  function chargeJunk(x: Exchange): void {
    spend(x, x.req.ip, 'anonymous', 1);
  }

  function answer(x: Exchange, match: RouteMatch, served: ReadModel | null): Reply | Promise<Reply> {
    try {
      const ctx: RouteContext = {
        model: served,
        jobs: deps.jobs,
        params: match.params,
        query: x.req.query,
        cursors: cursorsFor(deps.cursors, served),
        common: deps.common,
        started: deps.started,
      };
      const body = routeHandler(match.name)(ctx);
      if (body.kind === 'page') pageRoutes.add(match.name);
      const target = body.kind === 'page' && served === pagesOf ? targetOf(x.req) : null;
      if (target !== null && body.kind === 'page') {
        if (pagesByTarget.size >= PAGE_TARGETS || pageTargetChars + target.length > PAGE_TARGET_CHARS) {
          pagesByTarget.clear();
          pageTargetChars = 0;
        }
        pagesByTarget.set(target, body.page);
        pageTargetChars += target.length;
      }
      return write(x, body, served);
    } catch (err) {
      return caught(x, err);
    }
  }

  function write(x: Exchange, body: Body, served: ReadModel | null): Reply | Promise<Reply> {
    if (body.kind === 'deferred') {
      return body.load().then(
        (loaded) => write(x, loaded, served),
        (err) => fail(x, new VaultdError('INTERNAL', `internal error (request ${x.requestId})`, { cause: err })),
      );
    }
    if (body.kind === 'raw') {
      const cache = body.cache === 'no-store' ? noStore : maxAge(x);
      const lines: [string, string][] = [...CORS];
      if (x.isV1) lines.push(['Vary', 'Authorization, X-API-Key']);
      if (body.cache === 'public') {
        // ETag on every cacheable 200 (DESIGN §5.6): raw bodies (price series, the document) hash their bytes.
        const etag = rawEtag(body.body);
        lines.push(['ETag', etag]);
        if (matchesEtag(x.req.ifNoneMatch, etag)) return reply(x, 304, headerLines(lines), cache);
      }
      lines.push(['Content-Type', body.contentType]);
      return reply(x, 200, headerLines(lines), cache, null, [body.body]);
    }
    if (body.kind === 'page') return writePage(x, body.page);
    return writeJson(x, body, served!);
  }

  /** A page of the snapshot: its wire form's header lines and the template of the chosen encoding. */
  function writePage(x: Exchange, page: Page): Reply {
    let wire = wires.get(page);
    if (wire === undefined) wires.set(page, (wire = { page, compress: compressible(page), templates: {}, lines: [] }));
    if (matchesEtag(x.req.ifNoneMatch, page.etag)) return reply(x, 304, pageLines(wire, 3, x.isV1), maxAge(x));
    const encoding = wire.compress ? choose(x.req.acceptEncoding, true) : 'identity';
    const e = encoding === 'identity' ? 0 : encoding === 'gzip' ? 1 : 2;
    return reply(x, 200, pageLines(wire, e, x.isV1), maxAge(x), wire.templates[encoding] ?? templateOf(wire, encoding));
  }

  /** A per-request envelope; a window's points also go out gzipped when the client takes gzip. */
  function writeJson(x: Exchange, body: JsonBody, served: ReadModel): Reply {
    const built = jsonPage(body, served.refreshedAt, served.id);
    // the lines of headerLines([...CORS, ...body.headers, ETag, Vary, Content-Type, Content-Encoding?]),
    // written as one string of prebuilt pieces: only the ETag (and rare extra headers) vary
    const before = body.headers ? CORS_TEXT + headerText(body.headers) : CORS_TEXT;
    const etagVary = `${before}\r\nETag: ${built.page.etag}${x.isV1 ? VARY_V1_TEXT : VARY_TEXT}`;
    if (matchesEtag(x.req.ifNoneMatch, built.page.etag)) return reply(x, 304, Buffer.from(etagVary, 'latin1'), maxAge(x));
    const compressible = body.deflated !== undefined && built.prefixLength + x.requestId.length + PAGE_SUFFIX.length > PRECOMPRESS_MIN_BYTES;
    if (compressible && choose(x.req.acceptEncoding, false) === 'gzip') {
      const gzip = gzipItemsTemplate(OPEN_ARRAY, OPEN_CRC, body.deflated!(), built.page.prefix);
      return reply(x, 200, Buffer.from(etagVary + JSON_GZIP_TEXT, 'latin1'), maxAge(x), gzip);
    }
    const parts = [...built.head, built.page.prefix, Buffer.from(x.requestId, 'latin1'), PAGE_SUFFIX];
    return reply(x, 200, Buffer.from(etagVary + JSON_TEXT, 'latin1'), maxAge(x), null, parts);
  }

  /** The Cache-Control line: public on snapshot routes, private on wallet routes (DESIGN §5.6). */
  function maxAge(x: Exchange): Buffer {
    // Rebuilt at most once a second: the value only changes with the clock.
    const nowS = Math.floor(clock / 1000);
    if (nowS !== maxAgeAt) {
      const s = deps.secondsToNextPublish();
      const age = s === null ? 60 : Math.max(0, Math.ceil(s));
      maxAgeAt = nowS;
      maxAgePublic = headerLines([['Cache-Control', `public, max-age=${age}`]]);
      maxAgePrivate = headerLines([['Cache-Control', `private, max-age=${age}`]]);
    }
    return x.route !== null && x.route.name.startsWith('users.') ? maxAgePrivate : maxAgePublic;
  }

  return function handle(req: IncomingRequest, keysChecked = false): Reply | Promise<Reply> {
    // fresh keys: a request with a credential waits for a key table the database has outdated
    if (!keysChecked && req.method !== 'OPTIONS' && (req.authorization || req.apiKey) && (req.path === '/v1' || req.path.startsWith('/v1/'))) {
      const reloading = deps.keysReloading?.();
      if (reloading)
        return reloading.then(
          () => handle(req, true),
          () => handle(req, true),
        );
    }
    // request id and CORS headers, on every answer
    const requestId = requestIdFrom(req.requestId || undefined);
    const t0 = performance.now();
    clock = TIME_ORIGIN + t0;
    const x: Exchange = {
      req,
      t0,
      requestId,
      isV1: req.path === '/v1' || req.path.startsWith('/v1/'),
      preflight: req.method === 'OPTIONS',
      who: ANONYMOUS,
      route: null,
      rateLimit: 0,
      rateRemaining: 0,
      rateReset: 0,
      retryAfter: 0,
    };
    try {
      for (const step of PIPELINE) {
        const out = step(x);
        if (out !== undefined) return out;
      }
      // the last step always answers
      throw new VaultdError('INTERNAL', 'the request pipeline ended without an answer');
    } catch (err) {
      return caught(x, err);
    }
  };
}

const rawEtags = new WeakMap<Buffer, string>();

/** A strong ETag of a raw body; cached per buffer (the OpenAPI document is one shared buffer). */
function rawEtag(body: Buffer): string {
  let etag = rawEtags.get(body);
  if (etag === undefined) rawEtags.set(body, (etag = `"${createHash('sha1').update(body).digest('base64url')}"`));
  return etag;
}

/** The header lines of a page answer: [identity, gzip, br, 304] × [not /v1, /v1], made once. */
function pageLines(wire: PageWire, kind: number, v1: boolean): Buffer {
  const i = kind * 2 + (v1 ? 1 : 0);
  let lines = wire.lines[i];
  if (lines === undefined) {
    const list: [string, string][] = [...CORS, ['ETag', wire.page.etag], ['Vary', v1 ? VARY_V1 : 'Accept-Encoding']];
    if (kind < 3) list.push(JSON_CONTENT);
    if (kind === 1 || kind === 2) list.push(['Content-Encoding', ENCODINGS[kind]!]);
    wire.lines[i] = lines = headerLines(list);
  }
  return lines;
}

function templateOf(wire: PageWire, encoding: Encoding): BodyTemplate {
  const { prefix } = wire.page;
  const t =
    encoding === 'gzip'
      ? gzipTemplate(gzipVariant(prefix, PAGE_GZIP_LEVEL))
      : encoding === 'br'
        ? brTemplate(brVariant(prefix, PAGE_BROTLI_QUALITY))
        : identityTemplate(wire.page);
  wire.templates[encoding] = t;
  return t;
}

const OPEN_CRC = crc32Range(OPEN_ARRAY, 0, OPEN_ARRAY.length, 0);
/** performance.now() + this = milliseconds since the epoch (monotonic: a clock step does not move it). */
const TIME_ORIGIN = performance.timeOrigin;

/** If-None-Match: a list of entity tags or `*`; weak comparison (RFC 9110 §13.1.2). */
export function matchesEtag(header: string, etag: string): boolean {
  if (!header) return false;
  if (header === etag) return true; // what a client sends back: one tag, as it came
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}
