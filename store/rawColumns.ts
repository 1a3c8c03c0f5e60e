// The raw tables as column batches, for bulk builds that cross a thread (the demo world's
// simulation worker → the main thread's DuckDB loader). A batch holds whole columns as
// transferable buffers in the exact memory layout of DuckDB's vectors, so the loader copies
// bytes instead of converting values: TIMESTAMP/BIGINT as int64 written as two int32 halves
// (no BigInt per value), HUGEINT as (lo u64, hi i64) words (never a float), validity as
// DuckDB's 64-bit mask words. Repeated strings travel as indexes into growing dictionaries
// that DuckDB maps back when it copies the staged rows into the raw tables
// (store/stagedRawLoader.ts): `dict` for the few (vault ids, tokens, kinds: a list lookup),
// `addr` for wallet addresses (up to millions: a join). Only strings that
// are unique per row (hashes) travel as strings; decimal prices travel as exact integers.
import type { EventRow, PriceRow, SnapshotRow } from '../model/rows.js';
import { VaultdError } from '../common/errors.js';
import type { RawSink } from './rawSink.js';

/**
 * Staged column kinds: `ts` Unix seconds → TIMESTAMP, `i64` safe integer → BIGINT, `i128`
 * bigint → HUGEINT, `dict` / `addr` string → index in the small / the address dictionary, `text` string.
 */
export type StageKind = 'ts' | 'i64' | 'i32' | 'i128' | 'dict' | 'addr' | 'text';

export interface StageTable {
  /** the raw table the rows end in (its columns, in order) */
  table: string;
  columns: readonly (readonly [name: string, kind: StageKind, nullable: boolean])[];
  /** SQL casts from the staged column to the table's column, where the types differ */
  casts?: Readonly<Record<string, string>>;
}

/** The column-batched raw tables. Allocations and TVL readings (a few thousand rows) keep the row path. */
export const STAGE_TABLES = {
  snapshots: {
    table: 'vault_snapshots',
    columns: [
      ['vault_id', 'dict', false],
      ['ts', 'ts', false],
      ['block_number', 'i64', false],
      ['total_assets', 'i128', false],
      ['total_supply', 'i128', false],
      ['unit_price', 'i128', true],
    ],
  },
  events: {
    table: 'vault_events',
    columns: [
      ['chain_id', 'i64', false],
      ['block_number', 'i64', false],
      ['log_index', 'i32', false],
      ['sub_index', 'i32', false],
      ['block_hash', 'text', false],
      ['tx_hash', 'text', false],
      ['ts', 'ts', false],
      ['vault_id', 'dict', false],
      ['kind', 'dict', false],
      ['wallet', 'addr', false],
      ['counterparty', 'addr', true],
      ['token', 'dict', false],
      ['assets', 'i128', false],
      ['shares', 'i128', false],
      ['request_hash', 'text', true],
    ],
  },
  prices: {
    table: 'prices',
    columns: [
      ['chain_id', 'i64', false],
      ['address', 'dict', false],
      ['ts', 'ts', false],
      ['usd', 'i128', false],
      ['source', 'dict', false],
    ],
    // usd is staged as exact units of 1e-18: the product is DECIMAL(38, 18) with the same
    // integer inside (CAST from the decimal string costs ~3.5 µs a row here, this ~0)
    casts: { usd: 'usd::DECIMAL(38, 0) * 0.000000000000000001' },
  },
} as const satisfies Record<string, StageTable>;

export type StageName = keyof typeof STAGE_TABLES;
export const STAGE_NAMES = Object.keys(STAGE_TABLES) as StageName[];

/** Rows per batch: four DuckDB vectors (2,048 rows each), so a batch is four appender chunks. */
export const BATCH_ROWS = 8192;

/** Bytes per row of a staged column's buffer (text columns are string arrays). */
export const KIND_BYTES: Record<Exclude<StageKind, 'text'>, number> = { ts: 8, i64: 8, i32: 4, i128: 16, dict: 4, addr: 4 };

