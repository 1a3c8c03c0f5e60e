// The one market-value rule of DESIGN §4.4, shared by the cost-basis replay and the activity
// rows so that a transfer's `assets_delta` is exactly what the replay books: shares × the
// published unit price of the as-of snapshot, rounded toward zero at the numeraire's decimals.
import type { VaultSeries } from '../../model/world.js';
import { asOfIndexFast } from './fastAsOf.js';
import { pow10 } from '../../model/format/numbers.js';

/** 1.0 as an 18-decimal unit price: the unit price before any snapshot (DESIGN §4.1). */
export const UNIT_PRICE_ONE = 10n ** 18n;

/** The published unit price (18-decimal base units) of the snapshot as of `t`; 1 before any. */
export function unitPriceAt(series: VaultSeries, t: number): bigint {
  const i = asOfIndexFast(series.ts, series.length, t);
  return i < 0 ? UNIT_PRICE_ONE : series.unit_price.get(i);
}

/**
 * `shares` (18-decimal base units) × `unitPrice` (18-decimal base units) in numeraire base
 * units, truncated toward zero: shares·price / 10^(36 − decimals).
 */
export function sharesToAssets(shares: bigint, unitPrice: bigint, numeraireDecimals: number): bigint {
  const shift = 36 - numeraireDecimals;
  return shift >= 0 ? (shares * unitPrice) / pow10(shift) : shares * unitPrice * pow10(-shift);
}

/** Market value in numeraire base units of `shares` at time `t` (DESIGN §4.4, transfers and foreign-token rows). */
export function marketValue(series: VaultSeries, numeraireDecimals: number, shares: bigint, t: number): bigint {
  return sharesToAssets(shares, unitPriceAt(series, t), numeraireDecimals);
}

/** A row whose token is not the numeraire (Aera multi-token deposits); addresses compare case-insensitively. */
export function isForeignToken(token: string, numeraireAddress: string): boolean {
  return token !== numeraireAddress && token.toLowerCase() !== numeraireAddress.toLowerCase();
}
