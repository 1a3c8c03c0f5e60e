// The uWebSockets.js listener: the only module that touches uWS request/response objects
// (DESIGN §5.8). It copies what the pipeline needs out of the request first, answers inside
// the handler when it can (uWS corks the handler's writes itself), attaches onAborted before
// any async work, corks writes made later, and streams large bodies with tryEnd/onWritable.
// Native crossings per request are few (issue #11): a handler per method (no getMethod),
// header names as prebuilt bytes, the peer address as 4 bytes mapped to a kept string, and
// the answer as one writeStatus of the whole head (server/transport/headWriter.ts) plus one
// end/tryEnd of the body.
// Answers are written in the handler, not gathered per loop turn and sent together: that
// spared a co-located client's wake-ups (+23 % req/s on random windows from wrk on loopback)
// but uWS closes a connection whose next pipelined request arrives while an answer is unsent.
import net from 'node:net';
import { Gauge } from 'prom-client';
import type uWS from 'uWebSockets.js';
import { fileDescriptors } from '../common/fds.js';
import type { Common } from '../common/common.js';
import { VaultdError } from '../common/errors.js';
import { createClientIp } from './clientIp.js';
import { type IncomingRequest, MAX_TARGET } from './exchange.js';
import type { Reply } from './reply.js';
import { createHeadWriter, type HeadWriter } from './transport/headWriter.js';
import { startNodeHttpServer } from './transport/nodeHttpServer.js';
import { attachStreamRoutes, type StreamDeps } from './stream/uwsStream.js';

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

/**
 * Throws the listener's own error when `host:port` cannot be listened on now (port 0: when the
 * host is not an address of this machine). For commands that do long work before they listen.
 */
export async function assertListenable(host: string, port: number): Promise<void> {
  const code = await probePort(host, port);
  if (code !== undefined) throw listenError(host, port, code);
}

/**
 * uWebSockets.js, loaded when the default transport starts (not when the module is imported):
 * a system its addon cannot load on gets one line that says what to do, and every other
 * command works there.
 */
async function loadUws(): Promise<typeof uWS> {
  // uWS reads its limit on a request's head (request line and headers) from the environment
  // when the addon loads; its default, 4 KiB, would refuse targets this API serves (up to
  // MAX_TARGET) with its own 431 before vaultd sees them. Heads past this get uWS's 431.
  process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= String(MAX_HEAD_BYTES);
  try {
    return (await import('uWebSockets.js')).default;
  } catch (err) {
    const reason = String((err as Error).message)
      .split('\n')
      .at(-1);
    throw new VaultdError(
      'USAGE',
      `the uWebSockets.js addon cannot load here (${reason}): it needs Linux x64/arm64 with glibc 2.36 or later and Node 20, 22 or 24; set "server": {"transport": "node"} in the config file to serve with Node's own HTTP module`,
      { cause: err },
    );
  }
}

/** The largest request head (request line and headers) uWS reads: twice the longest target served. */
const MAX_HEAD_BYTES = 2 * MAX_TARGET;

/** uWS reports methods in lower case: the usual ones without a toUpperCase per request. */
const METHODS: Readonly<Record<string, string>> = { get: 'GET', head: 'HEAD', options: 'OPTIONS', post: 'POST', put: 'PUT', delete: 'DELETE', patch: 'PATCH' };

// Header names as bytes: uWS reads a string argument through a UTF-8 copy on every call.
const AUTHORIZATION = Buffer.from('authorization');
const API_KEY = Buffer.from('x-api-key');
const ACCEPT_ENCODING = Buffer.from('accept-encoding');
const IF_NONE_MATCH = Buffer.from('if-none-match');
const REQUEST_ID = Buffer.from('x-request-id');
const FORWARDED_FOR = Buffer.from('x-forwarded-for');

/** Peer addresses kept as strings (IPv4: keyed by the 32-bit address; cleared when full). */
const PEERS_KEPT = 65_536;

/** Bodies above this go out through tryEnd/onWritable instead of one end(). */
const STREAM_THRESHOLD = 16 * 1024;

