// Reads every hourly snapshot out of DuckDB into resident VaultSeries (DESIGN §1, §8). The
// read is the bottleneck of a full recompute, so no value is converted one at a time: result
// chunks' vectors are copied whole into the series' typed arrays, and no vault_id string is
// read per row. Rows are placed by rowid: a cheap layout query finds, per vault, the rowid
// ranges its rows occupy; runs of the table that hold one vault's rows contiguously (all of a
// freshly built world) stream in table order and land by position. Only rows in 2,048-row
// blocks that interleave several vaults (hours appended live) are read with an integer vault
// index joined in SQL and scattered one by one.
import type { SharedArena } from '../../model/arena.js';
import type { VaultSeries } from '../../model/world.js';
import { keepsApy } from '../series/apyWindows.js';
import { capacityOf, createVaultSeries, DEFAULT_SPARE_HOURS, publishesUnitPrice, type VaultSeriesMeta } from '../series/vaultSeries.js';
import type { Store } from '../../store/store.js';
import { withStreamingBuffer } from '../../store/chunkStream.js';
import { snapshotBlockLayout, snapshotLayout, streamSnapshotsByRowid, streamSnapshotsOfRanges } from '../../store/vaultSnapshots.js';
import { float64Items, hugeintBytes, int64Items } from './vectorMemory.js';

export { appendSnapshot } from '../series/vaultSeries.js';

export interface LoadSeriesOptions {
  /**
   * spare points allocated per vault beyond its history: between this and twice this,
   * staggered across vaults (default one to two weeks of hours)
   */
  capacityHours?: number;
  /**
   * Series whose buffers may be overwritten (a retired, unpublished generation): a vault's
   * columns are reused when they have the room, which saves faulting in fresh pages (~0.6 s
   * a GB here). Never pass series a published snapshot still serves.
   */
  reuse?: ReadonlyMap<string, VaultSeries>;
  /** allocate APY columns (default true); a serving world computes APY on read (apyAt) */
  apy?: boolean;
  /** carve the series from this memory while it has the room (model/arena.ts) */
  arena?: SharedArena;
  /** called once with what the load did (logging, tests) */
  onStats?: (stats: LoadSeriesStats) => void;
  /** a stop: the read ends between chunks (throwing the signal's reason) */
  signal?: AbortSignal;
  /**
   * The table's layout as an earlier load of other vaults read it (filled by the first): a
   * recompute in passes loads a few vaults at a time and reads the layout once.
   */
  layout?: SeriesLayoutCache;
}

/** The table's layout queries' answers, kept between loads of one unchanged table. */
export interface SeriesLayoutCache {
  perVault?: Awaited<ReturnType<typeof snapshotLayout>>;
  blocks?: Awaited<ReturnType<typeof snapshotBlockLayout>>;
}

export interface LoadSeriesStats {
  /** rows copied by position, whole runs at a time */
  positionalRows: number;
  /** rows read through the vault-index join (blocks where vaults interleave) */
  mixedRows: number;
  /** rows dropped: corrupt, or a duplicate hour */
  droppedRows: number;
  ms: number;
}

/** rowids [lo, hi] of one vault, contiguous in the table; `dest` = where lo lands in its series */
interface Segment {
  vault: number;
  lo: number;
  hi: number;
  dest: number;
}

interface Layout {
  /** positional segments, ascending by lo */
  segments: Segment[];
  /** rows per vault outside the segments (read through the join) */
  mixedRows: number[];
  /** rowid ranges [lo, hi] of the interleaved blocks */
  mixedRanges: [number, number][];
  /** rows in the table */
  tableRows: number;
}

/** Per-vault load state. */
interface Target {
  vault: number;
  series: VaultSeries;
  /** rows placed positionally (segments), then mixed rows follow */
  positional: number;
  /** next free slot for a mixed row */
  cursor: number;
  /** rowid of each mixed row, in slot order (only for ordering and duplicates) */
  mixedRowids: number[];
  tsBytes: Uint8Array;
  blockBytes: Uint8Array;
  assets: Uint8Array;
  supply: Uint8Array;
  published: Uint8Array | null;
}

const BLOCK_BITS = 11; // 2,048-row blocks for the refined layout
const STREAM_BUFFER = '64MB'; // lets DuckDB decode ahead on its threads while we copy

