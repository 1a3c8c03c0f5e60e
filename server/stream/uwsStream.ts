// The live feed on uWebSockets.js (DESIGN §11.7): GET /v1/stream upgrades to a WebSocket whose
// topics are uWS pub/sub topics (a publish's message is handed to uWS once per topic, whatever
// the number of subscribers), and GET /v1/stream/sse serves the same messages as Server-Sent
// Events (one write per subscriber: SSE has no pub/sub). Slow consumers (> 1 MiB unsent) are
// cut with 1013; a stop closes every stream with 1001.
import { Counter, Gauge } from 'prom-client';
import type uWS from 'uWebSockets.js';
import type { Common } from '../../common/common.js';
import { VaultdError } from '../../common/errors.js';
import type { AuthTable } from '../auth.js';
import { EVERY_ANSWER } from '../exchange.js';
import { createConnectionLimits } from './connectionLimits.js';
import type { StreamHub } from './streamHub.js';
import { CLOSE_GOING_AWAY, CLOSE_TRY_LATER, createStreamSession, type Outcome, RESYNC, type SessionDeps, type StreamSession } from './streamSession.js';

export interface StreamDeps {
  hub: StreamHub;
  auth: () => AuthTable;
}

/** What the HTTP listener tells the stream routes about a request. */
export interface StreamPeer {
  ip: (res: uWS.HttpResponse, req: uWS.HttpRequest) => string;
}

export interface StreamRoutes {
  /** Close every stream (WebSocket 1001, SSE ended) and resolve once all have gone, at most `waitMs`. */
  closeAll(waitMs?: number): Promise<void>;
  open(): number;
}

/** More unsent bytes than this and a stream is cut (DESIGN §11.7). */
export const SLOW_CONSUMER_BYTES = 1024 * 1024;
/** uWS's own limit, far above ours: it would drop messages silently, we close with 1013 instead. */
const UWS_MAX_BACKPRESSURE = 64 * 1024 * 1024;
/** A client message (an op) is small; larger ones close the socket (uWS: 1009). */
const MAX_OP_BYTES = 16 * 1024;

interface Conn {
  session: StreamSession;
  closed: boolean;
  cut: boolean;
}

