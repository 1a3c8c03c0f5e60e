// The RPC toolkit's own Prometheus series, registered once per `common.metrics` registry: RPC
// faults by chain and kind, counted by every user of the toolkit (chain ingest, Chainlink feeds).
import { Counter } from 'prom-client';
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
