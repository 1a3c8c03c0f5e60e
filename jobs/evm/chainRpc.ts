// One chain's JSON-RPC access: a viem client over `http(rpc_urls[i])` with fallback across the
// URLs, no cache (a local chain moves faster than viem's 4 s block cache), our own bounded
// retry instead of viem's (so every retry is classified and counted), and responses checked
// for shape: garbage is retried like a truncated body, never decoded into wrong rows.
import { HttpRequestError, createPublicClient, fallback, http, type Address, type Hex, type PublicClient, type Transport } from 'viem';
import type { Common } from '../../common/common.js';
import { VaultdError } from '../../common/errors.js';
import { rpcFaultCounter } from './rpcMetrics.js';
import { DEFAULT_RETRY, RETRY_AFTER_MAX_MS, withRetry, type RetryOptions } from './retry.js';
import type { RpcUrlEntry } from '../../common/config.js';
import { rpcEndpoint, rpcGate, type RpcGate } from './rpcBudget.js';
import { classifyRpcError, garbageError, type RpcFault } from './rpcErrors.js';

export interface ChainRpcOptions {
  /** per HTTP request */
  timeoutMs: number;
  /** JSON-RPC batching of concurrent requests (header fetches fan out) */
  batch: boolean;
  retry: RetryOptions;
  /** larger response bodies are refused unread (viem's default, 10 MB): an eth_getLogs range then shrinks */
  maxResponseBytes?: number;
}

export const DEFAULT_RPC_OPTIONS: ChainRpcOptions = { timeoutMs: 10_000, batch: true, retry: DEFAULT_RETRY };

export interface RawLog {
  /** lowercase */
  address: string;
  topics: Hex[];
  data: Hex;
  blockNumber: number;
  blockHash: string;
  transactionHash: string;
  logIndex: number;
}

export interface BlockHeader {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: number;
}

export interface ChainRpc {
  readonly chainId: number;
  readonly client: PublicClient;
  /** the narrowest `max_block_range` of the chain's URLs: no eth_getLogs span is wider */
  readonly maxBlockRange: number;
  /** eth_chainId, checked against the configured id before anything is read */
  verifyChainId(): Promise<void>;
  blockNumber(): Promise<number>;
  /** One eth_getLogs over [from, to]; range faults are thrown at once (the caller adapts the range). */
  getLogs(from: number, to: number, addresses: readonly string[]): Promise<RawLog[]>;
  header(n: number): Promise<BlockHeader>;
  code(address: string, block: number): Promise<Hex>;
  /** Runs `fn` under the retry policy, counting faults under `label`. */
  retrying<T>(label: string, fn: () => Promise<T>): Promise<T>;
}

const HEX = /^0x[0-9a-fA-F]+$/;
const HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function hexNumber(value: unknown, what: string): number {
  if (typeof value !== 'string' || !HEX.test(value)) throw garbageError(what, value);
  const n = Number.parseInt(value, 16);
  if (!Number.isSafeInteger(n)) throw garbageError(what, value);
  return n;
}

function hash(value: unknown, what: string): string {
  if (typeof value !== 'string' || !HASH.test(value)) throw garbageError(what, value);
  return value.toLowerCase();
}

/** A log's envelope must be whole; its topics and data are judged later (a bad one is skipped, not retried). */
export function parseRawLog(value: unknown): RawLog {
  if (value === null || typeof value !== 'object') throw garbageError('a log', value);
  const l = value as Record<string, unknown>;
  if (typeof l.address !== 'string' || !ADDRESS.test(l.address)) throw garbageError('log.address', l.address);
  if (!Array.isArray(l.topics) || l.topics.some((t) => typeof t !== 'string' || !/^0x[0-9a-fA-F]*$/.test(t))) throw garbageError('log.topics', l.topics);
  if (typeof l.data !== 'string' || !/^0x[0-9a-fA-F]*$/.test(l.data)) throw garbageError('log.data', l.data);
  if (l.removed === true)
    throw new VaultdError('SOURCE_FAILED', 'eth_getLogs returned a removed log for a final block', { retryable: true, details: { kind: 'server' } });
  return {
    address: l.address.toLowerCase(),
    topics: (l.topics as string[]).map((t) => t.toLowerCase() as Hex),
    data: l.data.toLowerCase() as Hex,
    blockNumber: hexNumber(l.blockNumber, 'log.blockNumber'),
    blockHash: hash(l.blockHash, 'log.blockHash'),
    transactionHash: hash(l.transactionHash, 'log.transactionHash'),
    logIndex: hexNumber(l.logIndex, 'log.logIndex'),
  };
}

function parseHeader(value: unknown, n: number): BlockHeader {
  if (value === null) {
    // a block at or below the head we were told about: a lagging node behind a load balancer
    throw new VaultdError('SOURCE_FAILED', `block ${n} not found`, { retryable: true, details: { kind: 'server' } });
  }
  if (typeof value !== 'object') throw garbageError(`block ${n}`, value);
  const b = value as Record<string, unknown>;
  const header = {
    number: hexNumber(b.number, 'block.number'),
    hash: hash(b.hash, 'block.hash'),
    parentHash: hash(b.parentHash, 'block.parentHash'),
    timestamp: hexNumber(b.timestamp, 'block.timestamp'),
  };
  if (header.number !== n) throw garbageError(`block ${n}`, `number ${header.number}`);
  return header;
}

const BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;

/**
 * Every call through the URL's budget gate (rpcBudget.ts); a 429 with Retry-After pauses the
 * whole URL for that long, so the retry and every other caller wait it out.
 */
