// client.stream: the live feed (DESIGN §11.7) as an async iterator and as events. Over the
// global WebSocket (browsers, Node ≥ 22), else over Server-Sent Events read through fetch
// (Node 18/20). A dropped stream reconnects with exponential backoff and resumes with `since`
// (the last generation it saw); when the server no longer keeps what was missed it says
// `resync`, and the caller refetches what it shows over REST.
import { VaultdClientError } from './errors.js';
import { sleep } from './sleep.js';

export type StreamTopic = 'vaults' | 'tvl' | 'health' | `vault:${string}` | `wallet:${string}`;
export type StreamKind = 'vault.metrics' | 'vault.point' | 'tvl' | 'wallet.activity' | 'wallet.position' | 'wallet.request' | 'health';

/** One change of one topic; `data` has the REST shape of that thing (a vault list item, a position, /v1/tvl's data …). */
export interface StreamMessage<T = unknown> {
  topic: string;
  kind: StreamKind;
  generation: number;
  refreshed_at: string;
  data: T;
}

/** What the iterator yields: a message, or a resync (refetch what you show, then go on). */
export type StreamEvent = { type: 'message'; message: StreamMessage } | { type: 'resync' };

export interface StreamOptions {
  topics: readonly StreamTopic[];
  /** resume after this generation (replayed while the server keeps it, else one resync) */
  since?: number;
  /** `websocket` (default where a global WebSocket exists) or `sse` */
  transport?: 'websocket' | 'sse';
  /** reconnect delays: default 500 ms doubling to 30 s; `false` never reconnects */
  reconnect?: { baseDelayMs?: number; maxDelayMs?: number } | false;
  signal?: AbortSignal;
}

type Listener<E extends keyof StreamEvents> = StreamEvents[E];
interface StreamEvents {
  message: (message: StreamMessage) => void;
  resync: () => void;
  /** a connection failed or the server refused an op; the stream reconnects unless it was refused for good */
  error: (error: Error) => void;
  open: () => void;
}

export interface LiveStream extends AsyncIterable<StreamEvent> {
  on<E extends keyof StreamEvents>(event: E, listener: Listener<E>): LiveStream;
  off<E extends keyof StreamEvents>(event: E, listener: Listener<E>): LiveStream;
  /** the newest generation seen (what a reconnect resumes after), or undefined */
  readonly generation: number | undefined;
  close(): void;
}

interface Conn {
  close(): void;
}

/** Close codes after which reconnecting cannot help (policy: bad key, auth required). */
const FINAL_CLOSE = new Set([1008]);

