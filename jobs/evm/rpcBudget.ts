// Per-URL RPC budgets (README "Pointing vaultd at a real RPC"): requests a second, requests in
// flight, the eth_getLogs span and the JSON-RPC batch size. A URL on this machine (your own
// node) has no budget unless configured; any other gets defaults a free tier accepts. One gate
// per URL per process (shared by the chain ingest and the Chainlink feeds of that URL) spaces
// the requests and holds every one while a 429's Retry-After runs.
import type { Common } from '../../common/common.js';
import { shownUrl } from './probeRpc.js';
import { rpcBudgetMetrics } from './rpcMetrics.js';

export interface RpcBudget {
  /** JSON-RPC calls a second (a batch counts each call); null: no limit */
  max_requests_per_second: number | null;
  /** calls in flight at once; null: no limit */
  max_concurrency: number | null;
  /** the widest eth_getLogs span in blocks */
  max_block_range: number;
  /** calls in one JSON-RPC batch (1: no batching) */
  batch_size: number;
}

export interface RpcEndpoint extends RpcBudget {
  url: string;
}

/**
 * The defaults for a URL not on this machine: what the free tiers of the big providers accept
 * (Infura's and public endpoints' ~10 calls a second, Alchemy's 2K-block eth_getLogs span on
 * its free plan's response limits, batches of 10 that public endpoints take).
 */
export const FREE_TIER_BUDGET: RpcBudget = { max_requests_per_second: 10, max_concurrency: 4, max_block_range: 2_000, batch_size: 10 };
/** A node on this machine: no limit (the indexer's own ceilings apply). */
export const LOCAL_BUDGET: RpcBudget = { max_requests_per_second: null, max_concurrency: null, max_block_range: 50_000, batch_size: 200 };

export function isLocalUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

export type RpcUrlInput = string | ({ url: string } & Partial<RpcBudget>);

/** A configured rpc_urls entry with the defaults for its kind of URL filled in. */
export function rpcEndpoint(entry: RpcUrlInput): RpcEndpoint {
  const url = typeof entry === 'string' ? entry : entry.url;
  const base = isLocalUrl(url) ? LOCAL_BUDGET : FREE_TIER_BUDGET;
  if (typeof entry === 'string') return { url, ...base };
  return {
    url,
    max_requests_per_second: entry.max_requests_per_second ?? base.max_requests_per_second,
    max_concurrency: entry.max_concurrency ?? base.max_concurrency,
    max_block_range: entry.max_block_range ?? base.max_block_range,
    batch_size: entry.batch_size ?? base.batch_size,
  };
}

export interface RpcGate {
  readonly budget: RpcBudget;
  /** runs `fn` when the budget allows: a slot in flight, the next slot in time, no 429 pause running */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** holds every request of the URL for `ms` (a 429's Retry-After) */
  pause(ms: number): void;
}

const gates = new WeakMap<object, Map<string, RpcGate>>();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The one gate of `endpoint.url` in this process (the first budget configured for a URL wins). */
export function rpcGate(common: Common, chainId: number, endpoint: RpcEndpoint): RpcGate {
  let byUrl = gates.get(common.metrics);
  if (!byUrl) gates.set(common.metrics, (byUrl = new Map()));
  const key = `${chainId} ${endpoint.url}`;
  let gate = byUrl.get(key);
  if (!gate) byUrl.set(key, (gate = createGate(common, String(chainId), endpoint)));
  return gate;
}

function createGate(common: Common, chain: string, endpoint: RpcEndpoint): RpcGate {
  const budget: RpcBudget = {
    max_requests_per_second: endpoint.max_requests_per_second,
    max_concurrency: endpoint.max_concurrency,
    max_block_range: endpoint.max_block_range,
    batch_size: endpoint.batch_size,
  };
  const m = rpcBudgetMetrics(common);
  const labels = { chain, url: shownUrl(endpoint.url) };
  for (const [name, value] of Object.entries(budget)) m.budget.set({ ...labels, budget: name }, value ?? 0);
  const interval = budget.max_requests_per_second === null ? 0 : 1000 / budget.max_requests_per_second;
  let active = 0;
  const waiting: (() => void)[] = [];
  let nextSlot = 0;
  let pausedUntil = 0;

  async function acquire(): Promise<void> {
    if (budget.max_concurrency !== null && active >= budget.max_concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    m.inFlight.set(labels, active);
    // a slot in time: reserved at once (so concurrent callers queue in order), re-checked after a 429 pause began
    for (;;) {
      const now = performance.now();
      const at = Math.max(now, nextSlot, pausedUntil);
      if (interval > 0) nextSlot = at + interval;
      if (at <= now) return;
      m.waited.inc(labels, (at - now) / 1000);
      await sleep(at - now);
      if (pausedUntil <= performance.now()) return;
    }
  }

  function release(): void {
    const next = waiting.shift();
    if (next) next();
    else active--;
    m.inFlight.set(labels, active);
  }

  return {
    budget,
    async run(fn) {
      await acquire();
      m.requests.inc(labels);
      try {
        return await fn();
      } finally {
        release();
      }
    },
    pause(ms) {
      pausedUntil = Math.max(pausedUntil, performance.now() + ms);
      m.paused.inc(labels);
    },
  };
}
