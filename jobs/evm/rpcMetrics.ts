// The RPC toolkit's own Prometheus series, registered once per `common.metrics` registry: RPC
// faults by chain and kind, counted by every user of the toolkit (chain ingest, Chainlink feeds).
import { Counter, Gauge } from 'prom-client';
import type { Common } from '../../common/common.js';

const cache = new WeakMap<object, Counter<'chain' | 'kind'>>();

export function rpcFaultCounter(common: Common): Counter<'chain' | 'kind'> {
  let c = cache.get(common.metrics);
  if (!c) {
    c = new Counter({
      name: 'vaultd_ingest_rpc_faults_total',
      help: 'RPC errors by kind (retried, range-adapted or fatal)',
      labelNames: ['chain', 'kind'],
      registers: [common.metrics],
    });
    cache.set(common.metrics, c);
  }
  return c;
}

export interface RpcBudgetMetrics {
  budget: Gauge<'chain' | 'url' | 'budget'>;
  requests: Counter<'chain' | 'url'>;
  inFlight: Gauge<'chain' | 'url'>;
  waited: Counter<'chain' | 'url'>;
  paused: Counter<'chain' | 'url'>;
}

const budgets = new WeakMap<object, RpcBudgetMetrics>();

/** The RPC budgets (jobs/evm/rpcBudget.ts) and how much of them is used, per chain and URL (its origin only: a path may hold a key). */
export function rpcBudgetMetrics(common: Common): RpcBudgetMetrics {
  let m = budgets.get(common.metrics);
  if (!m) {
    const registers = [common.metrics];
    const labelNames = ['chain', 'url'] as const;
    m = {
      budget: new Gauge({
        name: 'vaultd_rpc_budget',
        help: 'The configured RPC budget per URL (max_requests_per_second, max_concurrency, max_block_range, batch_size; 0 = no limit)',
        labelNames: ['chain', 'url', 'budget'],
        registers,
      }),
      requests: new Counter({ name: 'vaultd_rpc_requests_total', help: 'JSON-RPC calls sent, per URL', labelNames, registers }),
      inFlight: new Gauge({ name: 'vaultd_rpc_in_flight', help: 'JSON-RPC calls in flight or holding a concurrency slot, per URL', labelNames, registers }),
      waited: new Counter({
        name: 'vaultd_rpc_budget_wait_seconds_total',
        help: 'Seconds calls waited for the requests-per-second budget or a Retry-After pause, per URL',
        labelNames,
        registers,
      }),
      paused: new Counter({ name: 'vaultd_rpc_retry_after_total', help: '429 answers whose Retry-After paused every call to the URL', labelNames, registers }),
    };
    budgets.set(common.metrics, m);
  }
  return m;
}