/** One batch of one table: column buffers in the table's column order. */
export interface RawBatch {
  table: StageName;
  rows: number;
  /** per column: its data buffer, or for `text` columns the strings (null where NULL) */
  columns: (ArrayBuffer | (string | null)[])[];
  /** per column: DuckDB validity words (bit set = valid), or null when the column has no NULL in this batch */
  validity: (ArrayBuffer | null)[];
  /** entries of the small dictionary first used by this batch: their indexes follow the previous ones */
  dictionary: string[];
  /** the same for the address dictionary */
  addresses: string[];
}

const TWO32 = 2 ** 32;
const MAX_U64 = (1n << 64n) - 1n;

/** Writes one table's rows into column buffers. */
class BatchBuilder {
  rows = 0;
  private readonly kinds: StageKind[];
  private data: (ArrayBuffer | (string | null)[])[] = [];
  private valid: (Uint32Array | null)[] = [];
  private i32: (Int32Array | null)[] = [];
  private u32: (Uint32Array | null)[] = [];
  private lo: (BigUint64Array | null)[] = [];
  private hi: (BigInt64Array | null)[] = [];
  private text: ((string | null)[] | null)[] = [];

  constructor(readonly name: StageName) {
    this.kinds = STAGE_TABLES[name].columns.map(([, k]) => k);
    this.reset();
  }

  reset(): void {
    this.rows = 0;
    this.data = [];
    this.valid = this.kinds.map(() => null);
    this.i32 = [];
    this.u32 = [];
    this.lo = [];
    this.hi = [];
    this.text = [];
    for (const kind of this.kinds) {
      if (kind === 'text') {
        const t: (string | null)[] = [];
        this.data.push(t);
        this.text.push(t);
        this.i32.push(null);
        this.u32.push(null);
        this.lo.push(null);
        this.hi.push(null);
        continue;
      }
      const buf = new ArrayBuffer(BATCH_ROWS * KIND_BYTES[kind]);
      this.data.push(buf);
      this.text.push(null);
      this.i32.push(new Int32Array(buf));
      this.u32.push(new Uint32Array(buf));
      this.lo.push(kind === 'i128' ? new BigUint64Array(buf) : null);
      this.hi.push(kind === 'i128' ? new BigInt64Array(buf) : null);
    }
  }

  setNull(col: number): void {
    let v = this.valid[col];
    if (!v) v = this.valid[col] = new Uint32Array(BATCH_ROWS / 32).fill(0xffffffff);
    v[this.rows >>> 5]! &= ~(1 << (this.rows & 31));
  }

  /** Unix seconds → int64 microseconds, as two int32 halves (exact below 2^53 µs, year 2255). */
  ts(col: number, seconds: number): void {
    this.int64(col, seconds * 1_000_000);
  }

  int64(col: number, x: number): void {
    const words = this.u32[col]!;
    const hi = Math.floor(x / TWO32);
    words[2 * this.rows] = x - hi * TWO32;
    words[2 * this.rows + 1] = hi;
  }

  int32(col: number, x: number): void {
    this.i32[col]![this.rows] = x;
  }

  /** A 128-bit integer as DuckDB's hugeint_t {u64 lower; i64 upper}: the typed arrays wrap modulo 2^64. */
  int128(col: number, x: bigint | null): void {
    if (x === null) return this.setNull(col);
    this.lo[col]![2 * this.rows] = x;
    this.hi[col]![2 * this.rows + 1] = x >= 0n && x <= MAX_U64 ? 0n : x >> 64n;
  }

  str(col: number, s: string | null): void {
    if (s === null) this.setNull(col);
    this.text[col]![this.rows] = s;
  }

  take(dictionary: string[], addresses: string[]): { batch: RawBatch; transfer: ArrayBuffer[] } {
    const validity = this.valid.map((v) => (v ? (v.buffer as ArrayBuffer) : null));
    const transfer: ArrayBuffer[] = [];
    for (const c of this.data) if (c instanceof ArrayBuffer) transfer.push(c);
    for (const v of validity) if (v) transfer.push(v);
    const batch: RawBatch = { table: this.name, rows: this.rows, columns: this.data, validity, dictionary, addresses };
    this.reset();
    return { batch, transfer };
  }
}

