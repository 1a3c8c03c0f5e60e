// The resident in-memory model the engine computes over and publishes from (DESIGN §1,
// §5.7): registry indices, hourly vault series as typed arrays, price series, and each
// wallet's raw rows. Loaded once from DuckDB, then extended hour by hour.
import type { Registry, VaultRow } from './rows.js';
import type { EventTable } from './events.js';

/** engine/positions/positionItems.ts's PositionItems (model/ holds only its shape) */
export interface PositionItemsRef {
  positions: number;
  json: Uint8Array;
  offsets: Int32Array;
  flags: Uint8Array;
  skipped: Map<number, { rows: number; message: string }>;
  /** each open position's `returns` JSON (DESIGN §11.5), laid out as `json`/`offsets`; null when not computed */
  returns: { json: Uint8Array; offsets: Int32Array } | null;
  /**
   * Present while `returns` is null but due: makes them (once, however often it is called) and
   * fills `returns`. A server's first publish serves before its returns are made.
   */
  returnsLater?: () => Promise<void>;
}
import type { I128Array } from './int128.js';

/** Hourly series of one vault. Arrays may be longer than `length` (capacity for appends). */
export interface VaultSeries {
  vault_id: string;
  numeraire_decimals: number;
  /** Aera family: the on-chain unit price is used as-is (DESIGN §4.1) */
  publishes_unit_price: boolean;
  /** number of valid points */
  length: number;
  /** Unix seconds, strictly ascending, on the hour */
  ts: Float64Array;
  /** the block each snapshot was read at (APY provenance, DESIGN §11.2); NaN where unknown */
  block: Float64Array;
  /** base units of the numeraire */
  total_assets: I128Array;
  /** 18-decimal share base units */
  total_supply: I128Array;
  /** Aera: the published unit price (18-decimal base units), 0 where the snapshot has none */
  published_price: I128Array;

  // ---- derived by the kernels (engine/series) ----
  /** exact unit price, 18-decimal base units, as published (DESIGN §4.1) */
  unit_price: I128Array;
  /** unit_price / 1e18 as a double: input of APY and ROI ratios only */
  unit_price_f: Float64Array;
  /**
   * APY fractions at each point; NaN = null (warming up). Empty in a serving world, which
   * computes a point's APY when it reads it (engine/series/apyWindows.ts: apyAt).
   */
  apy_7d: Float64Array;
  apy_30d: Float64Array;
  apy_90d: Float64Array;
  /** rows skipped as corrupt (negative supply or assets) */
  skipped: number;
}

/** USD price history of one token, ascending. */
export interface PriceSeries {
  chain_id: number;
  address: string;
  ts: Float64Array;
  /** exact decimal strings, as stored */
  usd: string[];
  /** the same as doubles (ROI ratios only) */
  usd_f: Float64Array;
}

export interface TvlSourceState {
  id: string;
  label: string;
  /** the last good value and its time; null if the source never answered */
  last_good: { usd: string; ts: number } | null;
  /** the error of the newest reading, if it failed */
  last_error: { message: string; ts: number } | null;
}

export interface World {
  registry: Registry;
  vaults: Map<string, VaultRow>;
  series: Map<string, VaultSeries>;
  /** key `${chain_id}:${address}` (lowercase) */
  prices: Map<string, PriceSeries>;
  /** every raw event, ordered by (ts, chain_id, block_number, log_index, sub_index) */
  events: EventTable;
  /** positions with stable ids and wallet-wide activity over `events` (rebuilt as rows arrive) */
  walletIndex: WalletIndex;
  /** every position's API item, computed at publish (engine/positions/positionItems.ts); null before */
  positionItems: PositionItemsRef | null;
  /** latest allocation set per vault */
  allocations: Map<string, { as_of: number; items: AllocationItem[] }>;
  tvlSources: TvlSourceState[];
  /** price providers whose last round failed (the price job records them in `settings`) */
  priceProviderErrors: { provider: string; error: string }[];
  /** the newest snapshot hour of any vault */
  end: number;
  /** per chain: the newest indexed block and time (null before the first), and whether its ingest has stalled */
  chainHeads: Map<number, { block: number | null; ts: number | null; stalled: boolean }>;
  /**
   * Async requests' deadline and solver tip (DESIGN §11.8), by `${vault_id}|${request_hash}`;
   * absent where the world was not loaded with them (a request without terms never expires).
   */
  requestTerms?: Map<string, RequestTerms>;
  /**
   * What views of the past read (DESIGN §11.6): every allocation snapshot per vault and every
   * external TVL reading per source, oldest first; absent where the world was not loaded with it.
   */
  history?: {
    allocations: Map<string, { as_of: number; items: AllocationItem[] }[]>;
    tvlValues: Map<string, { ts: number; usd: string | null; error: string | null }[]>;
  };
}

export interface RequestTerms {
  /** Unix seconds, or null */
  deadline: number | null;
  /** base units of the request's token, or null */
  solver_tip: bigint | null;
}

export const requestTermsKey = (vaultId: string, requestHash: string) => `${vaultId}|${requestHash}`;

export interface AllocationItem {
  category: string;
  target: Record<string, unknown>;
  allocation: number;
  amount: number;
  amount_usd: number | null;
}

export const priceKey = (chainId: number, address: string) => `${chainId}:${address.toLowerCase()}`;

/**
 * Per-wallet views of the event table (built by engine/publish/walletIndex.ts), as index
 * arrays: wallets are indexes into `events.dict.wallets`, rows are event-table rows.
 */
export interface WalletIndex {
  /** wallets the index covers (the wallet dictionary's size when it was built) */
  wallets: number;
  /** wallet w's rows in wallet-wide order: activity[activityStart[w] .. activityStart[w + 1]) */
  activityStart: Int32Array;
  activity: Int32Array;
  /** positions; position p has position_id p + 1, assigned in order of first appearance in the event stream */
  positions: number;
  posWallet: Int32Array;
  /** index into `events.dict.vaults` */
  posVault: Int32Array;
  /** position p's rows in (block_number, log_index, sub_index) order: rows[rowStart[p] .. rowStart[p + 1]) */
  rowStart: Int32Array;
  rows: Int32Array;
  /** wallet w's positions in id order: walletPos[walletPosStart[w] .. walletPosStart[w + 1]) */
  walletPosStart: Int32Array;
  walletPos: Int32Array;
}
