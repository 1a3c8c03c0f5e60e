// The Prometheus registry of one process (prom-client), created per `common` bundle so
// tests can build several without global state.
import { Registry, collectDefaultMetrics } from 'prom-client';

export type Metrics = Registry;

export function createMetrics(opts: { defaults?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaults) collectDefaultMetrics({ register: registry, prefix: 'vaultd_' });
  return registry;
}
