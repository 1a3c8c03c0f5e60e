// Small synthetic snapshot worlds for the series tests: random vault histories (fast-check),
// written into a DuckDB store in a chosen physical order, and naive oracles of the series
// rules (DESIGN §4.1–§4.3) written with plain loops and bigint, independently of the kernels.
import fc from 'fast-check';
import { createRawWriter } from '../../store/rawWriter.js';
import type { SnapshotRow } from '../../model/rows.js';
import type { Store } from '../../store/store.js';

export const HOUR = 3600;
export const DAY = 86400;
export const E18 = 10n ** 18n;

export interface WorldVault {
  vault_id: string;
  numeraire_decimals: number;
  vault_type: 'aera_v3' | 'morpho_v1' | 'morpho_v2' | 'symbiotic';
  /** raw rows as ingested: may be unsorted, hold duplicate ts and corrupt rows */
  rows: SnapshotRow[];
}

/** How rows are laid out in the table: one vault after the other, or hour by hour. */
export type Layout = 'clustered' | 'interleaved' | 'clustered-then-interleaved';

// 2024-01-01T00:00:00Z; a Monday
export const T0 = 1_704_067_200;

const amount = fc.oneof(
  { weight: 6, arbitrary: fc.bigInt({ min: 0n, max: 10n ** 27n }) },
  { weight: 1, arbitrary: fc.constantFrom(0n, 1n, 10n ** 18n, (1n << 64n) - 1n, 1n << 64n, (1n << 100n) + 7n) },
);

/** One random vault history: gaps of 1–72 h, supply 0 spells, Aera prices, bad rows. */
export function vaultArb(id: number): fc.Arbitrary<WorldVault> {
  return fc
    .record({
      decimals: fc.constantFrom(0, 6, 8, 18),
      type: fc.constantFrom('aera_v3', 'morpho_v1', 'morpho_v2', 'symbiotic') as fc.Arbitrary<WorldVault['vault_type']>,
      startHour: fc.integer({ min: 0, max: 24 * 40 }),
      steps: fc.array(
        fc.record({
          gap: fc.oneof({ weight: 8, arbitrary: fc.constant(1) }, { weight: 2, arbitrary: fc.integer({ min: 2, max: 72 }) }),
          price: fc.double({ min: 0.2, max: 5, noNaN: true }),
          supply: fc.oneof({ weight: 8, arbitrary: amount }, { weight: 1, arbitrary: fc.constant(0n) }),
          published: fc.oneof(
            { weight: 6, arbitrary: fc.bigInt({ min: 1n, max: 5n * E18 }) },
            { weight: 1, arbitrary: fc.constantFrom<bigint | null>(null, 0n, -5n) },
          ),
          bad: fc.oneof({ weight: 30, arbitrary: fc.constant('ok') }, { weight: 1, arbitrary: fc.constantFrom('neg_supply', 'neg_assets', 'dup') }),
        }),
        { minLength: 0, maxLength: 400 },
      ),
      // a late backfill: the newest third of the rows was ingested first
      backfilled: fc.boolean(),
    })
    .map(({ decimals, type, startHour, steps, backfilled }) => {
      const rows: SnapshotRow[] = [];
      let ts = T0 + startHour * HOUR;
      const vault_id = `1:0x${id.toString(16).padStart(40, '0')}`;
      for (const s of steps) {
        ts += s.gap * HOUR;
        // assets ≈ supply × price, scaled to the numeraire's decimals
        const assets = (s.supply * BigInt(Math.round(s.price * 1e6)) * 10n ** BigInt(decimals)) / 10n ** 24n + (s.supply % 7n);
        const row: SnapshotRow = {
          vault_id,
          ts,
          block_number: 1000 + rows.length,
          total_assets: assets,
          total_supply: s.supply,
          unit_price: type === 'aera_v3' ? s.published : null,
        };
        if (s.bad === 'neg_supply') row.total_supply = -1n - s.supply;
        if (s.bad === 'neg_assets') row.total_assets = -1n - assets;
        rows.push(row);
        if (s.bad === 'dup') rows.push({ ...row, total_assets: row.total_assets + 1n, block_number: row.block_number + 1 });
      }
      if (backfilled) {
        const cut = Math.floor((rows.length * 2) / 3);
        rows.unshift(...rows.splice(cut));
      }
      return { vault_id, numeraire_decimals: decimals, vault_type: type, rows };
    });
}

export const worldArb = (maxVaults = 4): fc.Arbitrary<WorldVault[]> =>
  fc.integer({ min: 1, max: maxVaults }).chain((k) => fc.tuple(...Array.from({ length: k }, (_, i) => vaultArb(i + 1))));

/** Write vaults (minimal registry rows) and their snapshots in the given physical order. */
export async function writeWorld(store: Store, vaults: WorldVault[], layout: Layout = 'clustered'): Promise<void> {
  await writeVaults(store, vaults);
  await writeSnapshots(store, vaults, layout);
}

