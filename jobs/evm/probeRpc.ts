// One RPC URL asked what vaultd needs of it (`vaultd config check --probe`): its chain id (it
// must be the configured one), its head, whether it serves state at an old block (the hourly
// reads at historical blocks need an archive node) and how long it takes to answer. Plain
// JSON-RPC over fetch, one URL at a time and no retry: a probe reports what it sees.
import type { BlockHeader } from './chainRpc.js';
import { historyFromBlock } from './historyFromBlock.js';
import { classifyRpcError } from './rpcErrors.js';

export interface RpcProbe {
  /** the URL as shown: its origin only (a path or query often holds an API key) */
  url: string;
  chainId: number | null;
  head: number | null;
  /** whether state at `archiveBlock` was served; null when not asked (an earlier step failed) */
  archive: boolean | null;
  archiveBlock: number | null;
  /** the eth_chainId round trip */
  latencyMs: number | null;
  /** what went wrong, one line; null when every answer was as expected */
  error: string | null;
}

export interface ProbeRpcOptions {
  /** the chain id the configuration gives this URL */
  chainId: number;
  /** the block whose state is asked for; default 1 (genesis state is the oldest there is) */
  historyBlock?: number;
  /** `chains[].history_from`: when given, state is asked for there instead (an ISO instant is found by header bisection) */
  historyFrom?: number | string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** `https://host/…` for a URL with a path or query, the origin alone otherwise. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.length > 1 || u.search !== '' ? '/…' : ''}`;
  } catch {
    return '<invalid url>';
  }
}

class RpcAnswerError extends Error {
  constructor(
    message: string,
    readonly code: number | undefined,
  ) {
    super(message);
  }
}

export async function probeRpc(url: string, opts: ProbeRpcOptions): Promise<RpcProbe> {
  const out: RpcProbe = { url: shownUrl(url), chainId: null, head: null, archive: null, archiveBlock: null, latencyMs: null, error: null };
  const doFetch = opts.fetch ?? fetch;
  let id = 0;
  const call = async (method: string, params: unknown[]): Promise<unknown> => {
    const res = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
    });
    const text = await res.text();
    if (!res.ok) throw new RpcAnswerError(`HTTP ${res.status}${text ? `: ${text.slice(0, 120).replace(/\s+/g, ' ')}` : ''}`, res.status);
    let body: { result?: unknown; error?: { code?: number; message?: string } };
    try {
      body = JSON.parse(text);
    } catch {
      throw new RpcAnswerError(`${method} answered something that is not JSON: ${text.slice(0, 80).replace(/\s+/g, ' ')}`, undefined);
    }
    if (body.error) throw new RpcAnswerError(`${method}: ${body.error.message ?? 'error'}`, body.error.code);
    return body.result;
  };
  const hex = (value: unknown, method: string): number => {
    if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value))
      throw new RpcAnswerError(`${method} answered ${JSON.stringify(value)?.slice(0, 40)}`, undefined);
    return Number.parseInt(value, 16);
  };
  const header = (value: unknown, n: number): BlockHeader => {
    const b = value as { number?: unknown; timestamp?: unknown } | null;
    if (b === null || typeof b !== 'object') throw new RpcAnswerError(`eth_getBlockByNumber answered no block ${n}`, undefined);
    return { number: n, hash: '', parentHash: '', timestamp: hex(b.timestamp, 'eth_getBlockByNumber') };
  };
  const reason = (err: unknown): string => (err instanceof RpcAnswerError ? err.message : classifyRpcError(err).message);
  try {
    const t0 = performance.now();
    out.chainId = hex(await call('eth_chainId', []), 'eth_chainId');
    out.latencyMs = Math.round(performance.now() - t0);
    if (out.chainId !== opts.chainId) {
      out.error = `answers chain id ${out.chainId}, not ${opts.chainId}: this URL serves another chain`;
      return out;
    }
    out.head = hex(await call('eth_blockNumber', []), 'eth_blockNumber');
  } catch (err) {
    out.error = `${reason(err)} — check the URL and that the node is up`;
    return out;
  }
  let block = Math.min(Math.max(1, opts.historyBlock ?? 1), out.head);
  try {
    if (opts.historyFrom !== undefined)
      block = Math.max(
        1,
        await historyFromBlock(
          { header: async (n) => header(await call('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]), n) },
          opts.historyFrom,
          out.head,
        ),
      );
  } catch (err) {
    out.error = `history_from ${JSON.stringify(opts.historyFrom)}: ${reason(err)}`;
    return out;
  }
  out.archiveBlock = block;
  try {
    // state at an old block: a call to the zero address answers "0x" where the state is kept
    await call('eth_call', [{ to: '0x0000000000000000000000000000000000000000', data: '0x' }, `0x${block.toString(16)}`]);
    out.archive = true;
  } catch (err) {
    out.archive = false;
    out.error = `serves no state at block ${block} (${reason(err)}): vaultd needs an archive node for history; set \`chains[].history_from\` to skip older hours`;
  }
  return out;
}
