// What a route handler answers, and the wire reply the transport writes: bodies are lists
// of prebuilt buffers, so a cached route is a map lookup plus one corked write (DESIGN §5.7).
import { hash } from 'node:crypto';
import type { VaultdError } from '../common/errors.js';
import { metaText, type DeflatedItems, type ListMeta, type Page } from '../engine/publish/index.js';
import { PRECOMPRESS_MIN_BYTES, type BodyTemplate } from './transport/splice.js';

/** A prebuilt page of the snapshot (its compressed variants are made per snapshot, on first use: server/handle.ts). */
export interface PageBody {
  kind: 'page';
  page: Page;
}

/** A body built for this request from snapshot data ({data, meta} envelope). */
export interface JsonBody {
  kind: 'json';
  data: unknown;
  /** the items of `data`, already serialized and joined by commas (zero-copy parts) */
  dataItems?: Buffer[];
  /** `data` already serialized (one item outside a list) */
  dataRaw?: Buffer;
  /** the same items as a byte-aligned, non-final deflate stream (the gzip answer), when prepared */
  deflated?: () => DeflatedItems;
  meta: Partial<ListMeta> | null;
  /** a cheap, deterministic ETag seed (route + canonical query); hashed with the snapshot id */
  etagKey: string;
  /** extra response headers (e.g. Deprecation) */
  headers?: [string, string][];
  /** the read model that answered, when a route chose one (a view of the past, the data a walk is pinned to) */
  answeredBy?: AnsweredBy;
}

/**
 * What of the answering read model goes into an envelope: its id seeds the ETag (a view's
 * answer must not share the newest data's), and its as_of is echoed as meta.as_of.
 */
export interface AnsweredBy {
  readonly id: string;
  readonly refreshedAt: string;
  readonly asOf: string | null;
}

/** A body outside the envelope (health, metrics, openapi, price timeseries). */
export interface RawBody {
  kind: 'raw';
  body: Buffer;
  contentType: string;
  /** no-store for health; otherwise cacheable with an ETag of the body */
  cache: 'no-store' | 'public';
  /** 200 unless given (/health: 503 when the process cannot serve its routes) */
  status?: number;
}

/** A body that needs async work (the Prometheus registry renders asynchronously). */
export interface DeferredBody {
  kind: 'deferred';
  load: () => Promise<RawBody>;
}

/**
 * A per-request envelope whose items are computed elsewhere (the compute pool): its ETag is
 * known before, so a conditional request that matches gets its 304 without the work.
 */
export interface PendingJsonBody {
  kind: 'pending';
  /** known before the work (then a matching If-None-Match is answered at once), or not */
  etagKey?: string;
  /** as in JsonBody: the model whose id seeds the ETag */
  answeredBy?: AnsweredBy;
  load: () => Promise<JsonBody>;
}

export type Body = PageBody | JsonBody | RawBody | DeferredBody | PendingJsonBody;

/**
 * What the transport writes (DESIGN §5.7: a lookup and a write of prebuilt bytes). Headers go
 * out in this order: X-Request-Id, the RateLimit-* set (and Retry-After), Cache-Control, then
 * `fixed` — prebuilt `\r\nName: value` lines, made once per page and encoding for pages. The
 * per-request values are plain fields, so the transport writes digits and the id into its own
 * buffer without building strings; Date comes from the transport (uWS caches it per second).
 */
export interface Reply {
  status: number;
  requestId: string;
  /** RateLimit-Limit (and its X- twin); 0 = no rate-limit headers */
  rateLimit: number;
  rateRemaining: number;
  rateReset: number;
  /** Retry-After seconds; 0 = none */
  retryAfter: number;
  /** a prebuilt `\r\nCache-Control: …` line, or null */
  cacheControl: Buffer | null;
  /** prebuilt header lines after the per-request ones */
  fixed: Buffer;
  /** the body as a template filled with the request id (pages), or null: then `parts` */
  template: BodyTemplate | null;
  /** body parts in write order when there is no template; empty for 304 and preflight */
  parts: Buffer[];
  /** body length in bytes (a HEAD reply states it) */
  length: number;
}

/** Header lines as the wire has them after the status line: `\r\nName: value` each (Latin-1). */
export function headerLines(headers: readonly (readonly [string, string])[]): Buffer {
  return Buffer.from(headerText(headers), 'latin1');
}

