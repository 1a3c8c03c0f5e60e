// Test helper: a live-feed client over Node's global WebSocket (Node ≥ 22) that keeps every
// message and lets a test wait for the one it means (no clocks).
export interface StreamMessage {
  topic: string;
  kind: string;
  generation: number;
  refreshed_at: string;
  data: unknown;
}

/** A server frame: a message, or an op (`subscribed`, `error`, `resync`, …). */
export type Frame = Partial<StreamMessage> & { op?: string; [k: string]: unknown };

export interface TestStream {
  frames: Frame[];
  messages(): (Frame & StreamMessage)[];
  send(op: unknown): void;
  /** resolves with the first frame (from `from` on) that `match` accepts */
  next(match: (f: Frame) => boolean, from?: number): Promise<Frame>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export const hasWebSocket = typeof (globalThis as { WebSocket?: unknown }).WebSocket === 'function';

export function openStream(url: string): Promise<TestStream> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const frames: Frame[] = [];
    const waiters: { match: (f: Frame) => boolean; from: number; resolve: (f: Frame) => void }[] = [];
    let closedResolve!: (v: { code: number; reason: string }) => void;
    const closed = new Promise<{ code: number; reason: string }>((r) => (closedResolve = r));
    ws.onmessage = (e) => {
      const f = JSON.parse(String(e.data)) as Frame;
      frames.push(f);
      for (const w of [...waiters]) {
        if (frames.length - 1 >= w.from && w.match(f)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(f);
        }
      }
    };
    ws.onclose = (e) => closedResolve({ code: e.code, reason: e.reason });
    ws.onerror = () => reject(new Error(`WebSocket to ${url} failed`));
    ws.onopen = () =>
      resolve({
        frames,
        messages: () => frames.filter((f): f is Frame & StreamMessage => 'topic' in f),
        send: (op) => ws.send(JSON.stringify(op)),
        next(match, from = 0) {
          const hit = frames.slice(from).find(match);
          if (hit) return Promise.resolve(hit);
          return new Promise((r) => waiters.push({ match, from, resolve: r }));
        },
        closed,
        close: () => ws.close(),
      });
  });
}

/** The raw status line of an upgrade attempt (a refused stream answers with an HTTP status). */
export async function upgradeStatus(port: number, headers: Record<string, string> = {}, path = '/v1/stream'): Promise<number> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path,
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}
