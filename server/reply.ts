// What a route handler answers, and the wire reply the transport writes: bodies are lists
// of prebuilt buffers, so a cached route is a map lookup plus one corked write (DESIGN §5.7).
import { hash } from 'node:crypto';
import { VaultdError } from '../common/errors.js';
import { PAGE_SUFFIX, type ListMeta, type Page } from '../engine/publish/page.js';
import { brBody, buildVariants, gzipBody, PRECOMPRESS_MIN_BYTES, type Variants } from './transport/splice.js';
import type { Encoding } from './transport/negotiate.js';

/** A prebuilt page of the snapshot (variants are added once, lazily, per snapshot). */
export interface PageBody {
  kind: 'page';
  page: Page;
  variants?: Variants;
}

/** A body built for this request from snapshot data ({data, meta} envelope). */
export interface JsonBody {
  kind: 'json';
  data: unknown;
  /** `data` already serialized as the inside of a JSON array (a slice of a series buffer) */
  /** the items of `data`, already serialized and joined by commas (zero-copy parts) */
  dataItems?: Buffer[];
  meta: Partial<ListMeta> | null;
  /** a cheap, deterministic ETag seed (route + canonical query); hashed with the snapshot id */
  etagKey: string;
  /** extra response headers (e.g. Deprecation) */
  headers?: [string, string][];
}

/** A body outside the envelope (health, metrics, openapi, price timeseries). */
export interface RawBody {
  kind: 'raw';
  body: Buffer;
  contentType: string;
  /** no-store for health; otherwise cacheable with an ETag of the body */
  cache: 'no-store' | 'public';
}

/** A body that needs async work (the Prometheus registry renders asynchronously). */
export interface DeferredBody {
  kind: 'deferred';
  load: () => Promise<RawBody>;
}

export type Body = PageBody | JsonBody | RawBody | DeferredBody;

export interface Reply {
  status: number;
  headers: [string, string][];
  /** body parts in write order (a HEAD reply keeps them for Content-Length); empty for 304 and preflight */
  parts: Buffer[];
}

export const JSON_TYPE = 'application/json; charset=utf-8';

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  204: '204 No Content',
  304: '304 Not Modified',
  401: '401 Unauthorized',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  422: '422 Unprocessable Entity',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  503: '503 Service Unavailable',
};

export function statusLine(status: number): string {
  return STATUS_TEXT[status] ?? `${status} Status`;
}

/** The error envelope of DESIGN §5.3. */
export function errorBody(err: VaultdError): Buffer {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details !== undefined) error.details = err.details;
  return Buffer.from(JSON.stringify({ error }));
}

/** ETag of a per-request body: the snapshot identity and the canonical request (cheap; no body hash). */
export function jsonEtag(body: JsonBody, snapshotId: string): string {
  // one-shot hash: no Hash object per request
  return `"${hash('sha1', `${snapshotId}\0${body.etagKey}`, 'base64url')}"`;
}

/** A per-request envelope as a page (request-id slot at the end); `dataItems` bodies stay uncopied. */
export function jsonPage(body: JsonBody, refreshedAt: string, snapshotId: string): { page: Page; head: Buffer[] } {
  const etag = jsonEtag(body, snapshotId);
  const metaJson = JSON.stringify({ ...(body.meta ?? {}), refreshed_at: refreshedAt }).slice(0, -1);
  if (body.dataItems) {
    const tail = Buffer.from(`],"meta":${metaJson},"request_id":"`);
    return { page: { prefix: tail, etag }, head: [OPEN_ARRAY, ...body.dataItems] };
  }
  return { page: { prefix: Buffer.from(`{"data":${JSON.stringify(body.data)},"meta":${metaJson},"request_id":"`), etag }, head: [] };
}

const OPEN_ARRAY = Buffer.from('{"data":[');

/** Body parts of a page for one request in the chosen encoding. */
export function pageParts(page: Page, variants: Variants | undefined, encoding: Encoding, requestId: string): { parts: Buffer[]; encoding: Encoding } {
  if (variants && encoding === 'br') return { parts: brBody(variants.br, requestId), encoding };
  if (variants && encoding === 'gzip') return { parts: gzipBody(variants.gzip, requestId), encoding };
  return { parts: [page.prefix, Buffer.from(requestId), PAGE_SUFFIX], encoding: 'identity' };
}

/** Precompressed variants for pages over 1 KiB (DESIGN §5.6), else undefined. */
export function variantsFor(page: Page, quality = 5): Variants | undefined {
  return page.prefix.length + 40 > PRECOMPRESS_MIN_BYTES ? buildVariants(page, { brotliQuality: quality, gzipLevel: 6 }) : undefined;
}
