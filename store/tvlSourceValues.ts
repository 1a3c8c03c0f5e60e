// External TVL sources' readings (table tvl_source_values, DESIGN §6.3): each source's newest
// good value and its newest reading, good or failed.
import { forEachChunk, type OnChunk } from './chunkStream.js';
import type { Store } from './store.js';

/** Per source: the newest reading with a value (usd as stored, a decimal string). */
export function lastGoodTvlValues(store: Store): Promise<{ source_id: string; ts: number; usd: string }[]> {
  return store.rows(
    'load.tvl_sources.good',
    `SELECT source_id, epoch(ts)::DOUBLE AS ts, usd::VARCHAR AS usd FROM tvl_source_values
      WHERE usd IS NOT NULL QUALIFY row_number() OVER (PARTITION BY source_id ORDER BY ts DESC) = 1`,
  );
}

/** Per source: the newest reading and its error (null when it had a value). */
export function newestTvlReadings(store: Store): Promise<{ source_id: string; ts: number; error: string | null }[]> {
  return store.rows(
    'load.tvl_sources.newest',
    `SELECT source_id, epoch(ts)::DOUBLE AS ts, error FROM tvl_source_values
      QUALIFY row_number() OVER (PARTITION BY source_id ORDER BY ts DESC) = 1`,
  );
}

/**
 * Every reading, per source oldest first (views of the past read the state at their instant),
 * as chunks of the columns (0) `source` INTEGER — the source's number in source_id order —,
 * (1) `source_id` VARCHAR, (2) `ts` DOUBLE (unix s), (3) `usd` VARCHAR (as stored, NULL for a
 * failed fetch), (4) `error` VARCHAR.
 */
export function streamTvlReadings(store: Store, onChunk: OnChunk, signal?: AbortSignal): Promise<void> {
  return forEachChunk(
    store,
    'load.tvl_sources.history',
    `SELECT (dense_rank() OVER (ORDER BY source_id) - 1)::INTEGER AS source, source_id, epoch(ts)::DOUBLE AS ts, usd::VARCHAR AS usd, error
       FROM tvl_source_values ORDER BY source_id, ts`,
    onChunk,
    [],
    signal,
  );
}
