// Data quality per point (DESIGN §11.3): flags that explain a value — never change it — with
// the ages of the snapshot and the USD price it was computed from. Pure functions of the
// series and prices a point already reads, so an as-of view can call them on its own data.
import type { PriceSeries, VaultSeries } from '../../model/world.js';
import { APY_WINDOW_DAYS, apyAt } from '../series/apyWindows.js';
import { asOfIndex, PRICE_MAX_AGE_SECONDS } from '../series/asOf.js';

export type QualityFlag = 'carried' | 'stale_snapshot' | 'unpriced' | 'stale_price' | 'jump' | 'warming_up';

export interface PointQuality {
  flags: QualityFlag[];
  snapshot_age_seconds: number;
  price_age_seconds: number | null;
}

export type StaleReason = 'fresh' | 'chain_lag' | 'never_read' | 'unpriced';

const HOUR = 3600;
export const STALE_SNAPSHOT_SECONDS = 2 * HOUR;
export const STALE_PRICE_SECONDS = 6 * HOUR;
/** a unit-price move against the previous snapshot above this fraction, either way, is a jump */
export const JUMP_FRACTION = 0.05;

type QualitySeries = Pick<VaultSeries, 'length' | 'ts' | 'unit_price_f' | 'apy_7d' | 'apy_30d' | 'apy_90d'>;

/**
 * The quality of a point at `instant` whose values are snapshot i's. `priceTime` is the time its
 * USD value was priced at (a vault point: the snapshot's own time, DESIGN §4.1; a position
 * point: the instant): `unpriced` and `stale_price` judge that price, as the value used it.
 */
export function pointQuality(s: QualitySeries, i: number, instant: number, prices: PriceSeries | undefined, priceTime: number): PointQuality {
  const flags: QualityFlag[] = [];
  const snapTs = s.ts[i]!;
  const snapshotAge = instant - snapTs;
  if (Math.floor(instant / HOUR) * HOUR > snapTs) flags.push('carried');
  if (snapshotAge > STALE_SNAPSHOT_SECONDS) flags.push('stale_snapshot');
  const j = prices ? asOfIndex(prices.ts, prices.ts.length, priceTime) : -1;
  const priceTs = j >= 0 ? prices!.ts[j]! : null;
  const used = priceTs === null ? null : priceTime - priceTs;
  if (used === null || used > PRICE_MAX_AGE_SECONDS) flags.push('unpriced');
  else if (used > STALE_PRICE_SECONDS) flags.push('stale_price');
  if (i > 0) {
    const ratio = s.unit_price_f[i]! / s.unit_price_f[i - 1]!;
    if (Math.abs(ratio - 1) > JUMP_FRACTION) flags.push('jump');
  }
  if (APY_WINDOW_DAYS.some((d) => !Number.isFinite(apyAt(s, d, i)))) flags.push('warming_up');
  return { flags, snapshot_age_seconds: snapshotAge, price_age_seconds: priceTs === null ? null : instant - priceTs };
}

/**
 * Why a vault's current metrics may be stale (DESIGN §11.3), judged at the snapshot's data
 * time `now` (the newest snapshot hour of any vault): never read, its chain lagging or
 * stalled (head older than 2 h, or marked stalled), no USD price within 48 h, else fresh.
 */
export function staleReason(
  s: QualitySeries | undefined,
  prices: PriceSeries | undefined,
  head: { ts: number | null; stalled: boolean } | undefined,
  now: number,
): StaleReason {
  if (!s || s.length === 0) return 'never_read';
  if (!head || head.stalled || head.ts === null || now - head.ts > STALE_SNAPSHOT_SECONDS) return 'chain_lag';
  const last = s.ts[s.length - 1]!;
  const j = prices ? asOfIndex(prices.ts, prices.ts.length, last) : -1;
  if (j < 0 || last - prices!.ts[j]! > PRICE_MAX_AGE_SECONDS) return 'unpriced';
  return 'fresh';
}
