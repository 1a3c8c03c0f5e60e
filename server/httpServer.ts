// The uWebSockets.js listener: the only module that touches uWS request/response objects
// (DESIGN §5.8). It copies what the pipeline needs out of the request first, answers inside
// the handler when it can, attaches onAborted before any async work, writes in one cork,
// and streams large bodies with tryEnd/onWritable.
import net from 'node:net';
import uWS from 'uWebSockets.js';
import type { Common } from '../common/common.js';
import { VaultdError } from '../common/errors.js';
import { createClientIp } from './clientIp.js';
import type { IncomingRequest } from './handle.js';
import { statusLine, type Reply } from './reply.js';

export interface HttpServer {
  readonly port: number;
  /** Stop accepting; in-flight requests finish (they are synchronous or already answered). */
  close(): Promise<void>;
}

export type Handle = (req: IncomingRequest) => Reply | Promise<Reply>;

const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;
type ListenWithOptions = (host: string, port: number, options: number, cb: (token: uWS.us_listen_socket | false) => void) => void;

/** Why uWS could not listen (it says only "no"): ask the OS through a plain Node listener. */
async function listenError(host: string, port: number): Promise<VaultdError> {
  const code = await new Promise<string | undefined>((resolve) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
  if (code === 'EADDRINUSE') return new VaultdError('USAGE', `port ${port} on ${host} is already in use by another process; stop it or pass another --port`);
  if (code === 'EACCES') return new VaultdError('USAGE', `no permission to listen on port ${port}; pass a port above 1023 with --port`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EINVAL') {
    return new VaultdError('USAGE', `invalid --host "${host}": not an address of this machine; use e.g. 127.0.0.1 or 0.0.0.0`);
  }
  return new VaultdError('USAGE', `cannot listen on ${host}:${port}${code ? ` (${code})` : ''}; pass another --host or --port`);
}

/** Bodies above this go out through tryEnd/onWritable instead of one end(). */
const STREAM_THRESHOLD = 256 * 1024;

export async function startHttpServer(common: Common, opts: { host: string; port: number; handle: Handle }): Promise<HttpServer> {
  const app = uWS.App();
  const clientIp = createClientIp(common.config.server.trusted_proxies);
  let inFlight = 0;
  let drained: (() => void) | null = null;

  app.any('/*', (res, req) => {
    const request: IncomingRequest = {
      method: req.getMethod().toUpperCase(),
      path: req.getUrl(),
      query: req.getQuery() ?? '',
      ip: clientIp(Buffer.from(res.getRemoteAddressAsText()).toString('latin1'), req.getHeader('x-forwarded-for')),
      authorization: req.getHeader('authorization'),
      apiKey: req.getHeader('x-api-key'),
      acceptEncoding: req.getHeader('accept-encoding'),
      ifNoneMatch: req.getHeader('if-none-match'),
      requestId: req.getHeader('x-request-id'),
    };
    const head = request.method === 'HEAD';
    const out = opts.handle(request);
    if (!(out instanceof Promise)) {
      write(res, out, head);
      return;
    }
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    inFlight++;
    void out
      .then((reply) => {
        if (!aborted) write(res, reply, head);
      })
      .finally(() => {
        if (--inFlight === 0) drained?.();
      });
  });

  // Exclusive: without it uWS sets SO_REUSEPORT, and a second server on a taken port would
  // "listen" and then share the requests with the first.
  const socket = await new Promise<uWS.us_listen_socket | false>((resolve) => {
    // The typings lack the (host, port, options, cb) overload that the addon accepts.
    const listen = app.listen.bind(app) as unknown as ListenWithOptions;
    listen(opts.host, opts.port, LIBUS_LISTEN_EXCLUSIVE_PORT, (token) => resolve(token));
  });
  if (!socket) throw await listenError(opts.host, opts.port);
  const port = uWS.us_socket_local_port(socket as unknown as uWS.us_socket);
  common.logger.info({ host: opts.host, port }, 'listening');
  return {
    port,
    async close() {
      uWS.us_listen_socket_close(socket);
      if (inFlight > 0) await new Promise<void>((r) => (drained = r));
    },
  };
}

function write(res: uWS.HttpResponse, reply: Reply, head: boolean): void {
  let total = 0;
  for (const p of reply.parts) total += p.length;
  if (!head && total > STREAM_THRESHOLD) {
    streamBig(res, reply, Buffer.concat(reply.parts, total));
    return;
  }
  res.cork(() => {
    res.writeStatus(statusLine(reply.status));
    for (const [name, value] of reply.headers) res.writeHeader(name, value);
    if (head || reply.status === 304 || reply.status === 204) {
      // This uWS build aborts the process on endWithoutBody(n) for any n > 0 and on an explicit
      // undefined ("returning from a request handler without responding"): a HEAD reply states
      // the GET body's length itself, and every bodiless reply ends with no argument.
      if (head && reply.status !== 304 && reply.status !== 204) res.writeHeader('Content-Length', String(total));
      res.endWithoutBody();
      return;
    }
    // One end() with the whole body: a Content-Length response, not chunked.
    res.end(reply.parts.length === 1 ? reply.parts[0] : Buffer.concat(reply.parts, total));
  });
}

function streamBig(res: uWS.HttpResponse, reply: Reply, body: Buffer): void {
  let done = false;
  res.onAborted(() => {
    done = true;
  });
  res.cork(() => {
    res.writeStatus(statusLine(reply.status));
    for (const [name, value] of reply.headers) res.writeHeader(name, value);
    const start = res.getWriteOffset();
    const [ok, finished] = res.tryEnd(body, body.length);
    if (finished || ok) return;
    res.onWritable((offset) => {
      if (done) return true;
      const [ok2, finished2] = res.tryEnd(body.subarray(offset - start), body.length);
      if (finished2) done = true;
      return ok2;
    });
  });
}
