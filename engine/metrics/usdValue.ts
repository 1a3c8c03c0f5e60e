// Exact USD value of a token amount at a stored price, in bigint arithmetic (DESIGN §4.1,
// §4.7: half-even at 6 places). Decimal.js would be ~10x slower on millions of points.
import { formatUnits, halfEven, USD_DECIMALS } from '../../model/format/numbers.js';
import { USD_PRICE_DECIMALS } from '../positions/usdPriceCache.js';

/** amount (base units, `decimals`) × price (18-decimal integer) in USD base units (6 decimals), half-even. */
export function usdUnits(amount: bigint, decimals: number, priceE18: bigint): bigint {
  return halfEven(amount * priceE18, decimals + USD_PRICE_DECIMALS - USD_DECIMALS);
}

/** amount (base units, `decimals`) × price (18-decimal integer) as a USD string, half-even at 6. */
export function usdString(amount: bigint, decimals: number, priceE18: bigint): string {
  return formatUnits(usdUnits(amount, decimals, priceE18), USD_DECIMALS);
}