// Above this a body goes out through tryEnd/onWritable. Besides pacing big bodies, that keeps
// uWS at one unsent answer per connection: after end() it would buffer a copy of the rest and
// parse the next pipelined request, so a client pipelining hundreds of requests and never
// reading made it hold hundreds of copies (~2 GB in the attack this was found by).

export async function startHttpServer(common: Common, opts: { host: string; port: number; handle: Handle; stream?: StreamDeps }): Promise<HttpServer> {
  // the compatibility transport: HTTP/1.0 and malformed requests answered (server.transport)
  if (common.config.server.transport === 'node') return startNodeHttpServer(common, opts, listenError);
  const uWS = await loadUws();
  const app = uWS.App();
  const clientIp = createClientIp(common.config.server.trusted_proxies);
  let inFlight = 0;
  let drained: (() => void) | null = null;

  // X-Forwarded-For is read only when some proxy is trusted (else it is ignored anyway)
  const proxies = common.config.server.trusted_proxies.length > 0;
  const writeHead = createHeadWriter();
  const body = createBodyScratch();
  const peers = new Map<number, string>();
  /** The peer's address as text: for IPv4 one lookup of the 4 bytes, else uWS's text. */
  const peerOf = (res: uWS.HttpResponse): string => {
    const address = res.getRemoteAddress();
    if (address.byteLength === 4) {
      const b = new Uint8Array(address);
      const key = (b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!;
      let text = peers.get(key);
      if (text === undefined) {
        if (peers.size >= PEERS_KEPT) peers.clear();
        peers.set(key, (text = `${b[0]}.${b[1]}.${b[2]}.${b[3]}`));
      }
      return text;
    }
    return Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
  };

  const serve = (res: uWS.HttpResponse, req: uWS.HttpRequest, method: string): void => {
    const peer = peerOf(res);
    const request: IncomingRequest = {
      method,
      path: req.getUrl(),
      query: req.getQuery() ?? '',
      ip: proxies ? clientIp(peer, req.getHeader(FORWARDED_FOR)) : peer,
      authorization: req.getHeader(AUTHORIZATION),
      apiKey: req.getHeader(API_KEY),
      acceptEncoding: req.getHeader(ACCEPT_ENCODING),
      ifNoneMatch: req.getHeader(IF_NONE_MATCH),
      requestId: req.getHeader(REQUEST_ID),
    };
    const head = method === 'HEAD';
    const out = opts.handle(request);
    if (!(out instanceof Promise)) {
      // inside the handler uWS has corked the socket already
      write(res, out, head, writeHead, body);
      return;
    }
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    inFlight++;
    void out
      .then((reply) => {
        if (!aborted) res.cork(() => write(res, reply, head, writeHead, body));
      })
      .finally(() => {
        if (--inFlight === 0) drained?.();
      });
  };
  // the live feed (DESIGN §11.7): its own routes, matched before the request pipeline's
  const streams = opts.stream
    ? attachStreamRoutes(app, uWS, common, opts.stream, { ip: (res, req) => (proxies ? clientIp(peerOf(res), req.getHeader(FORWARDED_FOR)) : peerOf(res)) })
    : null;
  // one handler per usual method: uWS dispatches on the method, so none is read per request
  app.get('/*', (res, req) => serve(res, req, 'GET'));
  app.head('/*', (res, req) => serve(res, req, 'HEAD'));
  app.options('/*', (res, req) => serve(res, req, 'OPTIONS'));
  app.any('/*', (res, req) => {
    const method = req.getMethod();
    serve(res, req, METHODS[method] ?? method.toUpperCase());
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
      // streams first, with 1001: a stop must not leave clients waiting on a dead socket
      await streams?.closeAll();
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

/** A buffer reused for bodies of several parts, so each goes out in one call (uWS copies what it keeps). */
interface BodyScratch {
  /** `parts` copied into the scratch; valid until the next call */
  join(parts: Buffer[], total: number): Uint8Array;
}

/** Bodies of several parts up to this size are joined in the reused buffer; larger ones get their own. */
const SCRATCH_MAX = 1024 * 1024;

function createBodyScratch(): BodyScratch {
  let buf = new Uint8Array(64 * 1024);
  return {
    join(parts, total) {
      if (total > SCRATCH_MAX) return Buffer.concat(parts, total);
      if (total > buf.length) buf = new Uint8Array(Math.min(SCRATCH_MAX, Math.max(total, buf.length * 2)));
      let at = 0;
      for (const p of parts) {
        buf.set(p, at);
        at += p.length;
      }
      return buf.subarray(0, total);
    },
  };
}

function write(res: uWS.HttpResponse, reply: Reply, head: boolean, writeHead: HeadWriter, scratch: BodyScratch): void {
  const bodiless = reply.status === 304 || reply.status === 204;
  if (head || bodiless) {
    // This uWS build aborts the process on endWithoutBody(n) for any n > 0 and on an explicit
    // undefined ("returning from a request handler without responding"): a HEAD reply states
    // the GET body's length itself, and every bodiless reply ends with no argument.
    res.writeStatus(writeHead(reply, head && !bodiless ? reply.length : null));
    res.endWithoutBody();
    return;
  }
  res.writeStatus(writeHead(reply, null));
  const total = reply.length;
  // a template's view and the joined parts are reused buffers: uWS copies or sends them before
  // end/tryEnd returns, and an unsent rest is copied before waiting (streamBody)
  if (reply.template === null && reply.parts.length > 1 && total > STREAM_THRESHOLD) {
    // a large body of several parts (a long window) goes out part by part: no copy of it
    streamParts(res, reply.parts, total);
    return;
  }
  const body = reply.template !== null ? reply.template.fill(reply.requestId) : reply.parts.length === 1 ? reply.parts[0]! : scratch.join(reply.parts, total);
  // One end() with the whole body: a Content-Length response, not chunked.
  if (total <= STREAM_THRESHOLD) res.end(body);
  else streamBody(res, body, total);
}

/**
 * A large body of several parts sent with tryEnd, one part after another (one Content-Length):
 * in the usual case every part is taken at once and nothing is copied; when the client is slow,
 * the unsent rest is joined and sent as the socket drains (streamBody's way).
 */
function streamParts(res: uWS.HttpResponse, parts: Buffer[], total: number): void {
  const start = res.getWriteOffset();
  for (let k = 0; k < parts.length; k++) {
    const [ok, done] = res.tryEnd(parts[k]!, total);
    if (done) return;
    if (ok) continue;
    // the socket took only some: the rest of the body from what was written
    let skip = res.getWriteOffset() - start;
    const rest: Buffer[] = [];
    for (const p of parts) {
      if (skip >= p.length) skip -= p.length;
      else {
        rest.push(skip > 0 ? p.subarray(skip) : p);
        skip = 0;
      }
    }
    waitWritable(res, Buffer.concat(rest), total, res.getWriteOffset());
    return;
  }
}

/**
 * A large body sent with tryEnd (one Content-Length): in one call when the socket takes it,
 * which it does unless the client is slow; then the unsent rest is copied (the body may be a
 * reused buffer) and sent as the socket drains, resuming at the socket's write offset.
 */
function streamBody(res: uWS.HttpResponse, body: Uint8Array, total: number): void {
  const start = res.getWriteOffset();
  const [, finished] = res.tryEnd(body, total);
  if (finished) return;
  waitWritable(res, Buffer.from(body.subarray(res.getWriteOffset() - start)), total, res.getWriteOffset());
}

/** Send `rest` (the body's bytes from the socket's write offset `from`) as the socket drains. */
function waitWritable(res: uWS.HttpResponse, rest: Buffer, total: number, from: number): void {
  let done = false;
  res.onAborted(() => {
    done = true;
  });
  res.onWritable((offset) => {
    if (done) return true;
    const [ok, end] = res.tryEnd(rest.subarray(offset - from), total);
    if (end) done = true;
    return ok;
  });
}
