// One vault's metrics at one series index, in API shape (DESIGN §4.1–§4.3, §4.7): the
// timeseries point and the current `metrics` object share these values.
import { formatUnits, isoSeconds, SHARE_DECIMALS, UNIT_PRICE_DECIMALS } from '../../model/format/numbers.js';
import type { PriceSeries, VaultSeries } from '../../model/world.js';
import { apyAt } from '../series/apyWindows.js';
import { usdIndexAt } from '../series/asOf.js';
import { usdE18 } from '../positions/usdPriceCache.js';
import { usdString, usdUnits } from './usdValue.js';
import type { ApyWindowProvenance } from '../audit/apyProvenance.js';
import type { PointQuality, StaleReason } from '../audit/pointQuality.js';

export interface AmountPair {
  native: string;
  usd: string | null;
}

export interface VaultPointValues {
  total_supply: string;
  tvl: AmountPair;
  unit_price: string;
  apy_7d: number | null;
  apy_30d: number | null;
  apy_90d: number | null;
}

export interface VaultTimeseriesPoint extends VaultPointValues {
  timestamp: string;
  /** with include=quality (DESIGN §11.3) */
  quality?: PointQuality;
}

/** Current metrics; a vault never read yet has every value null (unknown, not zero). */
export interface VaultMetrics {
  total_supply: string | null;
  tvl: { native: string | null; usd: string | null };
  unit_price: string | null;
  apy_7d: number | null;
  apy_30d: number | null;
  apy_90d: number | null;
  as_of: number | null;
  /** opt-in blocks (DESIGN §11.2, §11.3): never in the published metrics, added per request */
  apy_provenance?: ApyWindowProvenance[] | null;
  quality?: PointQuality | null;
  stale_reason?: StaleReason;
}

const apy = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** USD value of a base-unit amount at time t in USD base units (6 decimals), or null when unpriced. */
export function usdUnitsAt(amount: bigint, decimals: number, prices: PriceSeries | undefined, t: number): bigint | null {
  const i = usdIndexAt(prices, t);
  const price = i < 0 ? null : usdE18(prices!, i);
  return price === null ? null : usdUnits(amount, decimals, price);
}

/** USD value of a base-unit amount at time t (48 h staleness rule), or null when unpriced. */
export function usdAt(amount: bigint, decimals: number, prices: PriceSeries | undefined, t: number): string | null {
  const i = usdIndexAt(prices, t);
  const price = i < 0 ? null : usdE18(prices!, i);
  return price === null ? null : usdString(amount, decimals, price);
}

/** The values of snapshot i; tvl.usd priced as of the snapshot's own time (DESIGN §4.1). */
export function vaultPointValues(s: VaultSeries, i: number, prices: PriceSeries | undefined): VaultPointValues {
  const assets = s.total_assets.get(i);
  return {
    total_supply: formatUnits(s.total_supply.get(i), SHARE_DECIMALS),
    tvl: { native: formatUnits(assets, s.numeraire_decimals), usd: usdAt(assets, s.numeraire_decimals, prices, s.ts[i]!) },
    unit_price: formatUnits(s.unit_price.get(i), UNIT_PRICE_DECIMALS),
    apy_7d: apy(apyAt(s, 7, i)),
    apy_30d: apy(apyAt(s, 30, i)),
    apy_90d: apy(apyAt(s, 90, i)),
  };
}

/** A timeseries point: every field of the as-of snapshot i, stamped with `instant` (DESIGN §4.3). */
export function vaultTimeseriesPoint(s: VaultSeries, i: number, instant: number, prices: PriceSeries | undefined): VaultTimeseriesPoint {
  return { timestamp: isoSeconds(instant), ...vaultPointValues(s, i, prices) };
}

/** Current metrics: the latest snapshot, `as_of` in Unix seconds (DESIGN §4.2). */
export function currentMetrics(s: VaultSeries | undefined, prices: PriceSeries | undefined): VaultMetrics {
  if (!s || s.length === 0) {
    return { tvl: { native: null, usd: null }, unit_price: null, total_supply: null, apy_7d: null, apy_30d: null, apy_90d: null, as_of: null };
  }
  return metricsAt(s, s.length - 1, prices);
}

/**
 * The metrics of snapshot i as if it were the latest (a view of the past, DESIGN §11.6): every
 * value reads snapshots ≤ i and prices at ts[i], so the series need not be cut at i.
 */
export function metricsAt(s: VaultSeries, i: number, prices: PriceSeries | undefined): VaultMetrics {
  const v = vaultPointValues(s, i, prices);
  return { tvl: v.tvl, unit_price: v.unit_price, total_supply: v.total_supply, apy_7d: v.apy_7d, apy_30d: v.apy_30d, apy_90d: v.apy_90d, as_of: s.ts[i]! };
}
