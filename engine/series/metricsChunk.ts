// One chunk of vault_metrics_hourly rows (DESIGN §3) as the bytes of DuckDB's vectors, from
// one vault's series: TIMESTAMP as int64 microseconds, the DECIMAL(38, s) amounts as int128
// words, the APYs as doubles, and a validity mask per nullable column. Pure: the metrics
// writer (engine/persist/metricsWriter.ts) calls it per chunk as DuckDB asks. No value goes
// through a string or a float on its way: unit price and supply are copied word for word, TVL
// is rescaled and priced with exact limb arithmetic (decimalWords.ts).
import type { PriceSeries, VaultSeries } from '../../model/world.js';
import { usdTable } from '../positions/usdPriceCache.js';
import { PRICE_MAX_AGE_SECONDS, asOfIndex } from './asOf.js';
import { DECIMAL38_LIMIT, scaleTo18Into, usdHalfEvenInto, wordsAt } from './decimalWords.js';
import { u32View } from './scaledDivision.js';

/** Rows per chunk: DuckDB's vector size. */
export const METRICS_CHUNK_ROWS = 2048;
const CH = METRICS_CHUNK_ROWS;

/** A column of the table after vault_id (which the writer appends as one constant per chunk). */
export interface MetricsColumn {
  readonly name: 'ts' | 'unit_price' | 'tvl_native' | 'tvl_usd' | 'total_supply' | 'apy_7d' | 'apy_30d' | 'apy_90d';
  readonly type: 'timestamp' | 'decimal' | 'double';
  /** DECIMAL scale */
  readonly scale: number;
  /** bytes per row */
  readonly width: number;
  /** offset of its values in a chunk's bytes */
  readonly offset: number;
  /** offset of its validity mask (CH bits) in a chunk's bytes, or −1 when it is never NULL */
  readonly validity: number;
}

const SPEC = [
  ['ts', 'timestamp', 0, 8, false],
  ['unit_price', 'decimal', 18, 16, true],
  ['tvl_native', 'decimal', 18, 16, true],
  ['tvl_usd', 'decimal', 6, 16, true],
  ['total_supply', 'decimal', 18, 16, true],
  ['apy_7d', 'double', 0, 8, true],
  ['apy_30d', 'double', 0, 8, true],
  ['apy_90d', 'double', 0, 8, true],
] as const;

const VALUES_BYTES = SPEC.reduce((n, c) => n + c[3] * CH, 0);
let nextValues = 0;
let nextMask = VALUES_BYTES;
/** The columns in table order (after vault_id), with where each lives in a chunk's bytes. */
export const METRICS_COLUMNS: readonly MetricsColumn[] = SPEC.map(([name, type, scale, width, nullable]) => {
  const col = { name, type, scale, width, offset: nextValues, validity: nullable ? nextMask : -1 };
  nextValues += width * CH;
  if (nullable) nextMask += CH / 8;
  return col;
});
/** Bytes of one chunk: every column's values, then the validity masks. */
export const METRICS_CHUNK_BYTES = nextMask;

const col = (name: MetricsColumn['name']) => METRICS_COLUMNS.find((c) => c.name === name)!;
const TS = col('ts');
const UNIT_PRICE = col('unit_price');
const TVL_NATIVE = col('tvl_native');
const TVL_USD = col('tvl_usd');
const TOTAL_SUPPLY = col('total_supply');
const APYS = [col('apy_7d'), col('apy_30d'), col('apy_90d')] as const;

/** The series columns the chunk is made from: a VaultSeries' arrays, the 128-bit ones as u32 words. */
export interface MetricsSeries {
  numeraire_decimals: number;
  ts: Float64Array;
  /** u32 words of the 128-bit columns (I128Array layout) */
  total_assets: Uint32Array;
  total_supply: Uint32Array;
  unit_price: Uint32Array;
  apy_7d: Float64Array;
  apy_30d: Float64Array;
  apy_90d: Float64Array;
}

/** A numeraire's USD prices: times ascending, exact 18-decimal prices as u32 words of 64-bit halves. */
export interface MetricsPrices {
  ts: Float64Array;
  /** low 64 bits of each price, two u32 words each */
  lo: Uint32Array;
  /** high 64 bits likewise, or null when every price fits in 64 bits */
  hi: Uint32Array | null;
  /** 1 where the stored price is unusable (no price, as engine/positions/usdPriceCache.ts) */
  bad: Uint8Array | null;
}

/** The kernel's view of a vault's series (no copy). */
export function metricsSeries(s: VaultSeries): MetricsSeries {
  return {
    numeraire_decimals: s.numeraire_decimals,
    ts: s.ts,
    total_assets: u32View(s.total_assets.words),
    total_supply: u32View(s.total_supply.words),
    unit_price: u32View(s.unit_price.words),
    apy_7d: s.apy_7d,
    apy_30d: s.apy_30d,
    apy_90d: s.apy_90d,
  };
}

/**
 * A numeraire's prices as the kernel reads them: views of the exact price table the positions
 * use (engine/positions/usdPriceCache.ts), so every amount is priced from the same parse of
 * the stored strings as the API's. `cache` keeps one per price series across a write.
 */
