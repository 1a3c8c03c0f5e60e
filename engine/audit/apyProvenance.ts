// APY provenance (DESIGN §11.2): for each window, the two snapshots an APY was computed from,
// as published strings, so a client can recompute it. The apy is apyAt's value (the same bits
// as the vault's metrics and timeseries); the strings are the snapshots' published unit prices.
import { formatUnits, isoSeconds, UNIT_PRICE_DECIMALS } from '../../model/format/numbers.js';
import type { VaultSeries } from '../../model/world.js';
import { APY_WINDOW_DAYS, apyAt } from '../series/apyWindows.js';
import { asOfIndex } from '../series/asOf.js';

const DAY = 86_400;

export interface ProvenanceSnapshot {
  timestamp: string;
  block_number: number | null;
  unit_price: string;
}

export interface ApyWindowProvenance {
  window: '7d' | '30d' | '90d';
  days: number;
  apy: number | null;
  method: 'compound';
  start: ProvenanceSnapshot | null;
  end: ProvenanceSnapshot;
  elapsed_seconds: number | null;
  points: number | null;
  reason: 'warming_up' | 'non_positive_price' | null;
}

type ProvenanceSeries = Pick<VaultSeries, 'length' | 'ts' | 'block' | 'unit_price' | 'unit_price_f' | 'apy_7d' | 'apy_30d' | 'apy_90d'>;

function snapshotAt(s: ProvenanceSeries, i: number): ProvenanceSnapshot {
  const block = s.block[i]!;
  return {
    timestamp: isoSeconds(s.ts[i]!),
    block_number: Number.isFinite(block) ? block : null,
    unit_price: formatUnits(s.unit_price.get(i), UNIT_PRICE_DECIMALS),
  };
}

/** The provenance of every APY window at snapshot i (0 ≤ i < length). */
export function apyProvenance(s: ProvenanceSeries, i: number): ApyWindowProvenance[] {
  const end = snapshotAt(s, i);
  return APY_WINDOW_DAYS.map((days) => {
    const t = s.ts[i]! - days * DAY;
    const j = asOfIndex(s.ts, s.length, t);
    const apy = apyAt(s, days, i);
    const window = `${days}d` as const;
    if (j < 0) return { window, days, apy: null, method: 'compound', start: null, end, elapsed_seconds: null, points: null, reason: 'warming_up' };
    return {
      window,
      days,
      apy: Number.isFinite(apy) ? apy : null,
      method: 'compound',
      start: snapshotAt(s, j),
      end,
      elapsed_seconds: s.ts[i]! - s.ts[j]!,
      // hourly snapshots in (start, end]
      points: i - j,
      reason: Number.isFinite(apy) ? null : 'non_positive_price',
    };
  });
}

/** The series index of the as-of snapshot at `at` (default the latest), or −1 when there is none. */
export function provenanceIndex(s: Pick<VaultSeries, 'length' | 'ts'>, at?: number): number {
  if (s.length === 0) return -1;
  return at === undefined ? s.length - 1 : asOfIndex(s.ts, s.length, at);
}
