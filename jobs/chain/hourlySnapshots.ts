// Hourly on-chain snapshots (DESIGN §3, §6.1): for every hour boundary H a range newly covers,
// the block at or before H, and there totalAssets()/totalSupply() (ERC-4626) or the fee
// calculator's unit price and totalSupply() (Aera: total_assets = units × price), all vaults
// of one block in one multicall. A vault whose reads fail at a block is skipped and reported.
import type { SnapshotRow } from '../../model/rows.js';
import type { IndexedVault } from './addressBook.js';
import type { BlockClock } from './blockClock.js';
import { calculatorReadAbi, vaultReadAbi } from './chainAbis.js';
import type { MulticallReader, ReadCall, ReadResult } from './multicallReader.js';

export const HOUR = 3600;
const WHOLE_UNIT = 10n ** 18n;
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

/** The calls of one vault's snapshot; null if it cannot have one (an Aera vault without a calculator). */
export function snapshotCalls(v: IndexedVault): ReadCall[] | null {
  const supply: ReadCall = { address: v.address, abi: vaultReadAbi, functionName: 'totalSupply' };
  if (v.family === 'morpho') return [{ address: v.address, abi: vaultReadAbi, functionName: 'totalAssets' }, supply];
  if (v.calculator === null) return null;
  return [{ address: v.calculator, abi: calculatorReadAbi, functionName: 'convertUnitsToNumeraire', args: [v.address, WHOLE_UNIT] }, supply];
}

/** A snapshot row from the two reads of `snapshotCalls`, or an error text. */
export function snapshotRow(v: IndexedVault, ts: number, block: number, results: readonly ReadResult[]): SnapshotRow | string {
  const [a, s] = results;
  if (!a?.ok || !s?.ok) return (a && !a.ok ? a.error : s && !s.ok ? s.error : 'no result') || 'failed';
  const first = a.value as bigint;
  const supply = s.value as bigint;
  if (typeof first !== 'bigint' || typeof supply !== 'bigint') return 'non-integer result';
  if (v.family === 'morpho') return { vault_id: v.vault_id, ts, block_number: block, total_assets: first, total_supply: supply, unit_price: null };
  // Aera: numeraire base units per whole unit; published as an 18-decimal human price
  const d = v.numeraire.decimals;
  const unitPrice = d <= 18 ? first * 10n ** BigInt(18 - d) : first / 10n ** BigInt(d - 18);
  return { vault_id: v.vault_id, ts, block_number: block, total_assets: (supply * first) / WHOLE_UNIT, total_supply: supply, unit_price: unitPrice };
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
        const slots = new Map<string, [number, number] | null>();
        for (const v of vaults) {
          const c = snapshotCalls(v);
          if (c === null) {
            slots.set(v.vault_id, null);
            continue;
          }
          slots.set(v.vault_id, [calls.length, c.length]);
          calls.push(...c);
        }
        const results = calls.length > 0 ? await reader.read(block, calls) : [];
        for (const { ts, vaults: due } of hours) {
          for (const t of due) {
            out.reads++;
            const slot = slots.get(t.vault.vault_id);
            const r = slot
              ? snapshotRow(t.vault, ts, block, results.slice(slot[0], slot[0] + slot[1]))
              : 'an aera_v3 vault needs "fee_calculator" for its unit price';
            if (typeof r === 'string') out.failures.push({ vault_id: t.vault.vault_id, ts, block, error: r });
            else out.rows.push(r);
          }
        }
      }),
    );
  }
  return out;
}