/**
 * Every snapshot of `vaults` as resident series: ascending ts, duplicates of a ts dropped
 * (the lowest rowid wins), corrupt rows (negative supply or assets) skipped and counted in
 * `skipped`. Derived columns are left for computeUnitPrices / computeApy. Do not run the
 * compute pool while this reads: DuckDB uses both cores (DESIGN §8).
 */
export async function loadVaultSeries(store: Store, vaults: readonly VaultSeriesMeta[], opts: LoadSeriesOptions = {}): Promise<Map<string, VaultSeries>> {
  const t0 = performance.now();
  const spare = opts.capacityHours ?? DEFAULT_SPARE_HOURS;
  const index = new Map<string, number>();
  vaults.forEach((v, k) => index.set(v.vault_id, k));
  const layout = await readLayout(store, index, opts.layout ?? {});

  // positional slots first (each vault's segments in rowid order), then its mixed rows
  const positional = new Array<number>(vaults.length).fill(0);
  for (const s of layout.segments) {
    s.dest = positional[s.vault]!;
    positional[s.vault]! += s.hi - s.lo + 1;
  }
  const targets: Target[] = vaults.map((v, k) => {
    // staggered spare room: every vault gains a row each hour, and equal room would make all
    // of them reallocate (copy their whole history) in the same hour
    const room = spare + (spare > 0 ? k % spare : 0);
    const series = seriesFor(v, positional[k]! + layout.mixedRows[k]!, room, opts.reuse, opts.apy ?? true, opts.arena);
    return {
      vault: k,
      series,
      positional: positional[k]!,
      cursor: positional[k]!,
      mixedRowids: [],
      tsBytes: bytesOf(series.ts),
      blockBytes: bytesOf(series.block),
      assets: bytesOf(series.total_assets.words),
      supply: bytesOf(series.total_supply.words),
      // only Aera vaults read it: elsewhere its pages are never touched
      published: series.publishes_unit_price ? bytesOf(series.published_price.words) : null,
    };
  });

  await withStreamingBuffer(store, STREAM_BUFFER, async () => {
    if (layout.segments.length > 0) await readPositional(store, layout.segments, layout.tableRows, targets, opts.signal);
    if (layout.mixedRanges.length > 0) await readMixed(store, vaults, layout.mixedRanges, targets, opts.signal);
  });

  const out = new Map<string, VaultSeries>();
  let dropped = 0;
  for (const t of targets) {
    normalize(t, layout.segments);
    dropped += t.cursor - t.series.length;
    out.set(t.series.vault_id, t.series);
  }
  opts.onStats?.({
    positionalRows: targets.reduce((n, t) => n + t.positional, 0),
    mixedRows: targets.reduce((n, t) => n + t.cursor - t.positional, 0),
    droppedRows: dropped,
    ms: performance.now() - t0,
  });
  return out;
}

function seriesFor(
  v: VaultSeriesMeta,
  rows: number,
  spare: number,
  reuse: ReadonlyMap<string, VaultSeries> | undefined,
  apy: boolean,
  arena: SharedArena | undefined,
): VaultSeries {
  const old = reuse?.get(v.vault_id);
  if (!old || capacityOf(old) < rows || keepsApy(old) !== apy) return createVaultSeries(v, rows + spare, { apy, arena });
  old.numeraire_decimals = v.numeraire_decimals;
  old.publishes_unit_price = publishesUnitPrice(v.vault_type);
  old.length = 0;
  old.skipped = 0;
  return old;
}