export async function writeVaults(store: Store, vaults: Pick<WorldVault, 'vault_id' | 'vault_type' | 'numeraire_decimals'>[]): Promise<void> {
  for (const v of vaults) {
    await store.run(
      'test.vault',
      `INSERT INTO vaults (vault_id, chain_id, address, vault_type, name, symbol, numeraire_address, numeraire_decimals,
         numeraire_symbol, group_id, is_primary, strategy_id, visibility, listed_at, definition)
       VALUES ($1, 1, $2, $3, 'v', 'V', '0x00', $4, 'N', NULL, true, NULL, 'visible', TIMESTAMP '2024-01-01', '{}')`,
      [v.vault_id, v.vault_id.slice(2), v.vault_type, v.numeraire_decimals],
    );
  }
}

/** Append the vaults' rows to vault_snapshots in the given physical order. */
export async function writeSnapshots(store: Store, vaults: WorldVault[], layout: Layout = 'clustered'): Promise<void> {
  const writer = await createRawWriter(store, 'append');
  for (const row of physicalOrder(vaults, layout)) writer.sink.snapshot(row);
  await writer.finish();
}

function physicalOrder(vaults: WorldVault[], layout: Layout): SnapshotRow[] {
  const clustered = vaults.flatMap((v) => v.rows);
  if (layout === 'clustered') return clustered;
  // hour by hour across vaults, keeping each vault's own row order
  const interleave = (lists: SnapshotRow[][]): SnapshotRow[] => {
    const out: SnapshotRow[] = [];
    const pos = lists.map(() => 0);
    for (let more = true; more; ) {
      more = false;
      lists.forEach((l, k) => {
        if (pos[k]! < l.length) {
          out.push(l[pos[k]!++]!);
          more = true;
        }
      });
    }
    return out;
  };
  if (layout === 'interleaved') return interleave(vaults.map((v) => v.rows));
  // the first 2/3 of each history clustered, the rest appended hour by hour
  const cut = vaults.map((v) => Math.floor((v.rows.length * 2) / 3));
  return [...vaults.flatMap((v, k) => v.rows.slice(0, cut[k])), ...interleave(vaults.map((v, k) => v.rows.slice(cut[k])))];
}

// ---------------------------------------------------------------- oracles

export interface OraclePoint {
  ts: number;
  total_assets: bigint;
  total_supply: bigint;
  published: bigint;
  unit_price: bigint;
}

/** DESIGN §4.1 with bigint: valid rows, ascending, first of each ts (insertion order), priced. */
export function oracleSeries(v: Pick<WorldVault, 'rows' | 'numeraire_decimals' | 'vault_type'>): { points: OraclePoint[]; skipped: number } {
  const valid = v.rows.filter((r) => r.total_assets >= 0n && r.total_supply >= 0n);
  const skipped = v.rows.length - valid.length;
  const sorted = valid.map((r, k) => ({ r, k })).sort((a, b) => a.r.ts - b.r.ts || a.k - b.k);
  const points: OraclePoint[] = [];
  let prev: bigint | null = null;
  for (const { r } of sorted) {
    if (points.length > 0 && points[points.length - 1]!.ts === r.ts) continue;
    let price: bigint;
    if (v.vault_type === 'aera_v3') price = r.unit_price !== null && r.unit_price > 0n ? r.unit_price : (prev ?? E18);
    else if (r.total_supply > 0n) {
      // (assets / 10^dec) / (supply / 10^18), truncated at 18 digits
      price = (r.total_assets * 10n ** 36n) / (r.total_supply * 10n ** BigInt(v.numeraire_decimals));
    } else price = prev ?? E18;
    prev = price;
    points.push({
      ts: r.ts,
      total_assets: r.total_assets,
      total_supply: r.total_supply,
      published: v.vault_type === 'aera_v3' ? (r.unit_price ?? 0n) : 0n,
      unit_price: price,
    });
  }
  return { points, skipped };
}

/** DESIGN §4.2 by linear search and pow: NaN when unknown. */
export function oracleApy(ts: number[], p: number[], days: number): number[] {
  return ts.map((t, i) => {
    let j = -1;
    for (let k = 0; k < ts.length; k++) if (ts[k]! <= t - days * DAY) j = k;
    if (j < 0 || !(p[j]! > 0)) return Number.NaN;
    return Math.pow(p[i]! / p[j]!, 365 / days) - 1;
  });
}

/** |a − b| small relative to the values, with NaN only equal to NaN. */
export function closeApy(a: number, b: number, rel = 1e-12, abs = 1e-12): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (a === b) return true; // ±Infinity when a ratio^(365/N) overflows
  return Math.abs(a - b) <= abs + rel * Math.max(Math.abs(a), Math.abs(b));
}

/** All grid instants in [lo, hi] for a granularity, by walking calendar days with Date. */
export function oracleGrid(granularity: 'day' | 'week' | 'month', lo: number, hi: number): number[] {
  const out: number[] = [];
  const first = new Date(Math.floor(lo / DAY) * DAY * 1000);
  for (let d = first; d.getTime() / 1000 <= hi; d = new Date(d.getTime() + DAY * 1000)) {
    const t = d.getTime() / 1000;
    if (t < lo) continue;
    if (granularity === 'day' || (granularity === 'week' && d.getUTCDay() === 1) || (granularity === 'month' && d.getUTCDate() === 1)) out.push(t);
  }
  return out;
}
