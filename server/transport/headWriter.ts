// A reply's status line and headers as bytes, written into one reusable buffer (issue #11): the
// per-request values — request id, rate-limit numbers — go in as characters and digits, every
// other line is a prebuilt buffer (server/handle.ts makes them once per page and encoding), so
// the transport hands uWS one view with no string built, and uWS writes Date itself.
// The view is valid until the next call: the caller passes it to uWS, which copies it at once.
import type { Reply } from '../reply.js';

/** Heads up to this size are written in place; a larger one gets its own buffer. */
const HEAD_BYTES = 16 * 1024;

const line = (name: string) => Buffer.from(`\r\n${name}: `, 'latin1');
const REQUEST_ID = line('X-Request-Id');
const LIMIT = line('RateLimit-Limit');
const REMAINING = line('RateLimit-Remaining');
const RESET = line('RateLimit-Reset');
const X_LIMIT = line('X-RateLimit-Limit');
const X_REMAINING = line('X-RateLimit-Remaining');
const X_RESET = line('X-RateLimit-Reset');
const RETRY_AFTER = line('Retry-After');
const CONTENT_LENGTH = line('Content-Length');

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  204: '204 No Content',
  304: '304 Not Modified',
  401: '401 Unauthorized',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  414: '414 URI Too Long',
  422: '422 Unprocessable Entity',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  503: '503 Service Unavailable',
};

/** The status line's text after `HTTP/1.1 `. */
export function statusLine(status: number): string {
  return STATUS_TEXT[status] ?? `${status} Status`;
}

/** `200 OK\r\nX-Request-Id: ` per status: every reply starts so. */
const STATUS_BYTES = new Map<number, Buffer>();
/** Per limit value: `\r\nRateLimit-Limit: L\r\nRateLimit-Remaining: ` and its X- twin. */
const LIMIT_BYTES = new Map<number, [Buffer, Buffer]>();

/**
 * `(reply, contentLength)` → the bytes to pass to uWS's writeStatus: `200 OK` and every header
 * line, without the final CRLF (uWS adds it, then Date, Content-Length and the blank line).
 * `contentLength` is written only for HEAD replies (uWS states it for bodies it sends).
 */
export type HeadWriter = (reply: Reply, contentLength: number | null) => Uint8Array;

export function createHeadWriter(): HeadWriter {
  const buf = new Uint8Array(HEAD_BYTES);
  // one view per length: ids of a process mostly have one length, so heads have few lengths
  const views: (Uint8Array | undefined)[] = [];
  let at = 0;
  let out = buf;
  const put = (bytes: Uint8Array) => {
    out.set(bytes, at);
    at += bytes.length;
  };
  const uint = (n: number) => {
    let digits = 1;
    for (let v = n; v >= 10; v = Math.floor(v / 10)) digits++;
    for (let i = at + digits - 1, v = n; i >= at; i--, v = Math.floor(v / 10)) out[i] = 48 + (v % 10);
    at += digits;
  };
  /** The RateLimit-* lines and their X- twins: the limit's labels are prebuilt with its digits. */
  const rateLines = (limit: number, remaining: number, reset: number) => {
    let labels = LIMIT_BYTES.get(limit);
    if (labels === undefined) {
      const l = String(limit);
      const text = (b: Buffer) => b.toString('latin1');
      labels = [Buffer.from(text(LIMIT) + l + text(REMAINING), 'latin1'), Buffer.from(text(X_LIMIT) + l + text(X_REMAINING), 'latin1')];
      if (LIMIT_BYTES.size >= 64) LIMIT_BYTES.clear();
      LIMIT_BYTES.set(limit, labels);
    }
    put(labels[0]);
    uint(remaining);
    put(RESET);
    uint(reset);
    put(labels[1]);
    uint(remaining);
    put(X_RESET);
    uint(reset);
  };
  return (reply, contentLength) => {
    let status = STATUS_BYTES.get(reply.status);
    if (status === undefined) STATUS_BYTES.set(reply.status, (status = Buffer.concat([Buffer.from(statusLine(reply.status), 'latin1'), REQUEST_ID])));
    // rate-limit lines: 6 labels and numbers of at most 16 digits; the id at most 128 chars
    const most = status.length + REQUEST_ID.length + reply.requestId.length + 400 + (reply.cacheControl?.length ?? 0) + reply.fixed.length;
    out = most <= HEAD_BYTES ? buf : new Uint8Array(most);
    at = 0;
    put(status);
    const id = reply.requestId;
    for (let i = 0; i < id.length; i++) out[at + i] = id.charCodeAt(i);
    at += id.length;
    if (reply.rateLimit > 0) rateLines(reply.rateLimit, reply.rateRemaining, reply.rateReset);
    if (reply.retryAfter > 0) {
      put(RETRY_AFTER);
      uint(reply.retryAfter);
    }
    if (reply.cacheControl !== null) put(reply.cacheControl);
    put(reply.fixed);
    if (contentLength !== null) {
      put(CONTENT_LENGTH);
      uint(contentLength);
    }
    if (out !== buf) return out.subarray(0, at);
    let view = views[at];
    if (view === undefined) views[at] = view = buf.subarray(0, at);
    return view;
  };
}
