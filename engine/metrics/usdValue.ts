// Exact USD value of a token amount at a stored price, in bigint arithmetic (DESIGN §4.1,
// §4.7: half-even at 6 places). Decimal.js would be ~10x slower on millions of points.
import { formatUnits, pow10, USD_DECIMALS } from '../format/numbers.js';

const PRICE_DECIMALS = 18;

/** Round n / d half-even (d > 0). */
export function divHalfEven(n: bigint, d: bigint): bigint {
  const neg = n < 0n;
  const a = neg ? -n : n;
  let q = a / d;
  const r2 = (a % d) * 2n;
  if (r2 > d || (r2 === d && (q & 1n) === 1n)) q += 1n;
  return neg ? -q : q;
}

/** amount (base units, `decimals`) × price (18-decimal integer) as a USD string, half-even at 6. */
export function usdString(amount: bigint, decimals: number, priceE18: bigint): string {
  const shift = decimals + PRICE_DECIMALS - USD_DECIMALS;
  const micro = shift >= 0 ? divHalfEven(amount * priceE18, pow10(shift)) : amount * priceE18 * pow10(-shift);
  return formatUnits(micro, USD_DECIMALS);
}