export function attachStreamRoutes(app: uWS.TemplatedApp, uws: typeof uWS, common: Common, deps: StreamDeps, peer: StreamPeer): StreamRoutes {
  const cfg = common.config.stream;
  const limits = createConnectionLimits(cfg);
  const sessionDeps: SessionDeps = {
    hub: deps.hub,
    limits,
    auth: deps.auth,
    anonymous: common.config.auth.anonymous,
    maxTopics: cfg.max_topics_per_connection,
  };
  const sockets = new Set<uWS.WebSocket<Conn>>();
  const sse = new Map<string, Set<SseConn>>();
  const sseAll = new Set<SseConn>();
  const metrics = streamMetrics(common);
  let closing = false;
  let gone: (() => void) | null = null;
  const checkGone = () => {
    if (closing && sockets.size === 0 && sseAll.size === 0) gone?.();
  };

  const send = (ws: uWS.WebSocket<Conn>, bytes: Buffer) => ws.send(bytes, false);
  /** Cut a stream that is too far behind (the client resyncs when it reconnects with `since`). */
  const cutIfSlow = (ws: uWS.WebSocket<Conn>) => {
    const conn = ws.getUserData();
    if (conn.closed || conn.cut || ws.getBufferedAmount() <= SLOW_CONSUMER_BYTES) return;
    conn.cut = true;
    metrics.slow.inc({ transport: 'websocket' });
    ws.end(CLOSE_TRY_LATER, 'slow consumer');
    // a client that reads nothing never takes the close frame: drop the socket and its buffer
    setTimeout(() => {
      if (!conn.closed) ws.close();
    }, 1000).unref();
  };
  const apply = (ws: uWS.WebSocket<Conn>, out: Outcome) => {
    ws.cork(() => {
      for (const bytes of out.send) send(ws, bytes);
      for (const t of out.join) ws.subscribe(t);
      for (const t of out.leave) ws.unsubscribe(t);
      if (out.close) ws.end(out.close[0], out.close[1]);
    });
    if (!out.close) cutIfSlow(ws);
  };

  app.ws<Conn>('/v1/stream', {
    compression: uws.DISABLED,
    maxPayloadLength: MAX_OP_BYTES,
    idleTimeout: cfg.idle_timeout_seconds,
    sendPingsAutomatically: true,
    maxBackpressure: UWS_MAX_BACKPRESSURE,
    closeOnBackpressureLimit: false,
    upgrade(res, req, context) {
      // everything read before any other call (uWS request objects live for this call only)
      const ip = peer.ip(res, req);
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const who = deps.auth().authenticate({ authorization: req.getHeader('authorization'), apiKey: req.getHeader('x-api-key') });
      if (closing) return refuseHttp(res, new VaultdError('NOT_READY', 'the server is stopping'));
      if (who.kind === 'invalid') return refuseHttp(res, new VaultdError('UNAUTHORIZED', 'invalid or revoked API key'));
      const session = createStreamSession(sessionDeps, ip, who);
      if (!session.admit()) {
        metrics.refused.inc();
        return refuseHttp(res, new VaultdError('RATE_LIMITED', limitMessage(who.kind === 'key', cfg)));
      }
      res.upgrade<Conn>({ session, closed: false, cut: false }, key, protocol, extensions, context);
    },
    open(ws) {
      sockets.add(ws);
      metrics.open.inc({ transport: 'websocket' });
    },
    message(ws, message) {
      // a stream being cut reads no more ops (each could queue a replay)
      if (ws.getUserData().cut) return;
      let op: unknown;
      try {
        op = JSON.parse(Buffer.from(message).toString());
      } catch {
        op = null;
      }
      apply(ws, ws.getUserData().session.handle(op));
    },
    drain(ws) {
      cutIfSlow(ws);
    },
    close(ws) {
      const conn = ws.getUserData();
      conn.closed = true;
      conn.session.end();
      sockets.delete(ws);
      metrics.open.dec({ transport: 'websocket' });
      checkGone();
    },
  });

  interface SseConn {
    res: uWS.HttpResponse;
    session: StreamSession;
    /** bytes written while the socket would not take them, since it last drained */
    backlog: number;
    done: boolean;
  }
  const sseWrite = (c: SseConn, bytes: Buffer | string) => {
    if (c.done) return;
    const ok = c.res.write(bytes);
    if (ok) return;
    const was = c.backlog;
    c.backlog += typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.length;
    if (c.backlog > SLOW_CONSUMER_BYTES) {
      metrics.slow.inc({ transport: 'sse' });
      c.done = true;
      c.res.close();
      return;
    }
    if (was === 0) c.res.onWritable(() => ((c.backlog = 0), true));
  };
  const sseEnd = (c: SseConn) => {
    if (!sseAll.delete(c)) return;
    for (const t of c.session.topics) sse.get(t)?.delete(c);
    c.session.end();
    metrics.open.dec({ transport: 'sse' });
    checkGone();
  };

  app.get('/v1/stream/sse', (res, req) => {
    const ip = peer.ip(res, req);
    const query = new URLSearchParams(req.getQuery() ?? '');
    const lastEventId = req.getHeader('last-event-id');
    const who = deps.auth().authenticate({ authorization: req.getHeader('authorization'), apiKey: req.getHeader('x-api-key') });
    if (closing) return refuseHttp(res, new VaultdError('NOT_READY', 'the server is stopping'));
    if (who.kind === 'invalid') return refuseHttp(res, new VaultdError('UNAUTHORIZED', 'invalid or revoked API key'));
    const session = createStreamSession(sessionDeps, ip, who);
    const topics = (query.get('topics') ?? '').split(',').filter((t) => t !== '');
    const sinceText = query.get('since') ?? (lastEventId || null);
    const since = sinceText === null ? undefined : /^\d{1,15}$/.test(sinceText) ? Number(sinceText) : sinceText;
    // the subscribe is checked before the slot is taken: a refused one answers with a status
    const out = session.handle({ op: 'subscribe', topics, since });
    if (out.close || out.join.length === 0) {
      session.end();
      const err = JSON.parse(out.send[0]!.toString()) as { code: string; message: string };
      return refuseHttp(res, new VaultdError(err.code as 'INVALID_PARAMETER', err.message));
    }
    if (!session.admit()) {
      session.end();
      metrics.refused.inc();
      return refuseHttp(res, new VaultdError('RATE_LIMITED', limitMessage(who.kind === 'key', cfg)));
    }
    const c: SseConn = { res, session, backlog: 0, done: false };
    res.onAborted(() => {
      c.done = true;
      sseEnd(c);
    });
    sseAll.add(c);
    metrics.open.inc({ transport: 'sse' });
    for (const t of out.join) {
      let set = sse.get(t);
      if (!set) sse.set(t, (set = new Set()));
      set.add(c);
    }
    res.cork(() => {
      res.writeStatus('200 OK');
      for (const [k, v] of EVERY_ANSWER) res.writeHeader(k, v);
      res.writeHeader('Content-Type', 'text/event-stream; charset=utf-8');
      res.writeHeader('Cache-Control', 'no-store');
      // nginx: pass each event on at once
      res.writeHeader('X-Accel-Buffering', 'no');
      sseWrite(c, `retry: 2000\n\n`);
      for (const bytes of out.send) sseWrite(c, sseEvent(bytes));
    });
  });

  // SSE keep-alive: a comment line at half the idle timeout (proxies close silent streams)
  const pings = setInterval(
    () => {
      for (const c of sseAll) c.res.cork(() => sseWrite(c, ': ping\n\n'));
    },
    (cfg.idle_timeout_seconds * 1000) / 2,
  );
  pings.unref();

  deps.hub.addSink({
    message(topic, bytes) {
      app.publish(topic, bytes, false);
      const set = sse.get(topic);
      if (set && set.size > 0) {
        const event = sseEvent(bytes);
        for (const c of set) c.res.cork(() => sseWrite(c, event));
      }
    },
    flushed() {
      // the publish's messages are queued: cut those too far behind (one cheap native call each)
      for (const ws of sockets) cutIfSlow(ws);
    },
  });

  return {
    open: () => sockets.size + sseAll.size,
    async closeAll(waitMs = 3000) {
      closing = true;
      clearInterval(pings);
      const all = new Promise<void>((r) => (gone = r));
      for (const ws of [...sockets]) {
        const conn = ws.getUserData();
        if (!conn.closed) ws.end(CLOSE_GOING_AWAY, 'server stopping');
      }
      for (const c of [...sseAll]) {
        if (!c.done) c.res.cork(() => c.res.end());
        c.done = true;
        sseEnd(c);
      }
      checkGone();
      // a client that never answers the close handshake: its socket is dropped
      const timer = new Promise<void>((r) => setTimeout(r, waitMs).unref());
      await Promise.race([all, timer]);
      for (const ws of [...sockets]) if (!ws.getUserData().closed) ws.close();
    },
  };
}

