// Streaming reads handed over chunk by chunk: the engine's loaders copy each result chunk's
// vectors whole into typed arrays (engine/load/vectorMemory.ts), so no row becomes an object.
// The typed streams of the table modules (vaultSnapshots.ts, vaultEvents.ts, prices.ts) run
// through here; a stop signal is seen between chunks.
import { VaultdError } from '../common/errors.js';
import type { DuckDBDataChunk, DuckDBResult } from './duckdbApi.js';
import type { Params, Store } from './store.js';

/** Called with each result chunk; its vectors are valid during the call only. */
export type OnChunk = (chunk: DuckDBDataChunk) => void;

let streamed = 0;

/** Rows handed over by every streaming read of this process so far (a long read's progress: `vaultd recompute`'s load). */
export function rowsStreamed(): number {
  return streamed;
}

/** Run a labelled streaming read, handing each result chunk to `onChunk`; stops (throws the signal's reason) once `signal` is aborted. */
export async function forEachChunk(store: Store, label: string, sql: string, onChunk: OnChunk, params?: Params, signal?: AbortSignal): Promise<void> {
  let result: DuckDBResult;
  try {
    result = await store.stream(label, sql, params);
    for (;;) {
      signal?.throwIfAborted();
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      streamed += chunk.rowCount;
      onChunk(chunk);
    }
  } catch (cause) {
    if (cause instanceof VaultdError || (signal?.aborted && cause === signal.reason)) throw cause;
    throw new VaultdError('STORE_QUERY_FAILED', `query "${label}" failed: ${(cause as Error).message.split('\n')[0]}`, { cause, details: { label } });
  }
}

/**
 * Run `work` with DuckDB decoding up to `size` (e.g. '64MB') of a streaming result ahead on its
 * threads while this one copies, then back to the default.
 */
export async function withStreamingBuffer<T>(store: Store, size: string, work: () => Promise<T>): Promise<T> {
  await store.run('series.load.buffer', `SET streaming_buffer_size = '${size}'`);
  try {
    return await work();
  } finally {
    await store.run('series.load.buffer', 'RESET streaming_buffer_size');
  }
}
