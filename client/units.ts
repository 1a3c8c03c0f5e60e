// Exact conversions between the API's decimal strings and base-unit integers (seed "Errors":
// conversions are exact, excess precision is rejected, never rounded). The formatting is the
// server's (DESIGN §4.7): no exponent, "0" for zero, no trailing fractional zeros, leading "-".
import { AmountError } from './errors.js';

const PLAIN = /^(-)?(\d+)(?:\.(\d+))?$/;
/** ERC-20 decimals are a uint8. */
const MAX_DECIMALS = 255;

function checkDecimals(fn: string, decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS) {
    throw new AmountError('INVALID_ARGUMENT', `${fn}: decimals must be an integer from 0 to ${MAX_DECIMALS}, got ${String(decimals)}`);
  }
}

function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/**
 * `"-12.5"` with 6 decimals → `-12500000n`. Accepts digits with an optional leading "-" and an
 * optional fractional part ("1.50" is fine: the value is exact); anything else (exponents, "+",
 * spaces, ".5", "5.") is INVALID_AMOUNT, and a non-zero digit past `decimals` is EXCESS_PRECISION.
 */
export function toBaseUnits(value: string, decimals: number): bigint {
  checkDecimals('toBaseUnits', decimals);
  const m = typeof value === 'string' ? PLAIN.exec(value) : null;
  if (!m) {
    const shown = typeof value === 'string' ? quote(value) : String(value);
    throw new AmountError('INVALID_AMOUNT', `toBaseUnits: ${shown} is not a decimal string; expected digits with an optional "-" and fraction, e.g. "-12.5"`, {
      details: { value },
    });
  }
  const frac = m[3] ?? '';
  if (frac.length > decimals && /[1-9]/.test(frac.slice(decimals))) {
    throw new AmountError('EXCESS_PRECISION', `toBaseUnits: ${quote(value)} has more fractional digits than ${decimals} decimals hold`, {
      details: { value, decimals },
    });
  }
  const digits = m[2]! + frac.slice(0, decimals).padEnd(decimals, '0');
  const n = BigInt(digits);
  return m[1] ? -n : n;
}

/** `-12500000n` with 6 decimals → `"-12.5"` (DESIGN §4.7 formatting). */
export function fromBaseUnits(value: bigint, decimals: number): string {
  checkDecimals('fromBaseUnits', decimals);
  if (typeof value !== 'bigint') throw new AmountError('INVALID_ARGUMENT', `fromBaseUnits: value must be a bigint, got ${typeof value}`);
  const neg = value < 0n;
  let digits = (neg ? -value : value).toString();
  if (decimals > 0) {
    digits = digits.padStart(decimals + 1, '0');
    const int = digits.slice(0, digits.length - decimals);
    const frac = digits.slice(digits.length - decimals).replace(/0+$/, '');
    digits = frac ? `${int}.${frac}` : int;
  }
  return neg ? `-${digits}` : digits;
}

/** How many fractional digits a decimal string has (for exact sums at a common scale). */
export function scaleOf(value: string): number {
  const m = PLAIN.exec(value);
  if (!m)
    throw new AmountError('INVALID_AMOUNT', `${quote(value)} is not a decimal string; expected digits with an optional "-" and fraction, e.g. "-12.5"`, {
      details: { value },
    });
  return m[3]?.length ?? 0;
}
