// The one number and time format of every explorer page (issue 37): USD compact in tables with
// the exact value for a title, two decimals in detail views, token amounts at a precision that
// fits their size, percents with two decimals, ages beside timestamps. Amounts are rounded on
// their decimal strings (never through a float), so what a page shows is reproducible from the
// API's strings; unknown values are "—", never 0. Pure: no DOM, the tests import it as it is.

export const UNKNOWN = '—';

const PLAIN = /^(-)?(\d+)(?:\.(\d+))?$/;

interface Parts {
  neg: boolean;
  int: string;
  frac: string;
}

function parts(value: string): Parts {
  const m = PLAIN.exec(value);
  if (!m) throw new Error(`not a decimal string: ${JSON.stringify(value)}`);
  return { neg: m[1] === '-', int: m[2]!.replace(/^0+(?=\d)/, ''), frac: m[3] ?? '' };
}

/** "1234567" → "1,234,567" */
export function group(int: string): string {
  return int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * `value` rounded half away from zero to exactly `digits` decimals, ungrouped:
 * ("2.345", 2) → "2.35", ("-0.004", 2) → "0.00" (no negative zero), ("7", 2) → "7.00".
 */
export function roundDecimal(value: string, digits: number): string {
  const p = parts(value);
  let int = p.int;
  let frac = p.frac;
  if (frac.length > digits) {
    const up = frac.charCodeAt(digits) >= 53; // '5'
    let n = BigInt(int + frac.slice(0, digits));
    if (up) n += 1n;
    const s = n.toString().padStart(digits + 1, '0');
    int = s.slice(0, s.length - digits);
    frac = s.slice(s.length - digits);
  } else frac = frac.padEnd(digits, '0');
  const zero = /^0*$/.test(int + frac);
  return `${p.neg && !zero ? '-' : ''}${int}${digits > 0 ? `.${frac}` : ''}`;
}

/** A decimal string grouped with its sign: ("-1234.5", 2) → "-1,234.50". */
function fixed(value: string, digits: number): string {
  const r = roundDecimal(value, digits);
  const neg = r.startsWith('-');
  const [int, frac] = (neg ? r.slice(1) : r).split('.');
  return `${neg ? '-' : ''}${group(int!)}${frac !== undefined ? `.${frac}` : ''}`;
}

const withDollar = (s: string) => (s.startsWith('-') ? `-$${s.slice(1)}` : `$${s}`);

/** Detail views: "$8,049,560.24"; null → "—". */
export function usd(value: string | null | undefined): string {
  if (value === null || value === undefined) return UNKNOWN;
  return withDollar(fixed(value, 2));
}

/** The exact value, for a title: "$8,049,560.240001" (every digit the API gave). */
export function usdExact(value: string | null | undefined): string {
  if (value === null || value === undefined) return 'no USD price';
  const p = parts(value);
  return withDollar(`${p.neg ? '-' : ''}${group(p.int)}${p.frac ? `.${p.frac}` : ''}`);
}

/** Suffixes of the compact format, smallest first. */
const UNITS: [string, number][] = [
  ['', 0],
  ['K', 3],
  ['M', 6],
  ['B', 9],
  ['T', 12],
];

/** A non-negative decimal divided by 10^places, as a decimal string. */
function shiftLeft(int: string, frac: string, places: number): string {
  if (places === 0) return `${int}.${frac || '0'}`;
  const digits = int.padStart(places + 1, '0');
  const cut = digits.length - places;
  return `${digits.slice(0, cut)}.${digits.slice(cut)}${frac}`;
}

/** Tables: "$8.05M", "$523.45K", "$12.30"; two decimals of the unit, rounded; null → "—". */
export function usdCompact(value: string | null | undefined): string {
  if (value === null || value === undefined) return UNKNOWN;
  const p = parts(value);
  // the largest unit the value reaches; rounding may carry into the next (999,995 → $1.00M)
  let k = 0;
  while (k + 1 < UNITS.length && p.int.length > UNITS[k + 1]![1]) k++;
  let out = roundDecimal(shiftLeft(p.int, p.frac, UNITS[k]![1]), 2);
  if (k + 1 < UNITS.length && out.length > 6) out = roundDecimal(shiftLeft(p.int, p.frac, UNITS[++k]![1]), 2);
  const zero = /^[0.]*$/.test(out);
  return `${p.neg && !zero ? '-' : ''}$${out}${UNITS[k]![0]}`;
}

/** A chart axis or a float from a chart: `usdCompact` of a number. */
export function usdCompactNumber(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return UNKNOWN;
  return usdCompact(value.toFixed(2));
}

/**
 * How many decimals a token amount shows. With the token's USD price: enough that the last digit
 * is worth at most about a dollar, at least two (USDC 2, WETH 4, BTC 5). Without one: six
 * significant digits, at least two decimals; below 1, four digits after the leading zeros.
 * Never more than the token's own decimals.
 */
export function tokenDigits(value: string, tokenDecimals = 18, usdPrice: number | null = null): number {
  const max = Math.max(0, tokenDecimals);
  if (usdPrice !== null && Number.isFinite(usdPrice) && usdPrice > 0) return Math.min(max, Math.max(2, Math.ceil(Math.log10(usdPrice))));
  const p = parts(value);
  if (p.int !== '0') return Math.min(max, Math.max(2, 6 - p.int.length));
  const lead = /^0*/.exec(p.frac)![0].length;
  if (lead === p.frac.length) return Math.min(max, 2);
  return Math.min(max, lead + 4);
}

/** "2,972,203.60 USDC", "16.1638 cbBTC", "0.002194 cbBTC"; null → "—". */
export function token(value: string | null | undefined, symbol?: string | null, tokenDecimals?: number, usdPrice: number | null = null): string {
  if (value === null || value === undefined) return UNKNOWN;
  const s = fixed(value, tokenDigits(value, tokenDecimals, usdPrice));
  return symbol ? `${s} ${symbol}` : s;
}

/** The USD price implied by an amount pair (usd ÷ native), for `token`'s precision; null when unknown. */
export function impliedPrice(pair: { native: string; usd: string | null } | null | undefined): number | null {
  if (!pair || pair.usd === null) return null;
  const n = Number(pair.native);
  const u = Number(pair.usd);
  return n !== 0 && Number.isFinite(u / n) ? Math.abs(u / n) : null;
}

/** The exact amount, for a title: "2,972,203.600797 USDC". */
export function tokenExact(value: string | null | undefined, symbol?: string | null): string {
  if (value === null || value === undefined) return UNKNOWN;
  const p = parts(value);
  const s = `${p.neg ? '-' : ''}${group(p.int)}${p.frac ? `.${p.frac}` : ''}`;
  return symbol ? `${s} ${symbol}` : s;
}

function twoDecimals(n: number): string {
  const s = n.toFixed(2);
  return s === '-0.00' ? '0.00' : s;
}

/** An APY fraction as a percent: 0.0512 → "5.12 %"; null → "—". */
export function percent(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return UNKNOWN;
  return `${twoDecimals(fraction * 100)} %`;
}

/** A value that is already a percent (`roi_pct`): 5.27 → "5.27 %"; null → "—". */
export function percentOf(pct: number | null | undefined): string {
  if (pct === null || pct === undefined || !Number.isFinite(pct)) return UNKNOWN;
  return `${twoDecimals(pct)} %`;
}

/** An exact ratio with trailing zeros dropped: a fee of 1e17 wad → "10 %", 50 bps → "0.5 %". */
function exactPercent(numerator: bigint, denominator: bigint): string {
  // four decimals of a percent are finer than any fee a vault sets
  const scaled = (numerator * 100n * 10_000n) / denominator;
  const s = scaled.toString().padStart(5, '0');
  const int = s.slice(0, -4);
  const frac = s.slice(-4).replace(/0+$/, '');
  return `${group(int)}${frac ? `.${frac}` : ''} %`;
}

/** A fee in WAD (1e18 = 100 %): "100000000000000000" → "10 %". */
export function wadPercent(wad: string | null | undefined): string {
  if (wad === null || wad === undefined || !/^\d+$/.test(wad)) return UNKNOWN;
  return exactPercent(BigInt(wad), 10n ** 18n);
}

/** A fee in basis points: 50 → "0.5 %". */
export function bpsPercent(bps: number | null | undefined): string {
  if (bps === null || bps === undefined || !Number.isInteger(bps) || bps < 0) return UNKNOWN;
  return exactPercent(BigInt(bps), 10_000n);
}

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** A duration for people: 604800 → "7 days", 5400 → "1.5 hours", 0 → "none". */
export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return UNKNOWN;
  if (seconds === 0) return 'none';
  const round = (n: number) => Math.round(n * 100) / 100;
  if (seconds >= 86_400) return plural(round(seconds / 86_400), 'day');
  if (seconds >= 3600) return plural(round(seconds / 3600), 'hour');
  if (seconds >= 60) return plural(round(seconds / 60), 'minute');
  return plural(seconds, 'second');
}

