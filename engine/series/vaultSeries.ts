// Allocation and hour-by-hour growth of the resident VaultSeries (model/world.ts):
// every column lives on a SharedArrayBuffer with spare capacity, so the incremental path
// appends an hour without reallocating and the compute pool reads it without copies.
import { carve, type SharedArena } from '../../model/arena.js';
import { I128Array } from '../../model/int128.js';
import { familyOf } from '../../families/index.js';
import type { VaultSeries } from '../../model/world.js';
import type { SnapshotRow } from '../../model/rows.js';
import { keepsApy } from './apyWindows.js';

/** Spare points allocated beyond the loaded history: one week of hours. */
export const DEFAULT_SPARE_HOURS = 168;

export interface VaultSeriesMeta {
  vault_id: string;
  numeraire_decimals: number;
  vault_type: string;
}

/** The fields of a raw snapshot row (store/rows.ts) the series keeps. */
export type SeriesSnapshot = Pick<SnapshotRow, 'ts' | 'total_assets' | 'total_supply' | 'unit_price'> & Partial<Pick<SnapshotRow, 'block_number'>>;

/** Whether the family publishes its unit price, used as-is (DESIGN §4.1); '' (a bare copy) does not. */
export function publishesUnitPrice(vaultType: string): boolean {
  return vaultType !== '' && familyOf(vaultType).publishesUnitPrice;
}

/**
 * An empty series with room for `capacity` points. All columns share one SharedArrayBuffer (one
 * allocation instead of nine; pages are faulted in only where values are written), or one
 * stretch of `arena` while it has the room (model/arena.ts).
 * `apy: false` (a serving world) allocates no APY columns: apyAt computes a point's on read.
 */
export function createVaultSeries(meta: VaultSeriesMeta, capacity: number, opts: { apy?: boolean; arena?: SharedArena } = {}): VaultSeries {
  const cap = Math.max(1, Math.ceil(capacity));
  const apy = opts.apy ?? true;
  const carved = carve(opts.arena, cap * (apy ? BYTES_PER_POINT : BYTES_PER_POINT - APY_BYTES_PER_POINT));
  const block = carved.buffer;
  let offset = carved.offset;
  const f64 = (): Float64Array => {
    const a = new Float64Array(block, offset, cap);
    offset += cap * 8;
    return a;
  };
  const i128 = (): I128Array => {
    const a = new I128Array(new BigUint64Array(block, offset, cap * 2));
    offset += cap * 16;
    return a;
  };
  return {
    vault_id: meta.vault_id,
    numeraire_decimals: meta.numeraire_decimals,
    publishes_unit_price: publishesUnitPrice(meta.vault_type),
    length: 0,
    ts: f64(),
    block: f64(),
    total_assets: i128(),
    total_supply: i128(),
    published_price: i128(),
    unit_price: i128(),
    unit_price_f: f64(),
    apy_7d: apy ? f64() : NO_APY,
    apy_30d: apy ? f64() : NO_APY,
    apy_90d: apy ? f64() : NO_APY,
    skipped: 0,
  };
}

/**
 * Bytes of a point with its APY columns (a serving world's has APY_BYTES_PER_POINT fewer): ts,
 * block, unit_price_f and three APY doubles; assets, supply, published and unit price 128-bit.
 */
export const BYTES_PER_POINT = 6 * 8 + 4 * 16;
const APY_BYTES_PER_POINT = 3 * 8;
const NO_APY = new Float64Array(0);

/** Number of points the series can hold without reallocating. */
export function capacityOf(series: VaultSeries): number {
  return series.ts.length;
}

/** Reallocate every column to hold at least `needed` points (doubling), keeping the values. */
export function ensureCapacity(series: VaultSeries, needed: number): void {
  const cap = capacityOf(series);
  if (needed <= cap) return;
  const next = createVaultSeries({ vault_id: series.vault_id, numeraire_decimals: series.numeraire_decimals, vault_type: '' }, Math.max(needed, cap * 2), {
    apy: keepsApy(series),
  });
  const n = series.length;
  for (const k of ['ts', 'block', 'unit_price_f'] as const) next[k].set(series[k].subarray(0, n));
  if (keepsApy(series)) for (const k of ['apy_7d', 'apy_30d', 'apy_90d'] as const) next[k].set(series[k].subarray(0, n));
  for (const k of ['total_assets', 'total_supply', 'published_price', 'unit_price'] as const) {
    next[k].words.set(series[k].words.subarray(0, 2 * n));
  }
  series.ts = next.ts;
  series.block = next.block;
  series.total_assets = next.total_assets;
  series.total_supply = next.total_supply;
  series.published_price = next.published_price;
  series.unit_price = next.unit_price;
  series.unit_price_f = next.unit_price_f;
  series.apy_7d = next.apy_7d;
  series.apy_30d = next.apy_30d;
  series.apy_90d = next.apy_90d;
}

/**
 * Add one snapshot in ts order. Returns the first index whose derived values are now stale
 * (pass it as `from` to computeUnitPrices and computeApy), or −1 when the row was dropped:
 * a duplicate ts (the stored row wins, as in loading) or a corrupt row (negative supply or
 * assets, counted in `skipped`). A late row older than the last point is inserted in place.
 */
export function appendSnapshot(series: VaultSeries, row: SeriesSnapshot): number {
  if (row.total_assets < 0n || row.total_supply < 0n) {
    series.skipped++;
    return -1;
  }
  const n = series.length;
  let at = n;
  // Hours arrive in order; a late one walks back to its slot.
  while (at > 0 && series.ts[at - 1]! >= row.ts) at--;
  if (at < n && series.ts[at] === row.ts) return -1;
  ensureCapacity(series, n + 1);
  if (at < n) {
    series.ts.copyWithin(at + 1, at, n);
    series.block.copyWithin(at + 1, at, n);
    for (const col of [series.total_assets, series.total_supply, series.published_price]) {
      col.words.copyWithin(2 * (at + 1), 2 * at, 2 * n);
    }
  }
  series.ts[at] = row.ts;
  series.block[at] = row.block_number ?? Number.NaN;
  series.total_assets.set(at, row.total_assets);
  series.total_supply.set(at, row.total_supply);
  series.published_price.set(at, series.publishes_unit_price && row.unit_price !== null ? row.unit_price : 0n);
  series.length = n + 1;
  return at;
}