function gated(inner: Transport, gate: RpcGate): Transport {
  return (args) => {
    const t = inner(args);
    return {
      ...t,
      request: (req: unknown) =>
        gate.run(async () => {
          try {
            return await (t.request as (r: unknown) => Promise<unknown>)(req);
          } catch (err) {
            const fault = classifyRpcError(err);
            if (fault.kind === 'rate_limited' && fault.retryAfterMs !== undefined) gate.pause(Math.min(fault.retryAfterMs, RETRY_AFTER_MAX_MS));
            throw err;
          }
        }),
    } as ReturnType<Transport>;
  };
}

/**
 * Checks results whose shape viem would otherwise trust (eth_call data goes straight into the
 * ABI decoder): garbage becomes a retryable error at the transport, under each fallback URL.
 */
function checked(inner: Transport): Transport {
  return (args) => {
    const t = inner(args);
    return {
      ...t,
      async request(req: { method: string; params?: unknown }) {
        const result = await (t.request as (r: unknown) => Promise<unknown>)(req);
        if ((req.method === 'eth_call' || req.method === 'eth_getCode') && (typeof result !== 'string' || !BYTES.test(result))) {
          // an HttpRequestError, as viem's error handling expects of a transport (string details)
          const cause = garbageError(req.method, result);
          throw new HttpRequestError({ url: 'rpc', details: cause.message, cause });
        }
        return result;
      },
    } as ReturnType<Transport>;
  };
}

export function createChainRpc(
  common: Common,
  chain: { chain_id: number; rpc_urls: readonly string[]; rpc?: readonly RpcUrlEntry[] | undefined },
  options: ChainRpcOptions = DEFAULT_RPC_OPTIONS,
): ChainRpc {
  if (chain.rpc_urls.length === 0) {
    throw new VaultdError('CONFIG_INVALID', `chain ${chain.chain_id} has no rpc_urls; add at least one to "chains[].rpc_urls"`);
  }
  const faults = rpcFaultCounter(common);
  const label = String(chain.chain_id);
  const endpoints = (chain.rpc ?? chain.rpc_urls).map(rpcEndpoint);
  const transports = endpoints.map((endpoint) => {
    const gate = rpcGate(common, chain.chain_id, endpoint);
    return gated(
      checked(
        http(endpoint.url, {
          timeout: options.timeoutMs,
          retryCount: 0,
          batch: options.batch && endpoint.batch_size > 1 ? { batchSize: endpoint.batch_size, wait: 0 } : false,
          ...(options.maxResponseBytes === undefined ? {} : { maxResponseBodySize: options.maxResponseBytes }),
        }),
      ),
      gate,
    );
  });
  const transport: Transport = transports.length === 1 ? transports[0]! : fallback(transports, { retryCount: 0, rank: false });
  const client = createPublicClient({ transport, cacheTime: 0, batch: { multicall: false } }) as PublicClient;
  const logger = common.logger.child({ component: 'chain-rpc', chain_id: chain.chain_id });

  function count(fault: RpcFault): void {
    faults.inc({ chain: label, kind: fault.kind });
  }

  function retrying<T>(what: string, fn: () => Promise<T>, passRange = false): Promise<T> {
    return withRetry(
      async () => {
        try {
          return await fn();
        } catch (err) {
          count(classifyRpcError(err));
          throw err;
        }
      },
      options.retry,
      {
        passThrough: (f) => passRange && f.kind === 'range',
        onRetry: (fault, attempt, delayMs) => {
          logger.debug({ call: what, kind: fault.kind, attempt, delay_ms: delayMs, error: fault.message }, 'rpc retry');
        },
      },
    );
  }

  const request = (method: string, params: unknown[]) => client.request({ method, params } as never) as Promise<unknown>;

  return {
    chainId: chain.chain_id,
    client,
    maxBlockRange: Math.min(...endpoints.map((e) => e.max_block_range)),
    retrying,
    async verifyChainId() {
      const id = await retrying('eth_chainId', async () => hexNumber(await request('eth_chainId', []), 'eth_chainId'));
      if (id !== chain.chain_id) {
        throw new VaultdError('CONFIG_INVALID', `chain ${chain.chain_id}: its RPC answers chain id ${id}; check "chains[].rpc_urls"`);
      }
    },
    blockNumber: () => retrying('eth_blockNumber', async () => hexNumber(await request('eth_blockNumber', []), 'eth_blockNumber')),
    getLogs: (from, to, addresses) =>
      retrying(
        'eth_getLogs',
        async () => {
          const result = await request('eth_getLogs', [
            { address: addresses as Address[], fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}` },
          ]);
          if (!Array.isArray(result)) throw garbageError('eth_getLogs', result);
          const logs = result.map(parseRawLog);
          for (const l of logs)
            if (l.blockNumber < from || l.blockNumber > to) throw garbageError('eth_getLogs', `a log of block ${l.blockNumber} outside [${from}, ${to}]`);
          return logs;
        },
        true,
      ),
    header: (n) => retrying('eth_getBlockByNumber', async () => parseHeader(await request('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]), n)),
    code: (address, block) =>
      retrying('eth_getCode', async () => {
        const code = await request('eth_getCode', [address, `0x${block.toString(16)}`]);
        if (typeof code !== 'string' || !/^0x[0-9a-fA-F]*$/.test(code)) throw garbageError('eth_getCode', code);
        return code as Hex;
      }),
  };
}
