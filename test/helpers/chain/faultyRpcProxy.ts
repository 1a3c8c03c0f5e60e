// A faulty JSON-RPC proxy for tests (DESIGN §6.2): forwards to a real node on 127.0.0.1 and
// injects what public providers do — eth_getLogs range limits in the message styles of the big
// providers, 429s, 5xx, JSON-RPC internal errors, truncated and garbage bodies, timeouts and
// reset connections — with a seeded stream so a run is reproducible in kind if not in order.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRng } from '../../../jobs/demo/prng.js';
import { listenOnLoopback } from '../loopback.js';

export type FaultKind = 'http500' | 'http502' | 'rate429' | 'rpcInternal' | 'truncated' | 'garbage' | 'timeout' | 'reset';

export const RANGE_STYLES = ['alchemy', 'infura', 'maxRange', 'quicknode', 'tooLarge', 'responseSize'] as const;
export type RangeStyle = (typeof RANGE_STYLES)[number];

export interface FaultPlan {
  seed?: number;
  /** probability per HTTP request of each fault */
  rates?: Partial<Record<FaultKind, number>>;
  /** at most this many of each fault (bounds the time timeouts cost) */
  caps?: Partial<Record<FaultKind, number>>;
  /** eth_getLogs spans above this fail in one of `rangeStyles` (rotating) */
  maxLogRange?: number;
  rangeStyles?: readonly RangeStyle[];
  /**
   * the longest a `timeout` holds the request before dropping it (default 60 s); it is dropped
   * as soon as the client gives up, so the client's own timer always fires first however slow
   * the machine (a hold of fixed length would race that timer)
   */
  timeoutMs?: number;
  /** faults for every other one of the first requests, in this order (each kind surely happens) */
  upfront?: readonly FaultKind[];
  /** only these methods get random faults (default: all) */
  methods?: readonly string[];
}

export interface FaultyRpcProxy {
  url: string;
  /** faults injected, by kind, and range errors by style */
  readonly stats: { requests: number; faults: Record<string, number>; ranges: Record<string, number> };
  setPlan(plan: FaultPlan): void;
  close(): Promise<void>;
}

interface RpcRequest {
  jsonrpc: '2.0';
  id: unknown;
  method: string;
  params?: unknown[];
}

const hex = (n: number) => `0x${n.toString(16)}`;

/** The error a provider answers for an eth_getLogs span above `max`, in `style`. */
export function rangeError(style: RangeStyle, from: number, max: number): { code: number; message: string } {
  switch (style) {
    case 'alchemy':
      return {
        code: -32602,
        message: `Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters, this block range should work: [${hex(from)}, ${hex(from + max - 1)}]`,
      };
    case 'infura':
      return { code: -32005, message: `query returned more than 10000 results. Try with this block range [${hex(from)}, ${hex(from + max - 1)}].` };
    case 'maxRange':
      return { code: -32000, message: `exceed maximum block range: ${max}` };
    case 'quicknode':
      return { code: -32602, message: `eth_getLogs is limited to a ${max.toLocaleString('en-US')} range` };
    case 'tooLarge':
      return { code: -32000, message: 'block range is too large' };
    case 'responseSize':
      return { code: -32005, message: 'Log response size exceeded.' };
  }
}

