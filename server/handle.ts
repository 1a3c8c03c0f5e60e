// The request pipeline (DESIGN §5) as an explicit middleware chain (PIPELINE below): fresh
// keys → request id + CORS → auth → rate limit → target length → preflight → method → static
// files → route (snapshot, handler, then ETag/304, encoding, Cache-Control, Vary).
// Synchronous and free of uWS: server/httpServer.ts copies the request in and writes the Reply.
import { createHash } from 'node:crypto';
import { Counter } from 'prom-client';
import type { Common } from '../common/common.js';
import { VaultdError } from '../common/errors.js';
import type { Snapshot } from '../engine/publish/buildSnapshot.js';
import type { AuthTable } from './auth.js';
import type { CursorCodec } from './cursor.js';
import { createRateLimiter, rateLimitHeaders } from './rateLimit.js';
import { errorBody, JSON_TYPE, jsonPage, pageParts, variantsFor, type Body, type Reply } from './reply.js';
import { requestIdFrom } from './requestId.js';
import { cursorsFor, servedFor } from './generations.js';
import { createRequestMetrics } from './requestMetrics.js';
import { matchRoute, type RouteMatch } from './router.js';
import { routeHandler, type RouteContext } from './routes/index.js';
import type { StaticAssets } from './static/staticAssets.js';
import { chooseEncoding } from './transport/negotiate.js';
import type { Variants } from './transport/splice.js';
import type { Page } from '../engine/publish/page.js';
import type { ChainStatus } from './routes/health.js';

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

export interface Served {
  snapshot: Snapshot;
  /** whether scheduled jobs publish new snapshots (else /health never turns degraded) */
  jobs: boolean;
  /** per-chain ingest status from the chain source; derived from the series when absent */
  chainStatus?: ChainStatus[];
  /** content identity of the snapshot (ETag seed of per-request bodies) */
  id: string;
  variants: WeakMap<Page, Variants | null>;
}

export interface HandlerDeps {
  common: Common;
  current: () => Served | null;
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
  generation?: (g: number) => Served | null | Promise<Served | null>;
  /** seconds until the next scheduled publish, or null when no schedule runs */
  secondsToNextPublish: () => number | null;
  started: number;
  /** prebuilt files (the client SDK under /client/); none when absent */
  assets?: StaticAssets;
}

const CORS: [string, string][] = [
  ['Access-Control-Allow-Origin', '*'],
  ['Access-Control-Expose-Headers', 'ETag, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Deprecation, Link'],
];
const PREFLIGHT: [string, string][] = [
  ['Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS'],
  ['Access-Control-Allow-Headers', 'Authorization, X-API-Key, If-None-Match, X-Request-Id, Accept-Encoding, Content-Type'],
  ['Access-Control-Max-Age', '86400'],
];

const ANONYMOUS = { kind: 'anonymous' } as const;

/** One request on its way through the pipeline: what the steps have learned and the headers every answer carries. */
interface Exchange {
  req: IncomingRequest;
  t0: number;
  requestId: string;
  headers: [string, string][];
  isV1: boolean;
  preflight: boolean;
  who: ReturnType<AuthTable['authenticate']>;
  route: RouteMatch | null;
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
  return POSITION_SERIES.test(path) ? POSITION_SERIES_COST : 1;
}

/** Longest request target (path and query) served; cursors are at most 1 KiB. */
export const MAX_TARGET = 8192;
/** Route-match cache budget, in path characters. */
const ROUTE_CACHE_BYTES = 4 * 1024 * 1024;
/** /v1 answers depend on the credential (401, tier headers): caches must key on it too. */
const VARY_V1 = 'Accept-Encoding, Authorization, X-API-Key';

/** One access-log line per this many requests (errors are always logged). */
const LOG_SAMPLE = 1000;

