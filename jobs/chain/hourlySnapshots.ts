// Hourly on-chain snapshots (DESIGN §3, §6.1): for every hour boundary H a range newly covers,
// the block at or before H, and there the reads the vault's ledger names (families/*/ledger.ts:
// totalAssets()/totalSupply() for an ERC-4626 vault, the fee calculator's unit price and
// totalSupply() for Aera), all vaults of one block in one multicall. A vault whose reads fail at
// a block is skipped and reported.
import type { SnapshotRow } from '../../model/rows.js';
import type { IndexedVault } from './addressBook.js';
import type { BlockClock } from './blockClock.js';
import { readCall } from './chainAbis.js';
import type { MulticallReader, ReadCall, ReadResult } from './multicallReader.js';

export const HOUR = 3600;
const BLOCK_CONCURRENCY = 16;

export interface SnapshotTarget {
  vault: IndexedVault;
  /** hours at or before this time are already stored (the timestamp of the vault's checkpoint) */
  afterTs: number;
  /** the vault's first hour: the first boundary at or after its start block */
  firstHour: number;
}

export interface SnapshotFailure {
  vault_id: string;
  ts: number;
  block: number;
  error: string;
}

export interface SnapshotBatch {
  rows: SnapshotRow[];
  failures: SnapshotFailure[];
  /** vault-hours read (rows + failures) */
  reads: number;
  /** distinct blocks read at */
  blocks: number[];
}

export const ceilHour = (t: number) => Math.ceil(t / HOUR) * HOUR;

/** The calls of one vault's snapshot, or why it cannot have one (an Aera vault without a calculator). */
export function snapshotCalls(v: IndexedVault): ReadCall[] | string {
  const calls = v.ledger.snapshotCalls(v);
  return typeof calls === 'string' ? calls : calls.map((c) => readCall(v.ledger, c));
}

/** A snapshot row from the reads of `snapshotCalls`, or an error text. */
export function snapshotRow(v: IndexedVault, ts: number, block: number, results: readonly ReadResult[]): SnapshotRow | string {
  const failed = results.find((r) => !r.ok);
  if (failed && !failed.ok) return failed.error || 'failed';
  if (results.length === 0) return 'no result';
  const values = results.map((r) => (r.ok ? r.value : undefined));
  if (!values.every((x): x is bigint => typeof x === 'bigint')) return 'non-integer result';
  return { vault_id: v.vault_id, ts, block_number: block, ...v.ledger.snapshot(v, values) };
}

/**
 * Snapshots of the hours in (lo's time, hi's time] for the targets, reading at blocks in
 * [lo, hi]. Every hour boundary at or before hi's timestamp is final once hi is (block
 * timestamps strictly increase), so a range never needs to wait for the next one.
 */
export async function readHourlySnapshots(args: {
  clock: BlockClock;
  reader: MulticallReader;
  targets: readonly SnapshotTarget[];
  lo: number;
  hi: number;
}): Promise<SnapshotBatch> {
  const { clock, reader, targets, hi } = args;
  const lo = Math.max(0, args.lo);
  const out: SnapshotBatch = { rows: [], failures: [], reads: 0, blocks: [] };
  if (targets.length === 0) return out;
  const hiTs = (await clock.header(hi)).timestamp;
  const loTs = (await clock.header(lo)).timestamp;
  let first = Number.POSITIVE_INFINITY;
  for (const t of targets) first = Math.min(first, Math.max(t.firstHour, ceilHour(t.afterTs + 1)));
  first = Math.max(first, ceilHour(loTs));

  // hour → block (monotone: each search starts from the previous answer)
  const byBlock = new Map<number, { ts: number; vaults: SnapshotTarget[] }[]>();
  let from = lo;
  for (let h = first; h <= hiTs; h += HOUR) {
    const due = targets.filter((t) => h > t.afterTs && h >= t.firstHour);
    if (due.length === 0) continue;
    const block = await clock.atOrBefore(h, from, hi);
    from = block;
    let list = byBlock.get(block);
    if (!list) byBlock.set(block, (list = []));
    list.push({ ts: h, vaults: due });
  }

  const blocks = [...byBlock.keys()];
  out.blocks = blocks;
  for (let i = 0; i < blocks.length; i += BLOCK_CONCURRENCY) {
    await Promise.all(
      blocks.slice(i, i + BLOCK_CONCURRENCY).map(async (block) => {
        const hours = byBlock.get(block)!;
        // one read per vault per block, shared by every hour that maps to this block
        const vaults = [...new Set(hours.flatMap((h) => h.vaults.map((t) => t.vault)))];
        const calls: ReadCall[] = [];
        const slots = new Map<string, [number, number] | string>();
        for (const v of vaults) {
          const c = snapshotCalls(v);
          if (typeof c === 'string') {
            slots.set(v.vault_id, c);
            continue;
          }
          slots.set(v.vault_id, [calls.length, c.length]);
          calls.push(...c);
        }
        const results = calls.length > 0 ? await reader.read(block, calls) : [];
        for (const { ts, vaults: due } of hours) {
          for (const t of due) {
            out.reads++;
            const slot = slots.get(t.vault.vault_id)!;
            const r = typeof slot === 'string' ? slot : snapshotRow(t.vault, ts, block, results.slice(slot[0], slot[0] + slot[1]));
            if (typeof r === 'string') out.failures.push({ vault_id: t.vault.vault_id, ts, block, error: r });
            else out.rows.push(r);
          }
        }
      }),
    );
  }
  return out;
}
