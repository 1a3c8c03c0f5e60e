// Plain row shapes of the DuckDB tables (DESIGN §3), shared by every source that
// fills them (demo, chain ingest, config registry) and by the engine that reads them.
// Times are Unix seconds (UTC); token amounts are base-unit bigints.

export const VISIBILITIES = ['visible', 'hidden', 'disabled'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/** Raw event kinds, already in activity-row vocabulary (DESIGN §4.6). */
export const EVENT_KINDS = [
  'deposit', // sync deposit, or (request_hash set) the terminal row of a settled async deposit
  'deposit_pending', // async deposit request: assets left the wallet into escrow
  'deposit_refunded', // async deposit refunded: assets = the request's assets
  'withdraw', // sync withdraw, or (request_hash set) the terminal row of a settled async redeem
  'withdraw_pending', // async redeem request: shares escrowed
  'withdraw_refunded', // async redeem refunded: shares = the request's shares
  'transfer_in',
  'transfer_out',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface ChainRow {
  chain_id: number;
  slug: string;
  name: string;
  finality_blocks: number;
  rpc_urls: string[];
}

export interface StrategyRow {
  id: string;
  name: string;
  description: string | null;
  short_description: string | null;
  display_rank: number;
}

export interface GroupRow {
  id: string;
  slug: string;
  name: string;
  is_stable: boolean;
  /** YYYY-MM-DD */
  deployment_date: string | null;
  description: string | null;
  short_description: string | null;
  /** position in the featured list; null = not featured */
  featured_rank: number | null;
}

export interface VaultRow {
  /** `{chainId}:{lowercase address}` */
  vault_id: string;
  chain_id: number;
  address: string;
  /** one of the families' types (families/index.ts VAULT_TYPES, checked where rows enter: the config, the demo) */
  vault_type: string;
  name: string;
  symbol: string;
  numeraire_address: string;
  numeraire_decimals: number;
  numeraire_symbol: string;
  group_id: string | null;
  is_primary: boolean;
  strategy_id: string | null;
  visibility: Visibility;
  /** Unix seconds: when the deployment was listed (and its first hour of history) */
  listed_at: number;
  /** family fields of the definition (DESIGN §5.2), JSON-serializable */
  definition: Record<string, unknown>;
}

export interface TokenRow {
  chain_id: number;
  address: string;
  symbol: string;
  decimals: number;
}

export interface TvlSourceRow {
  id: string;
  label: string;
  kind: string;
  config: Record<string, unknown>;
  display_rank: number;
}

export interface Registry {
  chains: ChainRow[];
  strategies: StrategyRow[];
  groups: GroupRow[];
  vaults: VaultRow[];
  tokens: TokenRow[];
  tvl_sources: TvlSourceRow[];
}

/** One hourly on-chain reading of a vault (ts on the hour). */
export interface SnapshotRow {
  vault_id: string;
  ts: number;
  block_number: number;
  total_assets: bigint;
  total_supply: bigint;
  /** 18-decimal base units, where the contract publishes a unit price (Aera); else null */
  unit_price: bigint | null;
}

export interface EventRow {
  chain_id: number;
  block_number: number;
  log_index: number;
  /** a log may yield several rows (a Transfer yields transfer_out and transfer_in) */
  sub_index: number;
  block_hash: string;
  tx_hash: string;
  ts: number;
  vault_id: string;
  kind: EventKind;
  wallet: string;
  /** the other wallet of a transfer; null otherwise */
  counterparty: string | null;
  /** token the assets are denominated in (the numeraire unless an Aera multi-token deposit) */
  token: string;
  /** magnitude, base units of `token` */
  assets: bigint;
  /** magnitude, 18-decimal share base units */
  shares: bigint;
  request_hash: string | null;
}

export interface PriceRow {
  chain_id: number;
  address: string;
  ts: number;
  /** exact decimal string, at most 18 fractional digits */
  usd: string;
  source: string;
}

export interface AllocationRow {
  vault_id: string;
  as_of: number;
  position: number;
  category: string;
  target: Record<string, unknown>;
  allocation: number;
  amount: number;
  amount_usd: number | null;
}

export interface TvlSourceValueRow {
  source_id: string;
  ts: number;
  /** decimal string, or null when the fetch failed */
  usd: string | null;
  error: string | null;
}

/**
 * The terms an async request was made with (table request_terms, DESIGN §11.8): read from the
 * Provisioner's *Requested event, or made by the demo. Its state (pending, settled, refunded,
 * expired) comes from the events; these only say until when it may be solved and what the solver takes.
 */
export interface RequestTermsRow {
  chain_id: number;
  vault_id: string;
  request_hash: string;
  /** the request's block (a reorg forgets terms past its fork point) */
  block_number: number;
  /** Unix seconds; null where the source has none */
  deadline: number | null;
  /** base units of the request's token; null where the source has none */
  solver_tip: bigint | null;
}

/** An Aera Provisioner request, kept until it settles or is refunded (table chain_requests). */
export interface RequestRecord {
  chain_id: number;
  provisioner: string;
  request_hash: string;
  kind: 'deposit' | 'redeem';
  vault_id: string;
  user: string;
  receiver: string;
  token: string;
  /** deposit: tokens in; redeem: minimum tokens out */
  tokens: bigint;
  /** deposit: minimum units out; redeem: units in (escrowed) */
  units: bigint;
  block_number: number;
  log_index: number;
  /** Unix seconds (the event's deadline); absent where a caller built the record without it */
  deadline?: number;
  /** the event's solver tip, base units of `token` */
  solver_tip?: bigint;
}