/** An SSE event of a message: `id:` is its generation, so Last-Event-ID resumes; a resync is its own event. */
function sseEvent(bytes: Buffer): Buffer {
  if (bytes.equals(RESYNC)) return Buffer.concat([Buffer.from('event: resync\ndata: '), bytes, NL2]);
  const s = bytes.toString();
  if (s.startsWith('{"op":')) return Buffer.concat([Buffer.from(`event: ${JSON.parse(s).op}\ndata: `), bytes, NL2]);
  const g = /"generation":(\d+)/.exec(s);
  return Buffer.concat([Buffer.from(`id: ${g ? g[1] : ''}\ndata: `), bytes, NL2]);
}
const NL2 = Buffer.from('\n\n');

function limitMessage(keyed: boolean, cfg: Common['config']['stream']): string {
  return keyed
    ? `at most ${cfg.max_connections_per_key} open streams per API key; close one first`
    : `at most ${cfg.max_connections_per_ip} open streams per client IP; close one first, or use an API key`;
}

/** An HTTP refusal of a stream (before any upgrade): the REST error envelope. */
function refuseHttp(res: uWS.HttpResponse, err: VaultdError): void {
  const body = JSON.stringify({ error: { code: err.code, message: err.message } });
  res.cork(() => {
    res.writeStatus(`${err.status} ${STATUS_TEXT[err.status] ?? 'Error'}`);
    for (const [k, v] of EVERY_ANSWER) res.writeHeader(k, v);
    res.writeHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(body);
  });
}
const STATUS_TEXT: Record<number, string> = {
  401: 'Unauthorized',
  404: 'Not Found',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

const registered = new WeakMap<object, ReturnType<typeof makeMetrics>>();
function streamMetrics(common: Common) {
  let m = registered.get(common.metrics);
  if (!m) registered.set(common.metrics, (m = makeMetrics(common)));
  return m;
}
function makeMetrics(common: Common) {
  return {
    open: new Gauge({
      name: 'vaultd_stream_connections',
      help: 'Open live-feed streams, by transport',
      labelNames: ['transport'],
      registers: [common.metrics],
    }),
    slow: new Counter({
      name: 'vaultd_stream_slow_consumers_total',
      help: 'Streams cut for being more than 1 MiB behind, by transport',
      labelNames: ['transport'],
      registers: [common.metrics],
    }),
    refused: new Counter({ name: 'vaultd_stream_refused_total', help: 'Streams refused at the connection limit', registers: [common.metrics] }),
  };
}