export function createHandler(deps: HandlerDeps) {
  let sampled = 0;
  const { config } = deps.common;
  const limiter = createRateLimiter({
    anonymousPerMinute: config.rate_limits.anonymous_per_minute,
    keyedPerMinute: config.rate_limits.keyed_per_minute,
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
  // kept: unique junk paths must not buy memory.
  const routes = new Map<string, RouteMatch>();
  let routeBytes = 0;
  const routeOf = (path: string): RouteMatch | null => {
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
  let maxAgeAt = 0;
  let maxAgePublic = '';
  let maxAgePrivate = '';

  /**
   * The middleware chain, in order. Each step reads and adds to the exchange and either passes
   * (undefined) or answers; a thrown VaultdError becomes its error envelope. Every answer
   * carries the request id and CORS headers the exchange starts with.
   */
  const PIPELINE: readonly Step[] = [
    // auth: a browser's preflight carries no credential, so it is never authenticated
    (x) => {
      if (!x.isV1) return;
      x.who = x.preflight ? ANONYMOUS : deps.auth().authenticate({ authorization: x.req.authorization, apiKey: x.req.apiKey });
      if (x.who.kind === 'invalid') throw new VaultdError('UNAUTHORIZED', 'the credential is unknown or revoked; pass a valid key as "Authorization: Bearer <key>" or "x-api-key: <key>"');
      if (x.who.kind === 'anonymous' && !config.auth.anonymous && !x.preflight) {
        throw new VaultdError('UNAUTHORIZED', 'this server requires a credential; pass "Authorization: Bearer <key>" or "x-api-key: <key>"');
      }
    },
    // limit: a token bucket per key, or per IP for anonymous callers and preflights (weighted)
    (x) => {
      if (!x.isV1) return;
      const tier = x.who.kind === 'key' ? 'keyed' : 'anonymous';
      const limit = limiter.take(x.who.kind === 'key' ? `key:${x.who.id}` : `ip:${x.req.ip}`, tier, x.preflight ? 1 : costOf(x.req.path));
      x.headers.push(...rateLimitHeaders(limit));
      if (!limit.allowed) {
        rejected.inc({ tier });
        throw new VaultdError('RATE_LIMITED', `rate limit of ${limit.limit} requests per minute exceeded; retry after ${limit.retryAfterSeconds} s`, {
          details: { retry_after_seconds: limit.retryAfterSeconds },
        });
      }
    },
    // target length: 414 past MAX_TARGET
    (x) => {
      if (x.req.path.length + x.req.query.length <= MAX_TARGET) return;
      if (!x.isV1) chargeJunk(x);
      throw new VaultdError('URI_TOO_LONG', `the request target is ${x.req.path.length + x.req.query.length} bytes; the limit is ${MAX_TARGET}`);
    },
    // preflight: 204 with the allowed methods and headers
    (x) => (x.preflight ? reply(x, 204, [], PREFLIGHT) : undefined),
    // method: this API is read-only
    (x) => {
      if (x.req.method === 'GET' || x.req.method === 'HEAD') return;
      throw new VaultdError('METHOD_NOT_ALLOWED', `method ${x.req.method} is not allowed; this API is read-only (GET, HEAD, OPTIONS)`, {
        details: { allowed: ['GET', 'HEAD', 'OPTIONS'] },
      });
    },
    // static files: the client SDK, the explorer and its pages
    (x) => {
      const asset = deps.assets?.answer(x.req);
      return asset ? reply(x, asset.status, asset.parts, asset.headers) : undefined;
    },
    // route: the route table, the snapshot (of the cursor's generation), the handler, cache headers
    (x) => {
      const route = (x.route = routeOf(x.req.path));
      if (!route) {
        if (!x.isV1) chargeJunk(x);
        throw new VaultdError('NOT_FOUND', `no route for "${x.req.path.slice(0, 200)}"; see /openapi.json`);
      }
      const served = servedFor(deps.current(), deps.generation, x.req.query);
      if (served instanceof Promise) return served.then((s) => answer(x, route, s));
      return answer(x, route, served);
    },
  ];

  const reply = (x: Exchange, status: number, parts: Buffer[], extra: [string, string][] = []): Reply => {
    const name = x.route?.name ?? 'unmatched';
    const seconds = (performance.now() - x.t0) / 1000;
    metrics.record(name, status, seconds);
    // Sampled access log: every error response, and one request in LOG_SAMPLE otherwise.
    if (status >= 500 || ++sampled % LOG_SAMPLE === 0) {
      deps.common.logger.info({ request_id: x.requestId, method: x.req.method, path: x.req.path, route: name, status, ms: seconds * 1000 }, 'request');
    }
    for (const h of extra) x.headers.push(h);
    return { status, headers: x.headers, parts };
  };
  const fail = (x: Exchange, original: VaultdError): Reply => {
    let err = original;
    if (err.status === 500) {
      deps.common.logger.error({ request_id: x.requestId, path: x.req.path, err: err.cause ?? err }, 'request failed');
      // Program errors (a store or source failure) never reach a client under their own code.
      if (err.code !== 'INTERNAL') err = new VaultdError('INTERNAL', `internal error (request ${x.requestId}); the server logged the cause`);
    }
    return reply(x, err.status, [errorBody(err)], [['Content-Type', JSON_TYPE]]);
  };
  const caught = (x: Exchange, err: unknown): Reply =>
    fail(x, err instanceof VaultdError ? err : new VaultdError('INTERNAL', `internal error (request ${x.requestId}); the server logged the cause`, { cause: err }));

  /** Unknown paths outside /v1 count against the caller's anonymous budget (no free junk). */
  function chargeJunk(x: Exchange): void {
    const limit = limiter.take(`ip:${x.req.ip}`, 'anonymous');
    if (!limit.allowed) {
      rejected.inc({ tier: 'anonymous' });
      x.headers.push(...rateLimitHeaders(limit));
      throw new VaultdError('RATE_LIMITED', `rate limit of ${limit.limit} requests per minute exceeded; retry after ${limit.retryAfterSeconds} s`, {
        details: { retry_after_seconds: limit.retryAfterSeconds },
      });
    }
  }

  function answer(x: Exchange, match: RouteMatch, served: Served | null): Reply | Promise<Reply> {
    try {
      const ctx: RouteContext = {
        served,
        params: match.params,
        query: x.req.query,
        cursors: cursorsFor(deps.cursors, served),
        common: deps.common,
        started: deps.started,
      };
      return write(x, routeHandler(match.name)(ctx), served);
    } catch (err) {
      return caught(x, err);
    }
  }

  function write(x: Exchange, body: Body, served: Served | null): Reply | Promise<Reply> {
    const extra: [string, string][] = [];
    if (body.kind === 'deferred') {
      return body.load().then(
        (loaded) => write(x, loaded, served),
        (err) => fail(x, new VaultdError('INTERNAL', `internal error (request ${x.requestId})`, { cause: err })),
      );
    }
    if (body.kind === 'raw') {
      extra.push(['Cache-Control', body.cache === 'no-store' ? 'no-store' : maxAge(x)]);
      if (x.isV1) extra.push(['Vary', 'Authorization, X-API-Key']);
      if (body.cache === 'public') {
        // ETag on every cacheable 200 (DESIGN §5.6): raw bodies (price series, the document) hash their bytes.
        const etag = rawEtag(body.body);
        extra.push(['ETag', etag]);
        if (matchesEtag(x.req.ifNoneMatch, etag)) return reply(x, 304, [], extra);
      }
      extra.push(['Content-Type', body.contentType]);
      return reply(x, 200, [body.body], extra);
    }
    const snapshot = served!.snapshot;
    const built = body.kind === 'page' ? { page: body.page, head: [] as Buffer[] } : jsonPage(body, snapshot.refreshed_at, served!.id);
    const page = built.page;
    if (body.kind === 'json' && body.headers) extra.push(...body.headers);
    extra.push(['ETag', page.etag], ['Cache-Control', maxAge(x)], ['Vary', x.isV1 ? VARY_V1 : 'Accept-Encoding']);
    if (matchesEtag(x.req.ifNoneMatch, page.etag)) return reply(x, 304, [], extra);
    let variants: Variants | undefined;
    if (body.kind === 'page') {
      let v = served!.variants.get(page);
      if (v === undefined) served!.variants.set(page, (v = variantsFor(page) ?? null));
      variants = v ?? undefined;
    }
    const { parts, encoding } = pageParts(page, variants, built.head.length > 0 ? 'identity' : chooseEncoding(x.req.acceptEncoding), x.requestId);
    if (built.head.length > 0) parts.unshift(...built.head);
    extra.push(['Content-Type', JSON_TYPE]);
    if (encoding !== 'identity') extra.push(['Content-Encoding', encoding]);
    return reply(x, 200, parts, extra);
  }

  function maxAge(x: Exchange): string {
    // Recomputed at most once a second: the value only changes with the clock.
    const nowS = Math.floor(Date.now() / 1000);
    if (nowS !== maxAgeAt) {
      const s = deps.secondsToNextPublish();
      const age = s === null ? 60 : Math.max(0, Math.ceil(s));
      maxAgeAt = nowS;
      maxAgePublic = `public, max-age=${age}`;
      maxAgePrivate = `private, max-age=${age}`;
    }
    return x.route?.name.startsWith('users.') ? maxAgePrivate : maxAgePublic;
  }

  return function handle(req: IncomingRequest, keysChecked = false): Reply | Promise<Reply> {
    // fresh keys: a request with a credential waits for a key table the database has outdated
    if (!keysChecked && req.method !== 'OPTIONS' && (req.authorization || req.apiKey) && (req.path === '/v1' || req.path.startsWith('/v1/'))) {
      const reloading = deps.keysReloading?.();
      if (reloading) return reloading.then(() => handle(req, true), () => handle(req, true));
    }
    // request id and CORS headers, on every answer
    const requestId = requestIdFrom(req.requestId || undefined);
    const x: Exchange = {
      req,
      t0: performance.now(),
      requestId,
      headers: [['X-Request-Id', requestId], ...CORS],
      isV1: req.path === '/v1' || req.path.startsWith('/v1/'),
      preflight: req.method === 'OPTIONS',
      who: ANONYMOUS,
      route: null,
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

/** If-None-Match: a list of entity tags or `*`; weak comparison (RFC 9110 §13.1.2). */
export function matchesEtag(header: string, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}

