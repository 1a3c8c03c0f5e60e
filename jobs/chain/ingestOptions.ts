// Tuning of the chain indexer. Not configuration keys (DESIGN §2 fixes those): defaults that
// suit public providers, overridden by tests and benchmarks.
import { DEFAULT_RPC_OPTIONS, type ChainRpcOptions } from '../evm/chainRpc.js';

export interface IngestOptions {
  rpc: ChainRpcOptions;
  /** first eth_getLogs span in blocks */
  initialRange: number;
  /** largest span ever asked for */
  maxRange: number;
  /** block hashes kept beyond `finality_blocks` for reorg detection */
  hashWindow: number;
  /** a round stops starting new ranges after this long (committed ranges stay) */
  roundBudgetMs: number;
  /** a range whose logs keep disagreeing with their block headers is re-fetched this often */
  maxRangeRefetch: number;
}

export const DEFAULT_INGEST_OPTIONS: IngestOptions = {
  rpc: DEFAULT_RPC_OPTIONS,
  initialRange: 2_000,
  maxRange: 50_000,
  hashWindow: 128,
  roundBudgetMs: 5 * 60_000,
  maxRangeRefetch: 3,
};

export function ingestOptions(overrides: Partial<IngestOptions> = {}): IngestOptions {
  return { ...DEFAULT_INGEST_OPTIONS, ...overrides, rpc: { ...DEFAULT_INGEST_OPTIONS.rpc, ...overrides.rpc } };
}
