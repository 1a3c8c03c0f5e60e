// Daily readings of the external TVL sources (DESIGN §4.5): a healthy one throughout, and an
// `http` one that answers until `failingSince`, then only records its fetch error.
import type { RawSink } from '../../store/rawSink.js';
import type { TvlSourceRow } from '../../model/rows.js';
import { createRng } from './prng.js';

const DAY = 86_400;

/** Emits rows at every 00:00 UTC in [start, end] with ts > fromTs; returns how many. */
export function simulateTvlSources(
  seed: number,
  sources: readonly TvlSourceRow[],
  start: number,
  end: number,
  failingSince: number,
  fromTs: number,
  sink: RawSink,
): number {
  let count = 0;
  const firstDay = Math.ceil(start / DAY) * DAY;
  for (const source of sources) {
    const rng = createRng(seed, `tvl-source:${source.id}`);
    const base = Number(source.config.base_usd ?? 42_000_000);
    let usd = Number.isFinite(base) && base > 0 ? base : 42_000_000;
    const failing = source.kind === 'http';
    const url = typeof source.config.url === 'string' ? source.config.url : source.id;
    for (let ts = firstDay; ts <= end; ts += DAY) {
      // the walk advances even while the source fails, so its later values never shift
      usd *= Math.exp(0.0006 + 0.012 * rng.normal());
      if (ts <= fromTs) continue;
      const down = failing && ts >= failingSince;
      sink.tvlSourceValue({
        source_id: source.id,
        ts,
        usd: down ? null : usd.toFixed(2),
        error: down ? `fetch ${url} failed: connect ECONNREFUSED 127.0.0.1:9` : null,
      });
      count++;
    }
  }
  return count;
}
