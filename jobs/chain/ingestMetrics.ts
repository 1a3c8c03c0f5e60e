// The chain indexer's Prometheus series, registered once per `common.metrics` registry (tests
// build several bundles; prom-client refuses a name twice in one registry).
import { Counter, Gauge } from 'prom-client';
import type { Common } from '../../common/common.js';
import { rpcFaultCounter } from '../evm/rpcMetrics.js';

export type BadDataReason =
  | 'unknown_topic' // a log whose topic0 is none of §6.1's events
  | 'malformed_log' // a known topic0 with the wrong topic count or data length, or undecodable
  | 'unexpected_emitter' // a known event from a contract of another kind
  | 'orphan_settlement' // a *Solved/*Refunded whose request was never seen
  | 'unpaired_settlement' // a provisioner Enter/Exit with no *Solved in its transaction
  | 'snapshot_read_failed'; // a vault whose hourly reads reverted or returned nothing

export interface IngestMetrics {
  logs: Counter<'chain'>;
  events: Counter<'chain'>;
  snapshots: Counter<'chain'>;
  ranges: Counter<'chain'>;
  badData: Counter<'chain' | 'reason'>;
  rpcFaults: Counter<'chain' | 'kind'>;
  reorgs: Counter<'chain'>;
  rounds: Counter<'chain' | 'status'>;
  checkpoint: Gauge<'chain'>;
  stalled: Gauge<'chain'>;
}

const cache = new WeakMap<object, IngestMetrics>();

export function ingestMetrics(common: Common): IngestMetrics {
  let m = cache.get(common.metrics);
  if (m) return m;
  const registers = [common.metrics];
  m = {
    logs: new Counter({ name: 'vaultd_ingest_logs_total', help: 'Logs fetched with eth_getLogs', labelNames: ['chain'], registers }),
    events: new Counter({ name: 'vaultd_ingest_events_total', help: 'Event rows committed', labelNames: ['chain'], registers }),
    snapshots: new Counter({ name: 'vaultd_ingest_snapshots_total', help: 'Hourly snapshot rows committed', labelNames: ['chain'], registers }),
    ranges: new Counter({ name: 'vaultd_ingest_ranges_total', help: 'Block ranges committed', labelNames: ['chain'], registers }),
    badData: new Counter({
      name: 'vaultd_ingest_bad_data_total',
      help: 'Logs or reads skipped as bad data, by reason',
      labelNames: ['chain', 'reason'],
      registers,
    }),
    rpcFaults: rpcFaultCounter(common),
    reorgs: new Counter({ name: 'vaultd_ingest_reorgs_total', help: 'Reorgs rolled back', labelNames: ['chain'], registers }),
    rounds: new Counter({ name: 'vaultd_ingest_rounds_total', help: 'Ingest rounds by outcome', labelNames: ['chain', 'status'], registers }),
    checkpoint: new Gauge({ name: 'vaultd_ingest_checkpoint_block', help: 'Last block committed', labelNames: ['chain'], registers }),
    stalled: new Gauge({ name: 'vaultd_ingest_stalled', help: '1 while the chain is stalled', labelNames: ['chain'], registers }),
  };
  cache.set(common.metrics, m);
  return m;
}