export function metricsPrices(prices: PriceSeries, cache?: Map<PriceSeries, MetricsPrices>): MetricsPrices {
  const known = cache?.get(prices);
  if (known !== undefined) return known;
  const table = usdTable(prices);
  const t: MetricsPrices = { ts: prices.ts.subarray(0, table.n), lo: u32View(table.lo), hi: table.hi === null ? null : u32View(table.hi), bad: table.bad };
  cache?.set(prices, t);
  return t;
}

/** Bit of a column in fillMetricsChunk's result: set when the chunk holds a NULL in it. */
export const nullBit = (c: MetricsColumn): number => 1 << METRICS_COLUMNS.indexOf(c);
const BITS = new Map(METRICS_COLUMNS.map((c) => [c, nullBit(c)]));

/**
 * Fill `out` (METRICS_CHUNK_BYTES from `offset`) with the rows [at, at + n) of a series,
 * n ≤ METRICS_CHUNK_ROWS. tvl_usd is priced as of each row's own time (the latest price at or
 * before it and at most 48 h old, DESIGN §4.1) and is NULL when unpriced; an amount with no
 * DECIMAL(38, s) representation is NULL; an APY that is not finite (warming up) is NULL.
 * Returns the columns holding a NULL (nullBit), so a caller copies only those masks.
 */
export function fillMetricsChunk(s: MetricsSeries, prices: MetricsPrices | null, at: number, n: number, out: ArrayBufferLike, offset: number): number {
  if (n < 0 || n > CH) throw new RangeError(`a metrics chunk holds 0–${CH} rows, not ${n}`);
  const u32 = (c: MetricsColumn) => new Uint32Array(out, offset + c.offset, (c.width / 4) * CH);
  const masks = new Uint32Array(out, offset + VALUES_BYTES, (METRICS_CHUNK_BYTES - VALUES_BYTES) / 4);
  masks.fill(0xffffffff);
  let nulls = 0;
  const setNull = (c: MetricsColumn, k: number) => {
    const w = (c.validity - VALUES_BYTES) / 4 + (k >>> 5);
    masks[w] = masks[w]! & ~(1 << (k & 31));
    nulls |= BITS.get(c)!;
  };

  // TIMESTAMP: seconds → int64 microseconds as (lo, hi) u32 halves (exact below 2^53 µs)
  const ts = u32(TS);
  for (let k = 0; k < n; k++) {
    const us = s.ts[at + k]! * 1e6;
    const hi = Math.floor(us / 4294967296);
    ts[2 * k] = us - hi * 4294967296;
    ts[2 * k + 1] = hi;
  }

  // unit price and supply are already 18-decimal integers: copied, then range-checked
  for (const [c, src] of [
    [UNIT_PRICE, s.unit_price],
    [TOTAL_SUPPLY, s.total_supply],
  ] as const) {
    const dst = u32(c);
    dst.set(src.subarray(4 * at, 4 * (at + n)));
    for (let k = 0; k < n; k++) if (!fitsDecimal38(dst, 4 * k)) setNull(c, k);
  }

  const native = u32(TVL_NATIVE);
  const usd = u32(TVL_USD);
  const d = s.numeraire_decimals;
  let j = prices === null ? -1 : asOfIndex(prices.ts, prices.ts.length, s.ts[at]!);
  for (let k = 0; k < n; k++) {
    const i = at + k;
    if (!scaleTo18Into(s.total_assets, 4 * i, d, native, 4 * k)) setNull(TVL_NATIVE, k);
    // as-of price: rows ascend, so the index only moves forward
    let priced = false;
    if (prices !== null) {
      const t = s.ts[i]!;
      const pts = prices.ts;
      while (j + 1 < pts.length && pts[j + 1]! <= t) j++;
      if (j >= 0 && t - pts[j]! <= PRICE_MAX_AGE_SECONDS && (prices.bad === null || prices.bad[j] === 0)) {
        priced = usdHalfEvenInto(s.total_assets, 4 * i, d, prices.lo, prices.hi, j, usd, 4 * k);
      }
    }
    if (!priced) setNull(TVL_USD, k);
  }

  for (const [c, src] of [
    [APYS[0], s.apy_7d],
    [APYS[1], s.apy_30d],
    [APYS[2], s.apy_90d],
  ] as const) {
    const dst = new Float64Array(out, offset + c.offset, CH);
    dst.set(src.subarray(at, at + n));
    for (let k = 0; k < n; k++) if (!Number.isFinite(dst[k]!)) setNull(c, k);
  }
  return nulls;
}

/** |x| < 10^38 for the int128 at word offset b: the fast test on the top word, exact near the edge. */
function fitsDecimal38(w: Uint32Array, b: number): boolean {
  const top = w[b + 3]!;
  // 10^38 ≈ 0x4B3B4CA8 · 2^96: clearly inside for 0 ≤ x < 0x4B3B0000 · 2^96 and −x likewise
  if (top < 0x4b3b0000 || top > 0xb4c50000) return true;
  const x = wordsAt(w, b);
  return x < DECIMAL38_LIMIT && x > -DECIMAL38_LIMIT;
}
