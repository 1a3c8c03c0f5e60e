// The uWebSockets.js listener: the only module that touches uWS request/response objects
// (DESIGN §5.8). It copies what the pipeline needs out of the request first, answers inside
// the handler when it can, attaches onAborted before any async work, writes in one cork,
// and streams large bodies with tryEnd/onWritable.
import net from 'node:net';
import { Gauge } from 'prom-client';
import uWS from 'uWebSockets.js';
import { fileDescriptors } from '../common/fds.js';
import type { Common } from '../common/common.js';
import { VaultdError } from '../common/errors.js';
import { createClientIp } from './clientIp.js';
import type { IncomingRequest } from './handle.js';
import { statusLine, type Reply } from './reply.js';
import { joinedHeaderValue } from './transport/headerBlock.js';
import { startNodeHttpServer } from './transport/nodeHttpServer.js';

export interface HttpServer {
  readonly port: number;
  /** Stop accepting; in-flight requests finish (they are synchronous or already answered). */
  close(): Promise<void>;
}

export type Handle = (req: IncomingRequest) => Reply | Promise<Reply>;


/** Try the address with a plain Node listener (no port sharing); the error code, or undefined when free. */
function probePort(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'EUNKNOWN'));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}

export function listenError(host: string, port: number, code: string | undefined): VaultdError {
  if (code === 'EADDRINUSE') return new VaultdError('USAGE', `port ${port} on ${host} is already in use by another process; stop it or pass another --port`);
  if (code === 'EACCES') return new VaultdError('USAGE', `no permission to listen on port ${port}; pass a port above 1023 with --port`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EINVAL') {
    return new VaultdError('USAGE', `invalid --host "${host}": not an address of this machine; use e.g. 127.0.0.1 or 0.0.0.0`);
  }
  return new VaultdError('USAGE', `cannot listen on ${host}:${port}${code ? ` (${code})` : ''}; pass another --host or --port`);
}

/** uWS reports methods in lower case: the usual ones without a toUpperCase per request. */
const METHODS: Readonly<Record<string, string>> = { get: 'GET', head: 'HEAD', options: 'OPTIONS', post: 'POST', put: 'PUT', delete: 'DELETE', patch: 'PATCH' };

/** Bodies above this go out through tryEnd/onWritable instead of one end(). */
const STREAM_THRESHOLD = 16 * 1024;

// Above this a body goes out through tryEnd/onWritable. Besides pacing big bodies, that keeps
// uWS at one unsent answer per connection: after end() it would buffer a copy of the rest and
// parse the next pipelined request, so a client pipelining hundreds of requests and never
// reading made it hold hundreds of copies (~2 GB in the attack this was found by).


