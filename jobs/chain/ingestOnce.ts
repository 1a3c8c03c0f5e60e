// One ingest round over every configured chain (DESIGN §6.1): the registry sync, then each
// chain concurrently — RPC work overlaps, store access is serialized — so a slow or failing
// chain delays no other chain's commits and ends as `stalled` on its own.
import { oneLineError } from '../../common/oneLine.js';
import type { Common } from '../../common/common.js';
import type { Config } from '../../common/config.js';
import type { Store } from '../../store/store.js';
import { createChainRuntime, type ChainRuntime } from './chainRuntime.js';
import { ingestChainRound, type ChainRoundResult } from './ingestChain.js';
import { ingestOptions, type IngestOptions } from './ingestOptions.js';
import { syncRegistry } from './registrySync.js';
import { createMutex } from '../../common/mutex.js';

export type { ChainRoundResult } from './ingestChain.js';

/** Per-chain state kept between rounds by a long-running ingest (caches, adapted spans, failures). */
export interface IngestRuntime {
  readonly options: IngestOptions;
  readonly chains: readonly ChainRuntime[];
}

export function createIngestRuntime(common: Common, config: Config, overrides: Partial<IngestOptions> = {}): IngestRuntime {
  const options = ingestOptions(overrides);
  // chains with no indexed vault have nothing to fetch
  const chains = config.chains
    .filter((c) => config.registry.vaults.some((v) => v.chain_id === c.chain_id))
    .map((c) => createChainRuntime(common, config, c, options));
  return { options, chains };
}

export interface IngestOnceOptions {
  runtime?: IngestRuntime;
  options?: Partial<IngestOptions>;
  /** the stop: no chain starts after it, and a chain's round ends between ranges (committed ranges stay) */
  signal?: AbortSignal;
}

export async function ingestOnce(common: Common, store: Store, config: Config, opts: IngestOnceOptions = {}): Promise<ChainRoundResult[]> {
  const runtime = opts.runtime ?? createIngestRuntime(common, config, opts.options);
  const lock = createMutex();
  const logger = common.logger.child({ component: 'ingest' });
  const started = performance.now();
  const vaults = await syncRegistry(common, store, lock, config, runtime.chains);
  if (vaults !== null) logger.info({ vaults }, 'registry synced from config');
  opts.signal?.throwIfAborted();
  for (const rt of runtime.chains) {
    for (const s of rt.book.skipped) logger.info({ chain_id: rt.chain.chain_id, ...s }, 'vault not indexed on chain (identity only)');
  }
  const results = await Promise.all(runtime.chains.map((rt) => ingestChainRound({ common, store, lock, rt, options: runtime.options, signal: opts.signal })));
  logger.info(
    { chains: results.length, stalled: results.filter((r) => r.status === 'stalled').length, ms: Math.round(performance.now() - started) },
    'ingest round done',
  );
  return results;
}

/** The one-line summary of a chain's round the CLI prints. */
export function formatRoundSummary(r: ChainRoundResult, slug?: string): string {
  const name = slug ? `${r.chain_id} (${slug})` : String(r.chain_id);
  const span = r.from !== null ? `blocks ${r.from}..${r.to} of ${r.target}` : nothingCommitted(r);
  const reorg = r.reorg ? `, reorg rolled back to ${r.reorg.ancestor}` : '';
  const bad = r.bad_data > 0 ? `, ${r.bad_data} bad data skipped` : '';
  const tail = r.status === 'ok' ? 'ok' : `stalled: ${oneLineError(r.error ?? 'unknown error')}`;
  return `chain ${name}: ${span}, ${r.logs} logs, ${r.events} events, ${r.snapshots} snapshots${reorg}${bad} in ${(r.ms / 1000).toFixed(1)} s — ${tail}`;
}

/** What was due in a round that committed nothing, and why nothing was. */
function nothingCommitted(r: ChainRoundResult): string {
  if (r.target === null || r.head === null) return 'no blocks read (the head could not be read)';
  const target = `head ${r.head} − ${r.head - r.target} finality blocks = ${r.target}`;
  if (r.indexed_to === null) return `nothing due (no vault is indexed on this chain; ${target})`;
  if (r.indexed_to >= r.target) return `nothing due (every vault is indexed to block ${r.indexed_to}; ${target})`;
  return `blocks ${r.indexed_to + 1}..${r.target} due, none committed (${target})`;
}