/** Milliseconds since the epoch of a Unix-seconds number or an ISO string. */
export function toMs(at: number | string): number {
  return typeof at === 'number' ? at * 1000 : Date.parse(at);
}

/** "2026-06-01 00:00 UTC" */
export function timestamp(at: number | string | null | undefined): string {
  if (at === null || at === undefined) return UNKNOWN;
  const ms = toMs(at);
  if (!Number.isFinite(ms)) return UNKNOWN;
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** "2026-06-01" */
export function day(at: number | string): string {
  return new Date(toMs(at)).toISOString().slice(0, 10);
}

/** How long ago `at` was, from `nowMs`: "just now", "5 min ago", "2 h ago", "3 d ago", "in 2 h". */
export function age(at: number | string | null | undefined, nowMs: number): string {
  if (at === null || at === undefined) return UNKNOWN;
  const ms = toMs(at);
  if (!Number.isFinite(ms)) return UNKNOWN;
  const s = Math.round((nowMs - ms) / 1000);
  const a = Math.abs(s);
  const span = a < 60 ? null : a < 3600 ? `${Math.floor(a / 60)} min` : a < 48 * 3600 ? `${Math.floor(a / 3600)} h` : `${Math.floor(a / 86_400)} d`;
  if (span === null) return 'just now';
  return s >= 0 ? `${span} ago` : `in ${span}`;
}

/** "0x6e47…db63" */
export function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}