export async function startHttpServer(common: Common, opts: { host: string; port: number; handle: Handle }): Promise<HttpServer> {
  // the compatibility transport: HTTP/1.0 and malformed requests answered (server.transport)
  if (common.config.server.transport === 'node') return startNodeHttpServer(common, opts, listenError);
  const app = uWS.App();
  const clientIp = createClientIp(common.config.server.trusted_proxies);
  let inFlight = 0;
  let drained: (() => void) | null = null;

  // X-Forwarded-For is read only when some proxy is trusted (else it is ignored anyway)
  const proxies = common.config.server.trusted_proxies.length > 0;
  app.any('/*', (res, req) => {
    const peer = Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
    const method = req.getMethod();
    const request: IncomingRequest = {
      method: METHODS[method] ?? method.toUpperCase(),
      path: req.getUrl(),
      query: req.getQuery() ?? '',
      ip: proxies ? clientIp(peer, req.getHeader('x-forwarded-for')) : peer,
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

  // uWS listens with SO_REUSEPORT, so a second server on a taken port would "listen" and share
  // the requests with the first: ask the OS first with a plain exclusive listener. (Not
  // exclusive in uWS itself: the accepted sockets must allow listening again, see below.)
  if (opts.port !== 0) {
    const code = await probePort(opts.host, opts.port);
    if (code !== undefined) throw listenError(opts.host, opts.port, code);
  }
  const socket = await new Promise<uWS.us_listen_socket | false>((resolve) => app.listen(opts.host, opts.port, (token) => resolve(token)));
  if (!socket) throw listenError(opts.host, opts.port, await probePort(opts.host, opts.port));
  const port = uWS.us_socket_local_port(socket as unknown as uWS.us_socket);
  common.logger.info({ host: opts.host, port }, 'listening');

  // At the file-descriptor limit uWS's accept loop spins (every accept fails with EMFILE):
  // stop listening while close to it, listen again once connections have gone.
  let listening: uWS.us_listen_socket | null = socket;
  const fds = fdWatch();
  const paused = pausedGauge(common);
  const watch = fds
    ? setInterval(() => {
        const open = fds.open();
        if (!listening) common.logger.debug({ open_fds: open, resume_at: fds.resumeAt }, 'paused: descriptors open');
        if (listening && open >= fds.pauseAt) {
          uWS.us_listen_socket_close(listening);
          listening = null;
          paused.set(1);
          common.logger.warn({ open_fds: open, limit: fds.limit }, 'near the file-descriptor limit: not accepting connections');
        } else if (!listening && open <= fds.resumeAt) {
          // SO_REUSEPORT on the listener and the sockets it accepted lets this bind while they live
          app.listen(opts.host, port, (token) => {
            if (!token) {
              common.logger.debug({ open_fds: open }, 'listening again failed; retrying');
              return; // retried on the next tick
            }
            listening = token;
            paused.set(0);
            common.logger.info({ open_fds: open }, 'accepting connections again');
          });
        }
      }, FD_WATCH_MS)
    : null;
  watch?.unref();
  return {
    port,
    async close() {
      if (watch) clearInterval(watch);
      if (listening) uWS.us_listen_socket_close(listening);
      listening = null;
      if (inFlight > 0) await new Promise<void>((r) => (drained = r));
    },
  };
}

const FD_WATCH_MS = 200;

const gauges = new WeakMap<object, Gauge>();
function pausedGauge(common: Common): Gauge {
  let g = gauges.get(common.metrics);
  if (!g) {
    g = new Gauge({ name: 'vaultd_http_accept_paused', help: '1 while new connections are refused for lack of file descriptors', registers: [common.metrics] });
    gauges.set(common.metrics, g);
  }
  return g;
}

/** Open descriptors against the soft limit (Linux /proc); null where that cannot be read. */
function fdWatch(): { limit: number; pauseAt: number; resumeAt: number; open: () => number } | null {
  const fds = fileDescriptors();
  return fds && { limit: fds.limit, pauseAt: fds.limit - fds.reserve, resumeAt: fds.limit - 2 * fds.reserve, open: fds.open };
}

function write(res: uWS.HttpResponse, reply: Reply, head: boolean): void {
  let total = 0;
  for (const p of reply.parts) total += p.length;
  if (!head && total > STREAM_THRESHOLD) {
    streamParts(res, reply, total);
    return;
  }
  res.cork(() => {
    res.writeStatus(statusLine(reply.status));
    if (reply.headers.length > 0) res.writeHeader(reply.headers[0]![0], joinedHeaderValue(reply.headers));
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

/**
 * A large body written part by part with tryEnd (one Content-Length, no copy into one buffer: a
 * 1,000-point timeseries window is a slice of the series buffer between two small parts). On
 * backpressure the rest waits for onWritable, which resumes at the socket's write offset.
 */
function streamParts(res: uWS.HttpResponse, reply: Reply, total: number): void {
  let done = false;
  const parts = reply.parts;
  res.onAborted(() => {
    done = true;
  });
  let start = 0;
  /** Send the body from byte `from`: false on backpressure. */
  const send = (from: number): boolean => {
    let base = 0;
    for (const p of parts) {
      const end = base + p.length;
      if (end > from && p.length > 0) {
        const [ok, finished] = res.tryEnd(from > base ? p.subarray(from - base) : p, total);
        if (finished) {
          done = true;
          return true;
        }
        if (!ok) return false;
        from = end;
      }
      base = end;
    }
    return true;
  };
  res.cork(() => {
    res.writeStatus(statusLine(reply.status));
    if (reply.headers.length > 0) res.writeHeader(reply.headers[0]![0], joinedHeaderValue(reply.headers));
    start = res.getWriteOffset();
    if (send(0) || done) return;
    res.onWritable((offset) => (done ? true : send(offset - start)));
  });
}