/**
 * A RawSink that encodes snapshots, events and prices into column batches and hands each full
 * batch to `emit` (with the buffers to transfer); allocations, TVL readings and request terms go to `rows`.
 * Batches of one table are emitted in row order, and a batch's dictionary entries are emitted
 * with it or before, so a loader that applies them in emit order sees every index it needs.
 */
export function createBatchSink(
  emit: (batch: RawBatch, transfer: ArrayBuffer[]) => void,
  rows: Pick<RawSink, 'allocation' | 'tvlSourceValue' | 'requestTerms'>,
): { sink: RawSink; flush(): void } {
  const small = createDictionary();
  const addrs = createDictionary();
  const id = small.id;
  const addr = addrs.id;
  // a vault's rows come together: remember the last vault's index
  let lastVault = '';
  let lastVaultId = -1;
  const builders = { snapshots: new BatchBuilder('snapshots'), events: new BatchBuilder('events'), prices: new BatchBuilder('prices') };
  const send = (b: BatchBuilder) => {
    const { batch, transfer } = b.take(small.fresh(), addrs.fresh());
    emit(batch, transfer);
  };
  const done = (b: BatchBuilder) => {
    if (++b.rows === BATCH_ROWS) send(b);
  };

  const sink: RawSink = {
    snapshot(r: SnapshotRow) {
      const b = builders.snapshots;
      if (r.vault_id !== lastVault) {
        lastVault = r.vault_id;
        lastVaultId = id(r.vault_id);
      }
      b.int32(0, lastVaultId);
      b.ts(1, r.ts);
      b.int64(2, r.block_number);
      b.int128(3, r.total_assets);
      b.int128(4, r.total_supply);
      b.int128(5, r.unit_price);
      done(b);
    },
    event(r: EventRow) {
      const b = builders.events;
      b.int64(0, r.chain_id);
      b.int64(1, r.block_number);
      b.int32(2, r.log_index);
      b.int32(3, r.sub_index);
      b.str(4, r.block_hash);
      b.str(5, r.tx_hash);
      b.ts(6, r.ts);
      b.int32(7, id(r.vault_id));
      b.int32(8, id(r.kind));
      b.int32(9, addr(r.wallet));
      if (r.counterparty === null) b.setNull(10);
      else b.int32(10, addr(r.counterparty));
      b.int32(11, id(r.token));
      b.int128(12, r.assets);
      b.int128(13, r.shares);
      b.str(14, r.request_hash);
      done(b);
    },
    price(r: PriceRow) {
      const b = builders.prices;
      b.int64(0, r.chain_id);
      b.int32(1, id(r.address));
      b.ts(2, r.ts);
      b.int128(3, decimalUnits(r.usd, 18));
      b.int32(4, id(r.source));
      done(b);
    },
    allocation: (r) => rows.allocation(r),
    tvlSourceValue: (r) => rows.tvlSourceValue(r),
    requestTerms: (r) => rows.requestTerms(r),
  };
  return {
    sink,
    flush() {
      for (const b of Object.values(builders)) if (b.rows > 0) send(b);
    },
  };
}

function createDictionary() {
  const index = new Map<string, number>();
  let fresh: string[] = [];
  return {
    id(s: string): number {
      let i = index.get(s);
      if (i === undefined) {
        i = index.size;
        index.set(s, i);
        fresh.push(s);
      }
      return i;
    },
    /** entries added since the last call */
    fresh(): string[] {
      const out = fresh;
      fresh = [];
      return out;
    },
  };
}

/** An exact decimal string ("-12.5") as an integer count of 10^-scale units; throws past `scale` digits. */
export function decimalUnits(s: string, scale: number): bigint {
  const m = /^(-?\d+)(?:\.(\d*))?$/.exec(s);
  const frac = m?.[2] ?? '';
  if (!m || frac.length > scale) throw new VaultdError('INTERNAL', `not a decimal with at most ${scale} fractional digits: "${s}"`);
  return BigInt(m[1]! + frac.padEnd(scale, '0'));
}
