// Unit price at every point of a vault series (DESIGN §4.1): the exact 18-decimal value that
// is published, and the same as a double for APY and ROI ratios. Pure; runs in a pool worker
// or in-thread over the series' SharedArrayBuffers.
import { unitPriceE18 } from '../../model/format/numbers.js';
import type { VaultSeries } from '../../model/world.js';
import { divScaledInto, u32View, unitPriceScale, wordsToNumber } from './scaledDivision.js';

const ONE_LO = 0xa7640000; // 10^18 = 0x0DE0B6B3_A7640000
const ONE_HI = 0x0de0b6b3;

/** The columns the kernel reads and writes (a VaultSeries, or its views rebuilt in a worker). */
export type UnitPriceColumns = Pick<
  VaultSeries,
  'length' | 'numeraire_decimals' | 'publishes_unit_price' | 'total_assets' | 'total_supply' | 'published_price' | 'unit_price' | 'unit_price_f'
>;

/**
 * Fill `unit_price` and `unit_price_f` for points i ≥ from:
 * Aera (publishes_unit_price): the published price when > 0, else the previous one, else 1;
 * others: assets/supply truncated at 18 digits when supply > 0, else the previous one, else 1.
 * Points before `from` must already be computed.
 */
export function computeUnitPrices(series: UnitPriceColumns, from = 0): void {
  const n = series.length;
  if (from >= n) return;
  const out = u32View(series.unit_price.words);
  const f = series.unit_price_f;
  if (series.publishes_unit_price) {
    const pub = u32View(series.published_price.words);
    for (let i = from; i < n; i++) {
      const b = 4 * i;
      const w3 = pub[b + 3]!;
      const positive = w3 < 0x80000000 && (w3 !== 0 || pub[b]! !== 0 || pub[b + 1]! !== 0 || pub[b + 2]! !== 0);
      if (positive) {
        out[b] = pub[b]!;
        out[b + 1] = pub[b + 1]!;
        out[b + 2] = pub[b + 2]!;
        out[b + 3] = w3;
        f[i] = wordsToNumber(out, i) / 1e18;
      } else carryForward(out, f, i);
    }
    return;
  }
  const a = u32View(series.total_assets.words);
  const s = u32View(series.total_supply.words);
  const decimals = series.numeraire_decimals;
  const scale = unitPriceScale(decimals);
  for (let i = from; i < n; i++) {
    const b = 4 * i;
    const s3 = s[b + 3]!;
    const supplyPositive = s3 < 0x80000000 && (s3 !== 0 || s[b]! !== 0 || s[b + 1]! !== 0 || s[b + 2]! !== 0);
    if (!supplyPositive) {
      carryForward(out, f, i);
    } else if (scale !== null && divScaledInto(a, s, i, scale, out)) {
      f[i] = (out[b + 1]! * 4294967296 + out[b]!) / 1e18;
    } else {
      const q = unitPriceE18(series.total_assets.get(i), series.total_supply.get(i), decimals);
      series.unit_price.set(i, q);
      f[i] = Number(q) / 1e18;
    }
  }
}

/** Supply 0 (or no published price): the previous point's price, or 1 before any. */
function carryForward(out: Uint32Array, f: Float64Array, i: number): void {
  const b = 4 * i;
  if (i === 0) {
    out[0] = ONE_LO;
    out[1] = ONE_HI;
    out[2] = 0;
    out[3] = 0;
    f[0] = 1;
    return;
  }
  out[b] = out[b - 4]!;
  out[b + 1] = out[b - 3]!;
  out[b + 2] = out[b - 2]!;
  out[b + 3] = out[b - 1]!;
  f[i] = f[i - 1]!;
}