export function openStream(baseUrl: string, apiKey: string | undefined, options: StreamOptions): LiveStream {
  if (!Array.isArray(options?.topics) || options.topics.length === 0) {
    throw new VaultdClientError('INVALID_ARGUMENT', 'stream: topics must be a non-empty array, e.g. ["vaults"]');
  }
  const WS = (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
  const transport = options.transport ?? (WS ? 'websocket' : 'sse');
  if (transport === 'websocket' && !WS) throw new VaultdClientError('INVALID_ARGUMENT', 'stream: no global WebSocket here (Node < 22); use transport "sse"');
  const reconnect = options.reconnect === false ? null : { baseDelayMs: 500, maxDelayMs: 30_000, ...options.reconnect };
  const listeners: { [E in keyof StreamEvents]: Set<StreamEvents[E]> } = { message: new Set(), resync: new Set(), error: new Set(), open: new Set() };
  const queue: StreamEvent[] = [];
  let wake: (() => void) | null = null;
  let generation = options.since;
  let closed = false;
  let conn: Conn | null = null;
  let attempt = 0;

  const emit = <E extends keyof StreamEvents>(event: E, ...args: Parameters<StreamEvents[E]>) => {
    for (const l of listeners[event]) (l as (...a: unknown[]) => void)(...args);
  };
  const push = (e: StreamEvent) => {
    queue.push(e);
    wake?.();
  };
  const onFrame = (text: string) => {
    const f = JSON.parse(text) as { op?: string; code?: string; message?: string } & Partial<StreamMessage>;
    if (f.op === 'resync') {
      emit('resync');
      push({ type: 'resync' });
    } else if (f.op === 'error') {
      emit('error', new VaultdClientError((f.code ?? 'UNEXPECTED_RESPONSE') as 'NETWORK', f.message ?? 'the stream refused an op'));
    } else if (f.op === 'subscribed') {
      attempt = 0;
    } else if (f.topic !== undefined) {
      const m = f as StreamMessage;
      if (generation === undefined || m.generation > generation) generation = m.generation;
      emit('message', m);
      push({ type: 'message', message: m });
    }
  };
  const dropped = (final: boolean, why: Error) => {
    conn = null;
    if (closed) return;
    emit('error', why);
    if (final || !reconnect) return stop();
    const delay = Math.min(reconnect.maxDelayMs, reconnect.baseDelayMs * 2 ** attempt++);
    // jitter: many clients of one restarted server do not come back in one wave
    sleep(delay * (0.5 + Math.random() / 2), options.signal).then(connect, () => stop());
  };

  const streamUrl = baseUrl.replace(/^http/, 'ws');
  function connectWs(): Conn {
    const ws = new WS!(`${streamUrl}/v1/stream`);
    ws.onopen = () => {
      if (apiKey) ws.send(JSON.stringify({ op: 'auth', key: apiKey }));
      ws.send(JSON.stringify({ op: 'subscribe', topics: options.topics, ...(generation === undefined ? {} : { since: generation }) }));
      emit('open');
    };
    ws.onmessage = (e) => onFrame(String(e.data));
    ws.onclose = (e) => dropped(FINAL_CLOSE.has(e.code), new VaultdClientError('NETWORK', `stream closed (${e.code}${e.reason ? ` ${e.reason}` : ''})`));
    return { close: () => ws.close(1000) };
  }

  function connectSse(): Conn {
    const abort = new AbortController();
    const query = new URLSearchParams({ topics: options.topics.join(',') });
    if (generation !== undefined) query.set('since', String(generation));
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
    void (async () => {
      try {
        const res = await fetch(`${baseUrl}/v1/stream/sse?${query}`, { headers, signal: abort.signal });
        if (!res.ok || !res.body) {
          const text = await res.text().catch(() => '');
          const final = res.status === 401 || res.status === 404 || res.status === 422 || res.status === 501;
          return dropped(final, new VaultdClientError('NETWORK', `stream refused with ${res.status}: ${text.slice(0, 200)}`));
        }
        emit('open');
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let end: number;
          while ((end = buf.indexOf('\n\n')) >= 0) {
            const event = buf.slice(0, end);
            buf = buf.slice(end + 2);
            const data = event
              .split('\n')
              .filter((l) => l.startsWith('data: '))
              .map((l) => l.slice(6))
              .join('\n');
            if (data) onFrame(data);
          }
        }
        dropped(false, new VaultdClientError('NETWORK', 'stream ended'));
      } catch (err) {
        if (!abort.signal.aborted) dropped(false, new VaultdClientError('NETWORK', `stream failed: ${(err as Error).message}`, { cause: err }));
      }
    })();
    return { close: () => abort.abort() };
  }

  function connect() {
    if (closed) return;
    conn = transport === 'websocket' ? connectWs() : connectSse();
  }
  function stop() {
    closed = true;
    conn?.close();
    conn = null;
    wake?.();
  }
  options.signal?.addEventListener('abort', stop, { once: true });
  connect();

  const stream: LiveStream = {
    on(event, listener) {
      listeners[event].add(listener);
      return stream;
    },
    off(event, listener) {
      listeners[event].delete(listener);
      return stream;
    },
    get generation() {
      return generation;
    },
    close: stop,
    async *[Symbol.asyncIterator]() {
      while (true) {
        const next = queue.shift();
        if (next) {
          yield next;
          continue;
        }
        if (closed) return;
        await new Promise<void>((r) => (wake = r));
        wake = null;
      }
    },
  };
  return stream;
}
