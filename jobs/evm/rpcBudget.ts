// Per-URL RPC budgets (README "Pointing vaultd at a real RPC"): requests a second, requests in
// flight, the eth_getLogs span and the JSON-RPC batch size. A URL on this machine (your own
// node) has no budget unless configured; any other gets defaults a free tier accepts. One gate
// per URL per process (shared by the chain ingest and the Chainlink feeds of that URL) keeps
// the calls within it and holds every one while a 429's Retry-After runs.
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
  // A sliding window, as providers count: at most `perWindow` calls sent in any `windowMs`
  // (20/s: 20 in any second). Checked against the clock when a call is about to go, so a late
  // timer (a busy event loop) can never let a bunch through.
  const rps = budget.max_requests_per_second;
  const perWindow = rps === null ? 0 : rps >= 1 ? Math.floor(rps) : 1;
  const windowMs = rps === null ? 0 : rps >= 1 ? (1000 * perWindow) / rps : 1000 / rps;
  const sent: number[] = [];
  let active = 0;
  const waiting: (() => void)[] = [];
  let pausedUntil = 0;

  async function acquire(): Promise<void> {
    if (budget.max_concurrency !== null && active >= budget.max_concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    m.inFlight.set(labels, active);
    for (;;) {
      const now = performance.now();
      const windowWait = perWindow > 0 && sent.length >= perWindow ? sent[sent.length - perWindow]! + windowMs - now : 0;
      const wait = Math.max(pausedUntil - now, windowWait);
      if (wait <= 0) {
        if (perWindow > 0) {
          sent.push(now);
          if (sent.length > perWindow) sent.shift();
        }
        return;
      }
      m.waited.inc(labels, wait / 1000);
      await sleep(wait);
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
