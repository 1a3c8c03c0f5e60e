// Everything an answer is made of besides its body, in one place: the envelope around a per-request
// body, ETags and 304s, Cache-Control, Vary, the encoding, error envelopes, and the request
// metrics and sampled access log every answer goes through. The common path only looks things
// up: a page's header lines and bodies are built once per snapshot and encoding (PageWire), the
// Cache-Control line once a second, rate-limit values travel as numbers.
import { createHash } from 'node:crypto';
import type { Common } from '../common/common.js';
import { crc32Range } from '../common/crc32.js';
import { VaultdError } from '../common/errors.js';
import { PAGE_SUFFIX, type Page, type ReadModel } from '../engine/publish/index.js';
import { ERROR_LINES, EVERY_ANSWER, EVERY_ANSWER_TEXT, type Exchange, JSON_CONTENT, METHOD_NOT_ALLOWED_LINES } from './exchange.js';
import {
  type Body,
  compressible,
  errorBody,
  headerLines,
  headerText,
  type JsonBody,
  jsonEtag,
  jsonPage,
  OPEN_ARRAY,
  PAGE_BROTLI_QUALITY,
  PAGE_GZIP_LEVEL,
  type Reply,
} from './reply.js';
import { createRequestMetrics } from './requestMetrics.js';
import type { SloMonitor } from './sloMonitor.js';
import { createEncodingChooser, type Encoding } from './transport/negotiate.js';
import {
  type BodyTemplate,
  brTemplate,
  brVariant,
  gzipItemsTemplate,
  gzipTemplate,
  gzipVariant,
  identityTemplate,
  PRECOMPRESS_MIN_BYTES,
} from './transport/splice.js';

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

export interface Responder {
  /** An answer with prebuilt header lines and a body (a template, or parts); records the request's metrics. */
  reply(x: Exchange, status: number, fixed: Buffer, cacheControl: Buffer | null, template?: BodyTemplate | null, parts?: Buffer[]): Reply;
  /** The error envelope (DESIGN §5.3); a 500 is logged and never shows its cause. */
  fail(x: Exchange, err: VaultdError): Reply;
  /** Any thrown value as an error answer. */
  caught(x: Exchange, err: unknown): Reply;
  /** A route's body: a page, a per-request envelope, a raw body, or one that loads first. */
  write(x: Exchange, body: Body, model: ReadModel | null): Reply | Promise<Reply>;
  /** A page of the snapshot in the encoding the client takes (or 304). */
  page(x: Exchange, page: Page): Reply;
}

export interface ResponderDeps {
  common: Common;
  /** seconds until the next scheduled publish, or null when no schedule runs (Cache-Control max-age) */
  secondsToNextPublish: () => number | null;
  /** each page's wire form (a test may pass its own map to look at what was made) */
  wires?: WeakMap<object, PageWire>;
  /** the live service level figures every answer feeds (DESIGN §11.9) */
  slo?: SloMonitor;
}

/** /v1 answers depend on the credential (401, tier headers): caches must key on it too. */
const VARY_V1 = 'Accept-Encoding, Authorization, X-API-Key';
/** Per-request JSON answers' constant header lines as text, around their ETag (writeJson). */
const VARY_V1_TEXT = headerText([['Vary', VARY_V1]]);
const VARY_TEXT = headerText([['Vary', 'Accept-Encoding']]);
const JSON_TEXT = headerText([JSON_CONTENT]);
const JSON_GZIP_TEXT = headerText([JSON_CONTENT, ['Content-Encoding', 'gzip']]);
const ENCODINGS: readonly Encoding[] = ['identity', 'gzip', 'br'];
const NO_PARTS: Buffer[] = [];
const OPEN_CRC = crc32Range(OPEN_ARRAY, 0, OPEN_ARRAY.length, 0);
/** One access-log line per this many requests (errors are always logged). */
const LOG_SAMPLE = 1000;