/** The text of headerLines (to join with other lines before one encoding). */
export function headerText(headers: readonly (readonly [string, string])[]): string {
  let text = '';
  for (const [name, value] of headers) text += `\r\n${name}: ${value}`;
  return text;
}

/** The reply's headers as name/value pairs, in wire order (the node transport, tests). */
export function replyHeaders(reply: Reply): [string, string][] {
  const out: [string, string][] = [['X-Request-Id', reply.requestId]];
  if (reply.rateLimit > 0) {
    const limit = String(reply.rateLimit);
    const remaining = String(reply.rateRemaining);
    const reset = String(reply.rateReset);
    out.push(['RateLimit-Limit', limit], ['RateLimit-Remaining', remaining], ['RateLimit-Reset', reset]);
    out.push(['X-RateLimit-Limit', limit], ['X-RateLimit-Remaining', remaining], ['X-RateLimit-Reset', reset]);
  }
  if (reply.retryAfter > 0) out.push(['Retry-After', String(reply.retryAfter)]);
  for (const lines of [reply.cacheControl, reply.fixed]) {
    if (lines === null || lines.length === 0) continue;
    for (const line of lines.toString('latin1').split('\r\n').slice(1)) {
      const colon = line.indexOf(': ');
      out.push([line.slice(0, colon), line.slice(colon + 2)]);
    }
  }
  return out;
}

/** The reply's body as durable parts (the node transport, tests). */
export function replyParts(reply: Reply): Buffer[] {
  return reply.template ? reply.template.parts(reply.requestId) : reply.parts;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export { statusLine } from './transport/headWriter.js';

/** The error envelope of DESIGN §5.3. */
export function errorBody(err: VaultdError): Buffer {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details !== undefined) error.details = err.details;
  return Buffer.from(JSON.stringify({ error }));
}

/** ETag of a per-request body: the snapshot identity and the canonical request (cheap; no body hash). */
export function jsonEtag(etagKey: string, snapshotId: string): string {
  // one-shot hash: no Hash object per request. Not remembered: a wallet's key is unique, and
  // a memo of them only turned into old-generation garbage (more mark-compact pauses)
  return `"${hash('sha1', `${snapshotId}\0${etagKey}`, 'base64url')}"`;
}

/**
 * A per-request envelope as a page (request-id slot at the end) with the parts before it:
 * `dataItems` bodies stay uncopied. `prefixLength` is the identity body's length before the id.
 */
export function jsonPage(
  body: JsonBody,
  refreshedAt: string,
  snapshotId: string,
  asOf: string | null = null,
): { page: Page; head: Buffer[]; prefixLength: number } {
  const etag = jsonEtag(body.etagKey, snapshotId);
  const metaJson = metaText(body.meta, refreshedAt, asOf);
  if (body.dataItems) {
    const tail = Buffer.from(`],"meta":${metaJson},"request_id":"`);
    let n = OPEN_ARRAY.length + tail.length;
    for (const p of body.dataItems) n += p.length;
    return { page: { prefix: tail, etag }, head: [OPEN_ARRAY, ...body.dataItems], prefixLength: n };
  }
  if (body.dataRaw) {
    const prefix = Buffer.concat([DATA_OPEN, body.dataRaw, Buffer.from(`,"meta":${metaJson},"request_id":"`)]);
    return { page: { prefix, etag }, head: [], prefixLength: prefix.length };
  }
  const prefix = Buffer.from(`{"data":${JSON.stringify(body.data)},"meta":${metaJson},"request_id":"`);
  return { page: { prefix, etag }, head: [], prefixLength: prefix.length };
}

export const OPEN_ARRAY = Buffer.from('{"data":[');
const DATA_OPEN = Buffer.from('{"data":');

/** Whether a page is sent compressed to a client that takes it: bodies over 1 KiB (DESIGN §5.6). */
export const compressible = (page: Page): boolean => page.prefix.length + 40 > PRECOMPRESS_MIN_BYTES;

/** A page's gzip level and brotli quality: made on the first request wanting each, once per snapshot. */
export const PAGE_GZIP_LEVEL = 6;
export const PAGE_BROTLI_QUALITY = 5;
