// The compatibility transport (`server.transport: "node"`, issue #15 item 14): the same
// request pipeline (server/handle.ts) over node:http instead of uWebSockets.js. The pinned
// uWS build never answers an HTTP/1.0 request and leaves malformed ones hanging; node:http
// serves HTTP/1.0 (with or without keep-alive, e.g. nginx's default proxy_pass) and answers
// a malformed request at once: 400, 431 for oversized headers, and (through the pipeline) 414
// for a target over 8 KiB. It costs about twice the CPU per request of the uWS transport.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Common } from '../../common/common.js';
import { createClientIp } from '../clientIp.js';
import type { IncomingRequest } from '../exchange.js';
import type { Handle, HttpServer } from '../httpServer.js';
import { replyHeaders, replyParts, statusLine, type Reply } from '../reply.js';

/** Headers (request line included) past this are a 431; targets up to it reach the pipeline (414 over 8 KiB). */
const MAX_HEADER_BYTES = 32 * 1024;

const STREAM_PATH = '/v1/stream';
const STREAM_501 = JSON.stringify({
  error: {
    code: 'NOT_IMPLEMENTED',
    message: 'the live feed (/v1/stream, /v1/stream/sse) needs the uws transport; remove "server": {"transport": "node"} from the config',
  },
});

const header = (v: string | string[] | undefined): string => (v === undefined ? '' : Array.isArray(v) ? v.join(', ') : v);

/** A JSON error envelope for requests too malformed to reach the pipeline. */
function clientErrorResponse(status: 400 | 431, code: string, message: string): string {
  const body = JSON.stringify({ error: { code, message } });
  return `HTTP/1.1 ${statusLine(status)}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

export async function startNodeHttpServer(
  common: Common,
  opts: { host: string; port: number; handle: Handle },
  listenError: (host: string, port: number, code: string | undefined) => Error,
): Promise<HttpServer> {
  const clientIp = createClientIp(common.config.server.trusted_proxies);
  const proxies = common.config.server.trusted_proxies.length > 0;
  let inFlight = 0;
  let drained: (() => void) | null = null;
  const server = createServer(
    { maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: true, keepAliveTimeout: 10_000, headersTimeout: 10_000, requestTimeout: 30_000 },
    (req, res) => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      if (url === STREAM_PATH || url.startsWith(`${STREAM_PATH}?`) || url.startsWith(`${STREAM_PATH}/sse`)) {
        // the live feed needs uWS (WebSocket pub/sub): said plainly, not a 404
        res.writeHead(501, { 'Content-Type': 'application/json; charset=utf-8', 'Access-Control-Allow-Origin': '*' });
        res.end(STREAM_501);
        return;
      }
      const peer = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
      const request: IncomingRequest = {
        method: req.method ?? 'GET',
        path: q < 0 ? url : url.slice(0, q),
        query: q < 0 ? '' : url.slice(q + 1),
        ip: proxies ? clientIp(peer, header(req.headers['x-forwarded-for'])) : peer,
        authorization: header(req.headers.authorization),
        apiKey: header(req.headers['x-api-key']),
        acceptEncoding: header(req.headers['accept-encoding']),
        ifNoneMatch: header(req.headers['if-none-match']),
        requestId: header(req.headers['x-request-id']),
      };
      req.resume(); // a body is never read (read-only API)
      const out = opts.handle(request);
      if (!(out instanceof Promise)) return write(req, res, out);
      inFlight++;
      void out
        .then((reply) => {
          if (!res.destroyed) write(req, res, reply);
        })
        .finally(() => {
          if (--inFlight === 0) drained?.();
        });
    },
  );
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    socket.end(
      tooLarge
        ? clientErrorResponse(431, 'HEADERS_TOO_LARGE', `the request line and headers are over ${MAX_HEADER_BYTES} bytes`)
        : clientErrorResponse(400, 'BAD_REQUEST', `malformed HTTP request (${err.code ?? 'parse error'})`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(opts.host, opts.port, err.code)));
    server.listen({ host: opts.host, port: opts.port, exclusive: true }, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  common.logger.info({ host: opts.host, port, transport: 'node' }, 'listening');
  return {
    port,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (inFlight > 0) await new Promise<void>((r) => (drained = r));
    },
  };
}

function write(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
  const total = reply.length;
  // node:http keeps written buffers until flushed: durable parts, never a reused template view
  const parts = replyParts(reply);
  const flat: string[] = [];
  for (const [k, v] of replyHeaders(reply)) flat.push(k, v);
  const bodiless = reply.status === 304 || reply.status === 204;
  if (!bodiless) flat.push('Content-Length', String(total));
  const text = statusLine(reply.status);
  res.writeHead(reply.status, text.slice(text.indexOf(' ') + 1), flat);
  if (req.method === 'HEAD' || bodiless) {
    res.end();
    return;
  }
  for (let i = 0; i < parts.length - 1; i++) res.write(parts[i]);
  res.end(parts.at(-1));
}