function bytesOf(a: Float64Array | BigUint64Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

// ---- layout ----

async function readLayout(store: Store, index: Map<string, number>, cache: SeriesLayoutCache): Promise<Layout> {
  const perVault = (cache.perVault ??= await snapshotLayout(store));
  const mixedRows = new Array<number>(index.size).fill(0);
  const tableRows = perVault.reduce((sum, r) => sum + r.n, 0);
  const wanted = perVault.filter((r) => index.has(r.vault_id));
  if (wanted.every((r) => r.n === r.hi - r.lo + 1)) {
    const segments = wanted.map((r) => ({ vault: index.get(r.vault_id)!, lo: r.lo, hi: r.hi, dest: 0 }));
    return { segments: segments.sort((a, b) => a.lo - b.lo), mixedRows, mixedRanges: [], tableRows };
  }
  // Some vault's rows interleave with others': split the table into 2,048-row blocks; a block
  // where every vault's rows are contiguous is read by position, the others through the join.
  const rows = (cache.blocks ??= await snapshotBlockLayout(store, BLOCK_BITS));
  const segments: Segment[] = [];
  const blocks: [number, number][] = [];
  for (const r of rows) {
    if (r.kind === 'mixed_block') blocks.push([r.lo, r.hi]);
    else {
      const vault = index.get(r.vault_id!);
      if (vault === undefined) continue;
      if (r.kind === 'segment') segments.push({ vault, lo: r.lo, hi: r.hi, dest: 0 });
      else mixedRows[vault] = r.n;
    }
  }
  segments.sort((a, b) => a.lo - b.lo);
  // merge a vault's segments that continue each other across block boundaries
  const merged: Segment[] = [];
  for (const s of segments) {
    const last = merged[merged.length - 1];
    if (last && last.vault === s.vault && last.hi + 1 === s.lo) last.hi = s.hi;
    else merged.push(s);
  }
  return { segments: merged, mixedRows, mixedRanges: mergeRanges(blocks), tableRows };
}

function mergeRanges(ranges: [number, number][]): [number, number][] {
  ranges.sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && last[1] + 1 >= r[0]) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

// ---- positional read ----

async function readPositional(store: Store, segments: Segment[], tableRows: number, targets: Target[], signal?: AbortSignal): Promise<void> {
  const lo = segments[0]!.lo;
  const hi = segments[segments.length - 1]!.hi;
  // A rowid filter keeps DuckDB from decoding ahead on both threads (measured: ~1.5× slower),
  // so scan the whole table unless the wanted span is a small part of it; copyRun skips the rest.
  const span = hi - lo + 1 < tableRows / 2 ? ([lo, hi] as const) : null;
  await streamSnapshotsByRowid(
    store,
    span,
    (chunk) => {
      const n = chunk.rowCount;
      const rowids = int64Items(chunk.getColumnVector(0));
      const tsItems = float64Items(chunk.getColumnVector(1));
      const ts = new Uint8Array(tsItems.buffer, tsItems.byteOffset, n * 8);
      const assets = hugeintBytes(chunk.getColumnVector(2));
      const supply = hugeintBytes(chunk.getColumnVector(3));
      const price = hugeintBytes(chunk.getColumnVector(4));
      const blockItems = float64Items(chunk.getColumnVector(5));
      const block = new Uint8Array(blockItems.buffer, blockItems.byteOffset, n * 8);
      const r0 = Number(rowids[0]!);
      if (Number(rowids[n - 1]!) - r0 !== n - 1) {
        // not one run of rowids (never seen for a plain scan): place row by row
        for (let k = 0; k < n; k++) copyRun(segments, targets, Number(rowids[k]!), k, 1, ts, assets, supply, price, block);
        return;
      }
      copyRun(segments, targets, r0, 0, n, ts, assets, supply, price, block);
    },
    signal,
  );
}

/** Copy chunk rows [k, k+count) with rowids r..r+count−1 into their segments' slots. */
function copyRun(
  segments: Segment[],
  targets: Target[],
  r: number,
  k: number,
  count: number,
  ts: Uint8Array,
  assets: Uint8Array,
  supply: Uint8Array,
  price: Uint8Array,
  block: Uint8Array,
): void {
  let p = firstSegmentEndingAtOrAfter(segments, r);
  const end = k + count;
  while (k < end && p < segments.length) {
    const s = segments[p]!;
    if (s.lo > r) {
      // rows outside every segment (other vaults, or interleaved blocks): skip
      const skip = Math.min(end - k, s.lo - r);
      k += skip;
      r += skip;
      continue;
    }
    const m = Math.min(end - k, s.hi - r + 1);
    const t = targets[s.vault]!;
    const d = s.dest + (r - s.lo);
    t.tsBytes.set(ts.subarray(8 * k, 8 * (k + m)), 8 * d);
    t.blockBytes.set(block.subarray(8 * k, 8 * (k + m)), 8 * d);
    t.assets.set(assets.subarray(16 * k, 16 * (k + m)), 16 * d);
    t.supply.set(supply.subarray(16 * k, 16 * (k + m)), 16 * d);
    t.published?.set(price.subarray(16 * k, 16 * (k + m)), 16 * d);
    k += m;
    r += m;
    p++;
  }
}

function firstSegmentEndingAtOrAfter(segments: Segment[], r: number): number {
  let lo = 0;
  let hi = segments.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (segments[mid]!.hi < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// ---- interleaved blocks: through an integer vault index ----

async function readMixed(store: Store, vaults: readonly VaultSeriesMeta[], ranges: [number, number][], targets: Target[], signal?: AbortSignal): Promise<void> {
  await streamSnapshotsOfRanges(
    store,
    vaults,
    ranges,
    (chunk) => {
      const n = chunk.rowCount;
      const ks = float64Items(chunk.getColumnVector(0));
      const rowids = int64Items(chunk.getColumnVector(1));
      const tsItems = float64Items(chunk.getColumnVector(2));
      const assets = hugeintBytes(chunk.getColumnVector(3));
      const supply = hugeintBytes(chunk.getColumnVector(4));
      const price = hugeintBytes(chunk.getColumnVector(5));
      const blocks = float64Items(chunk.getColumnVector(6));
      for (let j = 0; j < n; j++) {
        const t = targets[ks[j]!]!;
        const d = t.cursor++;
        t.series.ts[d] = tsItems[j]!;
        t.series.block[d] = blocks[j]!;
        t.assets.set(assets.subarray(16 * j, 16 * j + 16), 16 * d);
        t.supply.set(supply.subarray(16 * j, 16 * j + 16), 16 * d);
        t.published?.set(price.subarray(16 * j, 16 * j + 16), 16 * d);
        t.mixedRowids.push(Number(rowids[j]!));
      }
    },
    signal,
  );
}

// ---- order, duplicates, corrupt rows ----

/**
 * Make the loaded rows of one vault a valid series: ascending ts, one row per ts (lowest
 * rowid), no negative supply or assets. The common case (already so) is one read-only pass.
 */
function normalize(t: Target, segments: Segment[]): void {
  const s = t.series;
  const n = t.cursor;
  const ts = s.ts;
  const assetsTop = topWords(s.total_assets.words);
  const supplyTop = topWords(s.total_supply.words);
  let corrupt = 0;
  let ordered = true;
  let prev = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    if (assetsTop[4 * i + 3]! < 0 || supplyTop[4 * i + 3]! < 0) {
      corrupt++;
      continue;
    }
    if (!(ts[i]! > prev)) ordered = false;
    prev = ts[i]!;
  }
  s.skipped = corrupt;
  if (ordered && corrupt === 0) {
    s.length = n;
    return;
  }
  // Rare: sort the valid rows by (ts, rowid), keep the first of each ts, rewrite in place.
  const rowid = rowidsOf(t, segments);
  const keep: number[] = [];
  for (let i = 0; i < n; i++) if (assetsTop[4 * i + 3]! >= 0 && supplyTop[4 * i + 3]! >= 0) keep.push(i);
  keep.sort((a, b) => ts[a]! - ts[b]! || rowid[a]! - rowid[b]!);
  const order: number[] = [];
  for (const i of keep) if (order.length === 0 || ts[order[order.length - 1]!]! !== ts[i]!) order.push(i);
  const srcTs = ts.slice(0, n);
  const srcBlock = s.block.slice(0, n);
  const cols = [s.total_assets.words, s.total_supply.words, s.published_price.words].map((w) => ({ w, src: w.slice(0, 2 * n) }));
  order.forEach((i, k) => {
    ts[k] = srcTs[i]!;
    s.block[k] = srcBlock[i]!;
    for (const c of cols) {
      c.w[2 * k] = c.src[2 * i]!;
      c.w[2 * k + 1] = c.src[2 * i + 1]!;
    }
  });
  s.length = order.length;
}

/** Int32 view of a 128-bit column: element 4i+3 is value i's signed top word. */
function topWords(words: BigUint64Array): Int32Array {
  return new Int32Array(words.buffer, words.byteOffset, words.length * 2);
}

/** The rowid of every loaded slot of one vault (positional slots from their segments). */
function rowidsOf(t: Target, segments: Segment[]): Float64Array {
  const out = new Float64Array(t.cursor);
  for (const s of segments) {
    if (s.vault !== t.vault) continue;
    for (let r = s.lo; r <= s.hi; r++) out[s.dest + (r - s.lo)] = r;
  }
  t.mixedRowids.forEach((r, k) => (out[t.positional + k] = r));
  return out;
}
