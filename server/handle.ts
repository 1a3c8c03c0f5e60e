// The request pipeline (DESIGN §5): request id, auth, rate limit, method, route, readiness,
// handler, then headers (ETag/304, encoding, Cache-Control, CORS, rate-limit headers).
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

  return function handle(req: IncomingRequest, keysChecked = false): Reply | Promise<Reply> {
    if (!keysChecked && req.method !== 'OPTIONS' && (req.authorization || req.apiKey) && (req.path === '/v1' || req.path.startsWith('/v1/'))) {
      const reloading = deps.keysReloading?.();
      if (reloading) return reloading.then(() => handle(req, true), () => handle(req, true));
    }
    const t0 = performance.now();
    const requestId = requestIdFrom(req.requestId || undefined);
    const headers: [string, string][] = [['X-Request-Id', requestId], ...CORS];
    const isV1 = req.path === '/v1' || req.path.startsWith('/v1/');
    let route: RouteMatch | null = null;
    const reply = (status: number, parts: Buffer[], extra: [string, string][] = []): Reply => {
      const name = route?.name ?? 'unmatched';
      const seconds = (performance.now() - t0) / 1000;
      metrics.record(name, status, seconds);
      // Sampled access log: every error response, and one request in LOG_SAMPLE otherwise.
      if (status >= 500 || ++sampled % LOG_SAMPLE === 0) {
        deps.common.logger.info({ request_id: requestId, method: req.method, path: req.path, route: name, status, ms: seconds * 1000 }, 'request');
      }
      for (const h of extra) headers.push(h);
      return { status, headers, parts };
    };
    const fail = (original: VaultdError): Reply => {
      let err = original;
      if (err.status === 500) {
        deps.common.logger.error({ request_id: requestId, path: req.path, err: err.cause ?? err }, 'request failed');
        // Program errors (a store or source failure) never reach a client under their own code.
        if (err.code !== 'INTERNAL') err = new VaultdError('INTERNAL', `internal error (request ${requestId}); the server logged the cause`);
      }
      return reply(err.status, [errorBody(err)], [['Content-Type', JSON_TYPE]]);
    };

    try {
      const preflight = req.method === 'OPTIONS';
      if (isV1) {
        // A browser's preflight carries no credential: never authenticated, counted per IP.
        const who = preflight ? ANONYMOUS : deps.auth().authenticate({ authorization: req.authorization, apiKey: req.apiKey });
        if (who.kind === 'invalid') throw new VaultdError('UNAUTHORIZED', 'the credential is unknown or revoked; pass a valid key as "Authorization: Bearer <key>" or "x-api-key: <key>"');
        if (who.kind === 'anonymous' && !config.auth.anonymous && !preflight) {
          throw new VaultdError('UNAUTHORIZED', 'this server requires a credential; pass "Authorization: Bearer <key>" or "x-api-key: <key>"');
        }
        const tier = who.kind === 'key' ? 'keyed' : 'anonymous';
        const limit = limiter.take(who.kind === 'key' ? `key:${who.id}` : `ip:${req.ip}`, tier, preflight ? 1 : costOf(req.path));
        headers.push(...rateLimitHeaders(limit));
        if (!limit.allowed) {
          rejected.inc({ tier });
          throw new VaultdError('RATE_LIMITED', `rate limit of ${limit.limit} requests per minute exceeded; retry after ${limit.retryAfterSeconds} s`, {
            details: { retry_after_seconds: limit.retryAfterSeconds },
          });
        }
      }
      if (req.path.length + req.query.length > MAX_TARGET) {
        if (!isV1) chargeJunk();
        throw new VaultdError('URI_TOO_LONG', `the request target is ${req.path.length + req.query.length} bytes; the limit is ${MAX_TARGET}`);
      }
      if (preflight) return reply(204, [], PREFLIGHT);
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        throw new VaultdError('METHOD_NOT_ALLOWED', `method ${req.method} is not allowed; this API is read-only (GET, HEAD, OPTIONS)`, {
          details: { allowed: ['GET', 'HEAD', 'OPTIONS'] },
        });
      }
      const asset = deps.assets?.answer(req);
      if (asset) return reply(asset.status, asset.parts, asset.headers);
      route = routeOf(req.path);
      if (!route) {
        if (!isV1) chargeJunk();
        throw new VaultdError('NOT_FOUND', `no route for "${req.path.slice(0, 200)}"; see /openapi.json`);
      }
      const served = servedFor(deps.current(), deps.generation, req.query);
      if (served instanceof Promise) return served.then((s) => answer(route!, s));
      return answer(route, served);
    } catch (err) {
      return caught(err);
    }

    function caught(err: unknown): Reply {
      if (err instanceof VaultdError) return fail(err);
      return fail(new VaultdError('INTERNAL', `internal error (request ${requestId}); the server logged the cause`, { cause: err }));
    }

    function answer(match: RouteMatch, served: Served | null): Reply | Promise<Reply> {
      try {
        const ctx: RouteContext = {
          served,
          params: match.params,
          query: req.query,
          cursors: cursorsFor(deps.cursors, served),
          common: deps.common,
          started: deps.started,
        };
        return write(routeHandler(match.name)(ctx), served);
      } catch (err) {
        return caught(err);
      }
    }

    /** Unknown paths outside /v1 count against the caller's anonymous budget (no free junk). */
    function chargeJunk(): void {
      const limit = limiter.take(`ip:${req.ip}`, 'anonymous');
      if (!limit.allowed) {
        rejected.inc({ tier: 'anonymous' });
        headers.push(...rateLimitHeaders(limit));
        throw new VaultdError('RATE_LIMITED', `rate limit of ${limit.limit} requests per minute exceeded; retry after ${limit.retryAfterSeconds} s`, {
          details: { retry_after_seconds: limit.retryAfterSeconds },
        });
      }
    }

    function write(body: Body, served: Served | null): Reply | Promise<Reply> {
      const extra: [string, string][] = [];
      if (body.kind === 'deferred') {
        return body.load().then(
          (loaded) => write(loaded, served),
          (err) => fail(new VaultdError('INTERNAL', `internal error (request ${requestId})`, { cause: err })),
        );
      }
      if (body.kind === 'raw') {
        extra.push(['Cache-Control', body.cache === 'no-store' ? 'no-store' : maxAge()]);
        if (isV1) extra.push(['Vary', 'Authorization, X-API-Key']);
        if (body.cache === 'public') {
          // ETag on every cacheable 200 (DESIGN §5.6): raw bodies (price series, the document) hash their bytes.
          const etag = rawEtag(body.body);
          extra.push(['ETag', etag]);
          if (matchesEtag(req.ifNoneMatch, etag)) return reply(304, [], extra);
        }
        extra.push(['Content-Type', body.contentType]);
        return reply(200, [body.body], extra);
      }
      const snapshot = served!.snapshot;
      const built = body.kind === 'page' ? { page: body.page, head: [] as Buffer[] } : jsonPage(body, snapshot.refreshed_at, served!.id);
      const page = built.page;
      if (body.kind === 'json' && body.headers) extra.push(...body.headers);
      extra.push(['ETag', page.etag], ['Cache-Control', maxAge()], ['Vary', isV1 ? VARY_V1 : 'Accept-Encoding']);
      if (matchesEtag(req.ifNoneMatch, page.etag)) return reply(304, [], extra);
      let variants: Variants | undefined;
      if (body.kind === 'page') {
        let v = served!.variants.get(page);
        if (v === undefined) served!.variants.set(page, (v = variantsFor(page) ?? null));
        variants = v ?? undefined;
      }
      const { parts, encoding } = pageParts(page, variants, built.head.length > 0 ? 'identity' : chooseEncoding(req.acceptEncoding), requestId);
      if (built.head.length > 0) parts.unshift(...built.head);
      extra.push(['Content-Type', JSON_TYPE]);
      if (encoding !== 'identity') extra.push(['Content-Encoding', encoding]);
      return reply(200, parts, extra);
    }

    function maxAge(): string {
      // Recomputed at most once a second: the value only changes with the clock.
      const nowS = Math.floor(Date.now() / 1000);
      if (nowS !== maxAgeAt) {
        const s = deps.secondsToNextPublish();
        const age = s === null ? 60 : Math.max(0, Math.ceil(s));
        maxAgeAt = nowS;
        maxAgePublic = `public, max-age=${age}`;
        maxAgePrivate = `private, max-age=${age}`;
      }
      return route?.name.startsWith('users.') ? maxAgePrivate : maxAgePublic;
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

