// Checks of DESIGN §4.7 over any response body, written independently of the server's
// schemas: decimal strings (no exponent, no trailing zeros, at most the allowed decimals) and
// RFC 3339 UTC whole-second timestamps. Each returns a list of problems (empty = fine).
import { Decimal as BaseDecimal } from 'decimal.js';

/** Exact for every sum here: 80 significant digits (the server's amounts have at most ~40). */
export const Decimal = BaseDecimal.clone({ precision: 80 });

const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d*[1-9])?$/;
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** Problems of one decimal string with at most `maxDecimals` fractional digits. */
export function decimalProblem(value: string, maxDecimals: number): string | null {
  if (!DECIMAL.test(value) || value === '-0') return `"${value}" is not a canonical decimal`;
  const frac = value.split('.')[1]?.length ?? 0;
  if (frac > maxDecimals) return `"${value}" has ${frac} decimals, more than ${maxDecimals}`;
  return null;
}

export function timestampProblem(value: string): string | null {
  if (!TIMESTAMP.test(value)) return `"${value}" is not RFC 3339 UTC whole seconds`;
  return new Date(value).toISOString().replace('.000Z', 'Z') === value ? null : `"${value}" is not a real instant`;
}

const DATE_TIME_KEYS = new Set(['timestamp', 'updated_at', 'refreshed_at', 'start', 'end']);
const SHARE_KEYS = new Set(['shares_owned', 'pending_redeem_shares', 'shares_delta', 'total_supply']);

/**
 * Walk a body: `native` amounts carry at most the numeraire's decimals (taken from the nearest
 * `numeraire_token`/`token`, or `nativeDecimals`), `usd` strings at most 6, shares and
 * `unit_price` at most 18; date-time keys are RFC 3339 Z whole seconds.
 */
export function formatProblems(body: unknown, nativeDecimals: number | null = null): string[] {
  const out: string[] = [];
  const visit = (node: unknown, path: string, decimals: number | null): void => {
    if (Array.isArray(node)) {
      node.forEach((x, i) => visit(x, `${path}[${i}]`, decimals));
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const obj = node as Record<string, unknown>;
    const token = (obj.numeraire_token ?? obj.token) as { decimals?: number | null } | null | undefined;
    const here = typeof token?.decimals === 'number' ? token.decimals : decimals;
    for (const [key, value] of Object.entries(obj)) {
      const at = `${path}.${key}`;
      if (typeof value === 'string') {
        let problem: string | null = null;
        if (key === 'native') problem = decimalProblem(value, here ?? 18);
        else if (key === 'usd') problem = decimalProblem(value, 6);
        else if (SHARE_KEYS.has(key) || key === 'unit_price') problem = decimalProblem(value, 18);
        else if (key === 'fee_wad') problem = decimalProblem(value, 0);
        else if (DATE_TIME_KEYS.has(key) || key === 'as_of') problem = timestampProblem(value);
        if (problem) out.push(`${at}: ${problem}`);
      } else {
        visit(value, at, here);
      }
    }
  };
  visit(body, '$', nativeDecimals);
  return out;
}

/** Exact decimal sum of USD strings (nulls skipped); null when every part is null. */
export function sumUsd(values: readonly (string | null)[]): string | null {
  const priced = values.filter((v): v is string => v !== null);
  if (priced.length === 0) return null;
  return priced.reduce((acc, v) => acc.plus(v), new Decimal(0)).toFixed();
}
