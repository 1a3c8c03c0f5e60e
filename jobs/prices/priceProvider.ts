// The one interface every USD price provider implements (DESIGN §6.3): Chainlink-style
// aggregators read over JSON-RPC, a public coin-price HTTP API, static values, and the demo
// world's own simulated prices. A provider writes hourly rows (ts on the hour, USD as an
// exact decimal string) through `ctx.commit`, which makes each batch and whatever state the
// provider keeps beside it one DuckDB transaction, so a crash or retry never loses or
// duplicates a row.
import type { Logger } from 'pino';
import type { Common } from '../../common/common.js';
import type { Config } from '../../common/config.js';
import type { PriceRow } from '../../model/rows.js';
import type { Store } from '../../store/store.js';

export const HOUR = 3600;

export type PriceProviderConfig = Config['prices']['providers'][number];

/** Whether the config asks for a prices source at all (the demo world writes its own prices). */
export function hasPriceWork(config: Pick<Config, 'prices' | 'tvl_sources'>): boolean {
  return config.prices.providers.some((p) => p.kind !== 'demo') || config.tvl_sources.length > 0;
}

/** A token whose USD price is wanted (addresses lowercase). */
export interface PriceToken {
  chain_id: number;
  address: string;
  symbol: string;
}

export interface PriceRoundContext {
  common: Common;
  logger: Logger;
  /** wall-clock time of the round, unix seconds */
  now: number;
  chains: Config['chains'];
  /** the registry's tokens (vault numeraires) */
  tokens: readonly PriceToken[];
  /** newest stored hour of a token from any provider, or null */
  lastStored(chainId: number, address: string): number | null;
  /** the first hour to backfill for a token with nothing stored (its vaults' first snapshot, or the current hour) */
  historyStart(chainId: number, address: string): number;
  /**
   * Writes `rows` (first writer of a token-hour wins) and runs `also` in the same transaction.
   * Returns the rows actually added.
   */
  commit(rows: readonly PriceRow[], also?: (store: Store) => Promise<void>): Promise<number>;
  /** reads under the round's store lock */
  read<T>(work: (store: Store) => Promise<T>): Promise<T>;
  /** the stop: a long provider ends at its next step (the HTTP provider also aborts its requests) */
  signal?: AbortSignal;
}

export interface ProviderRoundResult {
  provider: string;
  /** rows added */
  rows: number;
  /** tokens the provider priced this round */
  tokens: number;
  /** oldest hour added (a backfill below the engine's newest price reloads the series) */
  oldest: number | null;
  status: 'ok' | 'failed';
  error?: string;
}

export interface PriceProvider {
  /** stable label, also the `source` column of its rows, e.g. "chainlink:1" */
  readonly name: string;
  round(ctx: PriceRoundContext): Promise<Omit<ProviderRoundResult, 'provider' | 'status' | 'error'>>;
}

/** Floor a unix time to its hour. */
export const hourFloor = (t: number) => Math.floor(t / HOUR) * HOUR;
