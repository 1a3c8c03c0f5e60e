// A JSON-RPC stand-in for tests of how vaultd treats a real provider: forwards to a devnet on
// 127.0.0.1 and measures what arrives (calls by method, JSON-RPC calls a second, HTTP requests
// in flight), and can act as a pruned node (state below a block refused with geth's words) or a
// rate-limited one (429 with Retry-After). Times are measured here, at the server, by arrival.
import { createServer, type IncomingMessage } from 'node:http';
import { listenOnLoopback } from '../loopback.js';

export interface StandInMode {
  /** state (eth_call, eth_getCode, eth_getBalance, eth_getStorageAt) at blocks below this is refused as a pruned node does */
  prunedBelow?: number;
  /** the next N HTTP requests are answered 429 with this Retry-After (seconds) */
  tooMany?: { count: number; retryAfterSeconds: number };
  /** every answer waits this long (holds requests in flight, so concurrency shows) */
  delayMs?: number;
}

export interface RpcStandIn {
  url: string;
  /** JSON-RPC calls by method */
  readonly calls: Record<string, number>;
  /** arrival time (ms, performance.now) of every JSON-RPC call */
  readonly arrivals: number[];
  /** the most HTTP requests ever in flight at once */
  readonly maxInFlight: number;
  /** the largest JSON-RPC batch received */
  readonly maxBatch: number;
  /** the widest eth_getLogs span asked for, in blocks */
  readonly maxLogSpan: number;
  /** when each 429 was sent, and when the next request arrived after it */
  readonly throttled: { sentAt: number; retryAfterMs: number; nextAt: number | null }[];
  /** the most calls that arrived within any window of `ms` */
  maxInWindow(ms: number): number;
  setMode(mode: StandInMode): void;
  reset(): void;
  close(): Promise<void>;
}

const STATE_METHODS = new Set(['eth_call', 'eth_getCode', 'eth_getBalance', 'eth_getStorageAt']);

function blockOf(params: unknown[] | undefined): number | null {
  const tag = params?.[1];
  return typeof tag === 'string' && /^0x[0-9a-f]+$/i.test(tag) ? Number.parseInt(tag, 16) : null;
}

const body = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });

export async function startRpcStandIn(upstream: string, initial: StandInMode = {}): Promise<RpcStandIn> {
  let mode = initial;
  let calls: Record<string, number> = {};
  let arrivals: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let maxBatch = 0;
  let maxLogSpan = 0;
  let throttled: { sentAt: number; retryAfterMs: number; nextAt: number | null }[] = [];
  let tooManyLeft = initial.tooMany?.count ?? 0;

  const server = createServer(async (req, res) => {
    const now = performance.now();
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      const text = await body(req);
      const last = throttled.at(-1);
      if (last && last.nextAt === null) last.nextAt = now;
      if (tooManyLeft > 0 && mode.tooMany) {
        tooManyLeft--;
        throttled.push({ sentAt: performance.now(), retryAfterMs: mode.tooMany.retryAfterSeconds * 1000, nextAt: null });
        res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': String(mode.tooMany.retryAfterSeconds) });
        res.end('Too Many Requests');
        return;
      }
      const parsed = JSON.parse(text) as { id: unknown; method: string; params?: unknown[] } | { id: unknown; method: string; params?: unknown[] }[];
      const list = Array.isArray(parsed) ? parsed : [parsed];
      maxBatch = Math.max(maxBatch, list.length);
      for (const r of list) {
        calls[r.method] = (calls[r.method] ?? 0) + 1;
        if (r.method === 'eth_getLogs') {
          const f = r.params?.[0] as { fromBlock: string; toBlock: string };
          maxLogSpan = Math.max(maxLogSpan, Number.parseInt(f.toBlock, 16) - Number.parseInt(f.fromBlock, 16) + 1);
        }
        arrivals.push(now);
      }
      if (mode.delayMs) await new Promise((r) => setTimeout(r, mode.delayMs));
      const answers = await Promise.all(
        list.map(async (r) => {
          const block = blockOf(r.params);
          if (mode.prunedBelow !== undefined && STATE_METHODS.has(r.method) && block !== null && block < mode.prunedBelow) {
            // geth's answer for state it pruned
            return {
              jsonrpc: '2.0',
              id: r.id,
              error: { code: -32000, message: `missing trie node ${'ab'.repeat(32)} (path ) state ${'cd'.repeat(32)} is not available` },
            };
          }
          const up = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(r) });
          return (await up.json()) as unknown;
        }),
      );
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    } finally {
      inFlight--;
    }
  });
  const loop = await listenOnLoopback(server);
  return {
    url: loop.url,
    get calls() {
      return calls;
    },
    get arrivals() {
      return arrivals;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    get maxBatch() {
      return maxBatch;
    },
    get maxLogSpan() {
      return maxLogSpan;
    },
    get throttled() {
      return throttled;
    },
    maxInWindow(ms) {
      const at = [...arrivals].sort((a, b) => a - b);
      let best = 0;
      let lo = 0;
      for (let hi = 0; hi < at.length; hi++) {
        while (at[hi]! - at[lo]! >= ms) lo++;
        best = Math.max(best, hi - lo + 1);
      }
      return best;
    },
    setMode(m) {
      mode = m;
      tooManyLeft = m.tooMany?.count ?? 0;
    },
    reset() {
      calls = {};
      arrivals = [];
      maxInFlight = inFlight;
      maxBatch = 0;
      maxLogSpan = 0;
      throttled = [];
    },
    close: () => loop.close(),
  };
}