export function createResponder(deps: ResponderDeps): Responder {
  let sampled = 0;
  const slo = deps.slo;
  const metrics = createRequestMetrics(deps.common.metrics, {
    counter: 'vaultd_http_requests_total',
    counterHelp: 'HTTP requests by route and status',
    histogram: 'vaultd_http_request_duration_seconds',
    histogramHelp: 'Time to build a response, by route',
    buckets: [0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.02, 0.1],
  });
  const choose = createEncodingChooser();
  // each page's wire form, made on its first request (pages are per snapshot: they go with it)
  const wires = deps.wires ?? new WeakMap<object, PageWire>();
  let maxAgeAt = -1;
  let maxAgePublic = headerLines([]);
  let maxAgePrivate = maxAgePublic;
  const noStore = headerLines([['Cache-Control', 'no-store']]);

  const reply: Responder['reply'] = (x, status, fixed, cacheControl, template = null, parts = NO_PARTS) => {
    const name = x.route?.name ?? 'unmatched';
    const seconds = (performance.now() - x.t0) / 1000;
    metrics.record(name, status, seconds);
    // the request's own clock read and its duration: no second read of the wall clock per request
    slo?.record(name, status, seconds, x.clock + seconds * 1000);
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

  const fail: Responder['fail'] = (x, original) => {
    let err = original;
    if (err.status === 500) {
      deps.common.logger.error({ request_id: x.requestId, path: x.req.path, err: err.cause ?? err }, 'request failed');
      // Program errors (a store or source failure) never reach a client under their own code.
      if (err.code !== 'INTERNAL') err = new VaultdError('INTERNAL', `internal error (request ${x.requestId}); the server logged the cause`);
    }
    return reply(x, err.status, err.status === 405 ? METHOD_NOT_ALLOWED_LINES : ERROR_LINES, null, null, [errorBody(err)]);
  };

  const caught: Responder['caught'] = (x, err) =>
    fail(
      x,
      err instanceof VaultdError ? err : new VaultdError('INTERNAL', `internal error (request ${x.requestId}); the server logged the cause`, { cause: err }),
    );

  /** The Cache-Control line: public on snapshot routes, private on wallet routes (DESIGN §5.6). */
  function maxAge(x: Exchange): Buffer {
    // Rebuilt at most once a second: the value only changes with the clock.
    const nowS = Math.floor(x.clock / 1000);
    if (nowS !== maxAgeAt) {
      const s = deps.secondsToNextPublish();
      const age = s === null ? 60 : Math.max(0, Math.ceil(s));
      maxAgeAt = nowS;
      maxAgePublic = headerLines([['Cache-Control', `public, max-age=${age}`]]);
      maxAgePrivate = headerLines([['Cache-Control', `private, max-age=${age}`]]);
    }
    return x.route !== null && x.route.name.startsWith('users.') ? maxAgePrivate : maxAgePublic;
  }

  /** A page of the snapshot: its wire form's header lines and the template of the chosen encoding. */
  const page: Responder['page'] = (x, p) => {
    if (p.past) return pastPage(x, p);
    let wire = wires.get(p);
    if (wire === undefined) wires.set(p, (wire = { page: p, compress: compressible(p), templates: {}, lines: [] }));
    if (matchesEtag(x.req.ifNoneMatch, p.etag)) return reply(x, 304, pageLines(wire, 3, x.isV1), maxAge(x));
    const encoding = wire.compress ? choose(x.req.acceptEncoding, true) : 'identity';
    const e = encoding === 'identity' ? 0 : encoding === 'gzip' ? 1 : 2;
    return reply(x, 200, pageLines(wire, e, x.isV1), maxAge(x), wire.templates[encoding] ?? templateOf(wire, encoding));
  };

  /**
   * A page of a view of the past: made per instant asked for, mostly sent once. Uncompressed,
   * its header lines are made for the answer and its body goes out as parts (identityTemplate's
   * bytes without a private copy of the page); compressed, its wire form is kept on the page
   * itself (a kept view's page is asked again; a weak map's entry per short-lived page is an
   * ephemeron every garbage collection walks).
   */
  function pastPage(x: Exchange, p: Page): Reply {
    const compress = compressible(p);
    const encoding = compress ? choose(x.req.acceptEncoding, true) : 'identity';
    const e = matchesEtag(x.req.ifNoneMatch, p.etag) ? 3 : encoding === 'identity' ? 0 : encoding === 'gzip' ? 1 : 2;
    if (e === 3 || e === 0) {
      const lines = Buffer.from(pageLinesText(p.etag, e, x.isV1), 'latin1');
      if (e === 3) return reply(x, 304, lines, maxAge(x));
      return reply(x, 200, lines, maxAge(x), null, [p.prefix, Buffer.from(x.requestId, 'latin1'), PAGE_SUFFIX]);
    }
    let wire = p.wire as PageWire | undefined;
    if (wire === undefined) p.wire = wire = { page: p, compress, templates: {}, lines: [] };
    return reply(x, 200, pageLines(wire, e, x.isV1), maxAge(x), wire.templates[encoding] ?? templateOf(wire, encoding));
  }

  /** A per-request envelope; a window's points also go out gzipped when the client takes gzip. */
  function json(x: Exchange, body: JsonBody, model: ReadModel): Reply {
    const m = body.view ?? model;
    const built = jsonPage(body, m.refreshedAt, m.id, m.asOf);
    // the lines of headerLines([...EVERY_ANSWER, ...body.headers, ETag, Vary, Content-Type, Content-Encoding?]),
    // written as one string of prebuilt pieces: only the ETag (and rare extra headers) vary
    const before = body.headers ? EVERY_ANSWER_TEXT + headerText(body.headers) : EVERY_ANSWER_TEXT;
    const etagVary = `${before}\r\nETag: ${built.page.etag}${x.isV1 ? VARY_V1_TEXT : VARY_TEXT}`;
    if (matchesEtag(x.req.ifNoneMatch, built.page.etag)) return reply(x, 304, Buffer.from(etagVary, 'latin1'), maxAge(x));
    const big = body.deflated !== undefined && built.prefixLength + x.requestId.length + PAGE_SUFFIX.length > PRECOMPRESS_MIN_BYTES;
    if (big && choose(x.req.acceptEncoding, false) === 'gzip') {
      const gzip = gzipItemsTemplate(OPEN_ARRAY, OPEN_CRC, body.deflated!(), built.page.prefix);
      return reply(x, 200, Buffer.from(etagVary + JSON_GZIP_TEXT, 'latin1'), maxAge(x), gzip);
    }
    const parts = [...built.head, built.page.prefix, Buffer.from(x.requestId, 'latin1'), PAGE_SUFFIX];
    return reply(x, 200, Buffer.from(etagVary + JSON_TEXT, 'latin1'), maxAge(x), null, parts);
  }

  const write: Responder['write'] = (x, body, model) => {
    if (body.kind === 'deferred') {
      return body.load().then(
        (loaded) => write(x, loaded, model),
        (err) => fail(x, new VaultdError('INTERNAL', `internal error (request ${x.requestId})`, { cause: err })),
      );
    }
    if (body.kind === 'raw') {
      const cache = body.cache === 'no-store' ? noStore : maxAge(x);
      const lines: [string, string][] = [...EVERY_ANSWER];
      if (x.isV1) lines.push(['Vary', 'Authorization, X-API-Key']);
      if (body.cache === 'public') {
        // ETag on every cacheable 200 (DESIGN §5.6): raw bodies (price series, the document) hash their bytes.
        const etag = rawEtag(body.body);
        lines.push(['ETag', etag]);
        if (matchesEtag(x.req.ifNoneMatch, etag)) return reply(x, 304, headerLines(lines), cache);
      }
      lines.push(['Content-Type', body.contentType]);
      return reply(x, body.status ?? 200, headerLines(lines), cache, null, [body.body]);
    }
    if (body.kind === 'page') return page(x, body.page);
    if (body.kind === 'pending') {
      const m = body.view ?? model;
      if (body.etagKey !== undefined && x.req.ifNoneMatch && m && matchesEtag(x.req.ifNoneMatch, jsonEtag(body.etagKey, m.id))) {
        return reply(
          x,
          304,
          Buffer.from(`${EVERY_ANSWER_TEXT}\r\nETag: ${jsonEtag(body.etagKey, m.id)}${x.isV1 ? VARY_V1_TEXT : VARY_TEXT}`, 'latin1'),
          maxAge(x),
        );
      }
      return body.load().then(
        (loaded) => write(x, loaded, model),
        (err) => caught(x, err),
      );
    }
    return json(x, body, model!);
  };

  return { reply, fail, caught, write, page };
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
  if (lines === undefined) wire.lines[i] = lines = Buffer.from(pageLinesText(wire.page.etag, kind, v1), 'latin1');
  return lines;
}

/** headerLines of [...EVERY_ANSWER, ETag, Vary, Content-Type (not on a 304), Content-Encoding?], as text pieces. */
function pageLinesText(etag: string, kind: number, v1: boolean): string {
  const text = `${EVERY_ANSWER_TEXT}\r\nETag: ${etag}${v1 ? VARY_V1_TEXT : VARY_TEXT}${kind < 3 ? JSON_TEXT : ''}`;
  return kind === 1 || kind === 2 ? `${text}\r\nContent-Encoding: ${ENCODINGS[kind]}` : text;
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

/** If-None-Match: a list of entity tags or `*`; weak comparison (RFC 9110 §13.1.2). */
export function matchesEtag(header: string, etag: string): boolean {
  if (!header) return false;
  if (header === etag) return true; // what a client sends back: one tag, as it came
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}
