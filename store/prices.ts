// The USD price rows (table prices, DESIGN §6.3): the engine's streamed read of every token's
// hours and the digests its refresh compares, and what the prices round asks before it runs
// (the newest stored hour per token, each numeraire's history start, the registry's tokens).
import { forEachChunk, type OnChunk } from './chunkStream.js';
import type { Store } from './store.js';

/** Which rows of a token to (re)load: those after `after` (unix s), or all when it is null. */
export interface PriceSlice {
  chain_id: number;
  address: string;
  after: number | null;
}

/**
 * Every price row, or only the given slices' rows, as chunks of the columns (0) `id` INTEGER
 * — the token's number in (chain_id, address) order —, (1) `chain_id` DOUBLE, (2) `address`
 * VARCHAR, (3) `ts` DOUBLE (unix s), (4) `usd` DECIMAL(38,18); ordered by id, then ts.
 */
export function streamPrices(store: Store, slices: readonly PriceSlice[] | undefined, onChunk: OnChunk, signal?: AbortSignal): Promise<void> {
  const rows = slices
    ? `(SELECT p.* FROM prices p JOIN (SELECT unnest(from_json($1, '[{"chain_id":"DOUBLE","address":"VARCHAR","after":"DOUBLE"}]'), recursive := true)) k
          ON p.chain_id = k.chain_id AND p.address = k.address
       WHERE epoch(p.ts) > coalesce(k.after, -1e15))`
    : 'prices';
  return forEachChunk(
    store,
    slices ? 'load.prices.slices' : 'load.prices',
    `WITH r AS (SELECT chain_id, address, ts, usd FROM ${rows}),
          k AS (SELECT chain_id, address, (row_number() OVER (ORDER BY chain_id, address) - 1)::INTEGER AS id
                  FROM (SELECT DISTINCT chain_id, address FROM r))
     SELECT k.id, k.chain_id::DOUBLE AS chain_id, k.address, epoch(r.ts)::DOUBLE AS ts, r.usd
       FROM r JOIN k USING (chain_id, address) ORDER BY k.id, r.ts`,
    onChunk,
    slices ? [JSON.stringify(slices)] : [],
    signal,
  );
}

export interface PriceDigestRow {
  chain_id: number;
  address: string;
  n: number;
  /** newest hour, unix s */
  last: number;
  /** order-free hash of the token's rows */
  digest: string;
  /** the same over its rows up to the known newest hour; null for a token not in `known` */
  prefix: string | null;
}

/** Per token: row count, newest hour and order-free digests (of every row, and of the rows up to each known token's `last`). */
export function priceDigestRows(store: Store, known: readonly { chain_id: number; address: string; last: number }[]): Promise<PriceDigestRow[]> {
  return store.rows<PriceDigestRow>(
    'load.prices.digest',
    `WITH k AS (SELECT unnest(from_json($1, '[{"chain_id":"DOUBLE","address":"VARCHAR","last":"DOUBLE"}]'), recursive := true))
     SELECT p.chain_id::DOUBLE AS chain_id, p.address, count(*)::DOUBLE AS n, epoch(max(p.ts))::DOUBLE AS last,
            bit_xor(hash(p.ts, p.usd))::VARCHAR AS digest,
            (bit_xor(hash(p.ts, p.usd)) FILTER (WHERE epoch(p.ts) <= k.last))::VARCHAR AS prefix
       FROM prices p LEFT JOIN k ON p.chain_id = k.chain_id AND p.address = k.address
      GROUP BY ALL`,
    [JSON.stringify(known)],
  );
}

/** The newest stored hour (unix s) of each priced token. */
export function lastPriceHours(store: Store): Promise<{ chain_id: number; address: string; last: number }[]> {
  return store.rows('prices.last', 'SELECT chain_id::DOUBLE AS chain_id, address, epoch(max(ts))::DOUBLE AS last FROM prices GROUP BY ALL');
}

/** Per numeraire (lowercase address): the first hour any of its vaults has a snapshot, unix s. */
export function priceHistoryStarts(store: Store): Promise<{ chain_id: number; address: string; first: number }[]> {
  return store.rows(
    'prices.history_start',
    `SELECT v.chain_id::DOUBLE AS chain_id, lower(v.numeraire_address) AS address, epoch(min(s.ts))::DOUBLE AS first
       FROM vaults v JOIN vault_snapshots s USING (vault_id) GROUP BY ALL`,
  );
}

/** The registry's tokens (addresses lowercase), in chain and address order. */
export function priceTokens(store: Store): Promise<{ chain_id: number; address: string; symbol: string }[]> {
  return store.rows('prices.tokens', 'SELECT chain_id::DOUBLE AS chain_id, lower(address) AS address, symbol FROM tokens ORDER BY chain_id, address');
}

/** Remove the rows one source wrote for a token (a feed to be rescanned). */
export async function deletePriceRows(store: Store, chainId: number, address: string, source: string): Promise<void> {
  await store.run('prices.feed.rows.delete', 'DELETE FROM prices WHERE chain_id = $1 AND address = $2 AND source = $3', [chainId, address, source]);
}