export async function startFaultyRpcProxy(target: string, initial: FaultPlan = {}): Promise<FaultyRpcProxy> {
  let plan = initial;
  let rng = createRng(plan.seed ?? 1, 'faulty-rpc');
  let styleTurn = 0;
  let upfrontTurn = 0;
  const stats = { requests: 0, faults: {} as Record<string, number>, ranges: {} as Record<string, number> };

  function pickFault(methods: string[]): FaultKind | null {
    if (plan.methods && !methods.some((m) => plan.methods!.includes(m))) return null;
    // every other request, so the retries of one call are not all spent on them
    const next = stats.requests % 2 === 0 ? plan.upfront?.[upfrontTurn] : undefined;
    if (next !== undefined) {
      upfrontTurn++;
      stats.faults[next] = (stats.faults[next] ?? 0) + 1;
      return next;
    }
    for (const [kind, rate] of Object.entries(plan.rates ?? {}) as [FaultKind, number][]) {
      const cap = plan.caps?.[kind] ?? Number.POSITIVE_INFINITY;
      if ((stats.faults[kind] ?? 0) >= cap) continue;
      if (rng.float() < rate) {
        stats.faults[kind] = (stats.faults[kind] ?? 0) + 1;
        return kind;
      }
    }
    return null;
  }

  /** A range error for an eth_getLogs above the limit, else null. */
  function rangeFault(r: RpcRequest): { code: number; message: string } | null {
    if (r.method !== 'eth_getLogs' || plan.maxLogRange === undefined) return null;
    const f = (r.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string };
    if (typeof f.fromBlock !== 'string' || typeof f.toBlock !== 'string' || !f.fromBlock.startsWith('0x') || !f.toBlock.startsWith('0x')) return null;
    const from = Number.parseInt(f.fromBlock, 16);
    const to = Number.parseInt(f.toBlock, 16);
    if (to - from + 1 <= plan.maxLogRange) return null;
    const styles = plan.rangeStyles ?? RANGE_STYLES;
    const style = styles[styleTurn++ % styles.length]!;
    stats.ranges[style] = (stats.ranges[style] ?? 0) + 1;
    return rangeError(style, from, plan.maxLogRange);
  }

  async function forward(body: string): Promise<{ status: number; text: string }> {
    const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: res.status, text: await res.text() };
  }

  function garble(text: string): string {
    const parsed = JSON.parse(text) as { id: unknown; result?: unknown } | { id: unknown; result?: unknown }[];
    const bad = (x: { id: unknown; result?: unknown }) => {
      const r = x.result;
      const junk = Array.isArray(r)
        ? [{ address: 'not-an-address', topics: 7 }]
        : typeof r === 'string'
          ? '0xnothex'
          : r === null
            ? 'null?'
            : { unexpected: true };
      return { jsonrpc: '2.0', id: x.id, result: junk };
    };
    return JSON.stringify(Array.isArray(parsed) ? parsed.map(bad) : bad(parsed));
  }

  async function handle(req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
    stats.requests++;
    let parsed: RpcRequest | RpcRequest[];
    try {
      parsed = JSON.parse(body) as RpcRequest | RpcRequest[];
    } catch {
      res.writeHead(400).end('bad json');
      return;
    }
    const list = Array.isArray(parsed) ? parsed : [parsed];
    const fault = pickFault(list.map((r) => r.method));
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
    const rpcError = (code: number, message: string) =>
      Array.isArray(parsed)
        ? list.map((r) => ({ jsonrpc: '2.0', id: r.id, error: { code, message } }))
        : { jsonrpc: '2.0', id: list[0]!.id, error: { code, message } };

    switch (fault) {
      case 'reset':
        req.socket.destroy();
        return;
      case 'timeout':
        await new Promise<void>((resolve) => {
          const hold = setTimeout(resolve, plan.timeoutMs ?? 60_000);
          req.socket.once('close', () => {
            clearTimeout(hold);
            resolve();
          });
        });
        req.socket.destroy();
        return;
      case 'http500':
        res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
        return;
      case 'http502':
        res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
        return;
      case 'rate429':
        json(429, rpcError(-32005, 'Your app has exceeded its compute units per second capacity. Too Many Requests'));
        return;
      case 'rpcInternal':
        json(200, rpcError(-32603, 'Internal error'));
        return;
      default:
        break;
    }

    // range limits answer per element (a batch may mix fine and refused eth_getLogs)
    const refused = new Map<RpcRequest, { code: number; message: string }>();
    for (const r of list) {
      const e = rangeFault(r);
      if (e) refused.set(r, e);
    }
    const passing = list.filter((r) => !refused.has(r));
    let answers: unknown[] = [];
    if (passing.length > 0) {
      const upstream = await forward(JSON.stringify(Array.isArray(parsed) ? passing : passing[0]));
      if (fault === 'truncated' || fault === 'garbage') {
        const text = fault === 'truncated' ? upstream.text.slice(0, Math.max(1, Math.floor(upstream.text.length / 2))) : garble(upstream.text);
        res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
        return;
      }
      const value = JSON.parse(upstream.text) as unknown;
      answers = Array.isArray(value) ? value : [value];
    }
    const byId = new Map(answers.map((a) => [(a as { id: unknown }).id, a]));
    const out = list.map((r) => {
      const e = refused.get(r);
      return e ? { jsonrpc: '2.0', id: r.id, error: e } : byId.get(r.id);
    });
    json(200, Array.isArray(parsed) ? out : out[0]);
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(502).end(String(err));
      });
    });
  });
  const loopback = await listenOnLoopback(server);
  return {
    url: loopback.url,
    stats,
    setPlan(next) {
      plan = next;
      rng = createRng(next.seed ?? 1, 'faulty-rpc');
      upfrontTurn = 0;
    },
    close: loopback.close,
  };
}
