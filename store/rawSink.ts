// Where a source (demo simulator, chain ingest) hands its raw rows. The store's
// implementation streams them into DuckDB data chunks; tests can collect them in arrays.
import type { AllocationRow, EventRow, PriceRow, RequestTermsRow, SnapshotRow, TvlSourceValueRow } from '../model/rows.js';

export interface RawSink {
  snapshot(row: SnapshotRow): void;
  event(row: EventRow): void;
  price(row: PriceRow): void;
  allocation(row: AllocationRow): void;
  tvlSourceValue(row: TvlSourceValueRow): void;
  /** an async request's deadline and solver tip (DESIGN §11.8) */
  requestTerms(row: RequestTermsRow): void;
}

/** A sink that keeps everything in arrays (tests, small worlds). */
export function createArraySink() {
  const rows = {
    snapshots: [] as SnapshotRow[],
    events: [] as EventRow[],
    prices: [] as PriceRow[],
    allocations: [] as AllocationRow[],
    tvlSourceValues: [] as TvlSourceValueRow[],
    requestTerms: [] as RequestTermsRow[],
  };
  const sink: RawSink = {
    snapshot: (r) => void rows.snapshots.push(r),
    event: (r) => void rows.events.push(r),
    price: (r) => void rows.prices.push(r),
    allocation: (r) => void rows.allocations.push(r),
    tvlSourceValue: (r) => void rows.tvlSourceValues.push(r),
    requestTerms: (r) => void rows.requestTerms.push(r),
  };
  return { sink, rows };
}
