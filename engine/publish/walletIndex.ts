// Per-wallet views of the event table: positions with stable ids (the positions-list cursor
// runs over them, DESIGN §5.2) and the wallet-wide activity order (DESIGN §4.6), as index
// arrays (no per-row objects). Rebuilt whole for every generation in a few counting passes, so
// a published snapshot's index never changes; position ids are the order of first appearance
// in the append-only event stream, so a rebuild gives every old position its old id.
import { priceKey, type WalletIndex, type World } from '../../model/world.js';
import { frozenEvents, type EventTable, type RowSlice } from '../../model/events.js';
import type { PositionContext } from '../positions/replayPosition.js';

export type { WalletIndex } from '../../model/world.js';

/** Int32Arrays on shared memory: the index crosses to pool workers without copies. */
const shared = (n: number) => new Int32Array(new SharedArrayBuffer(Math.max(n, 1) * 4), 0, n);

/** The index of the first `t.length` rows of `t`. */
export function buildWalletIndex(t: EventTable): WalletIndex {
  const n = t.length;
  const wallets = t.dict.wallets.size;
  const wallet = t.wallet;

  // activity: rows grouped by wallet, world order within (a stable counting sort)
  const activityStart = shared(wallets + 1);
  for (let i = 0; i < n; i++) activityStart[wallet[i]! + 1]!++;
  for (let w = 0; w < wallets; w++) activityStart[w + 1]! += activityStart[w]!;
  const activity = shared(n);
  const fill = activityStart.slice(0, wallets);
  for (let i = 0; i < n; i++) activity[fill[wallet[i]!]!++] = i;

  // positions: per wallet, one per vault it touched, first seen at row provFirst[p]. The
  // wallet's positions so far are the provisional ones from `firstOfWallet` on (a wallet has few).
  const rowPos = new Int32Array(n);
  const provFirst = new Int32Array(n);
  const provVault = new Int32Array(n);
  const provWallet = new Int32Array(n);
  let count = 0;
  const vault = t.vault;
  for (let w = 0; w < wallets; w++) {
    const firstOfWallet = count;
    for (let k = activityStart[w]!, end = activityStart[w + 1]!; k < end; k++) {
      const i = activity[k]!;
      const v = vault[i]!;
      let p = firstOfWallet;
      while (p < count && provVault[p] !== v) p++;
      if (p === count) {
        provFirst[p] = i;
        provVault[p] = v;
        provWallet[p] = w;
        count++;
      }
      rowPos[i] = p;
    }
  }
  // position ids in order of first appearance: provisional positions sorted by their first row
  const positions = count;
  const byFirst = new Int32Array(n).fill(-1);
  for (let p = 0; p < positions; p++) byFirst[provFirst[p]!] = p;
  const rank = new Int32Array(positions);
  const posWallet = shared(positions);
  const posVault = shared(positions);
  for (let i = 0, next = 0; i < n; i++) {
    const p = byFirst[i]!;
    if (p < 0) continue;
    rank[p] = next;
    posWallet[next] = provWallet[p]!;
    posVault[next] = provVault[p]!;
    next++;
  }

  // each position's rows, then put in chain order where world order differs from it
  const rowStart = shared(positions + 1);
  for (let i = 0; i < n; i++) rowStart[rank[rowPos[i]!]! + 1]!++;
  for (let p = 0; p < positions; p++) rowStart[p + 1]! += rowStart[p]!;
  const rows = shared(n);
  const at = rowStart.slice(0, positions);
  for (let i = 0; i < n; i++) rows[at[rank[rowPos[i]!]!]!++] = i;
  for (let p = 0; p < positions; p++) sortChainOrder(t, rows, rowStart[p]!, rowStart[p + 1]!);

  // each wallet's positions in id order
  const walletPosStart = shared(wallets + 1);
  for (let p = 0; p < positions; p++) walletPosStart[posWallet[p]! + 1]!++;
  for (let w = 0; w < wallets; w++) walletPosStart[w + 1]! += walletPosStart[w]!;
  const walletPos = shared(positions);
  const wfill = walletPosStart.slice(0, wallets);
  for (let p = 0; p < positions; p++) walletPos[wfill[posWallet[p]!]!++] = p;

  return { wallets, activityStart, activity, positions, posWallet, posVault, rowStart, rows, walletPosStart, walletPos };
}

const chainBefore = (t: EventTable, i: number, j: number) =>
  t.block_number[i]! - t.block_number[j]! || t.log_index[i]! - t.log_index[j]! || t.sub_index[i]! - t.sub_index[j]!;

/** Sort rows[from..to) by (block_number, log_index, sub_index) — a no-op scan when already so (the usual case). */
function sortChainOrder(t: EventTable, rows: Int32Array, from: number, to: number): void {
  let sorted = true;
  for (let k = from + 1; k < to && sorted; k++) if (chainBefore(t, rows[k - 1]!, rows[k]!) > 0) sorted = false;
  if (sorted) return;
  const part = Array.from(rows.subarray(from, to)).sort((a, b) => chainBefore(t, a, b) || a - b);
  rows.set(part, from);
}

/** Position p's rows, in the order they apply. */
export function positionRows(world: Pick<World, 'events' | 'walletIndex'>, p: number): RowSlice {
  const x = world.walletIndex;
  return { table: world.events, idx: x.rows, from: x.rowStart[p]!, to: x.rowStart[p + 1]! };
}

/** The wallet's index in the event dictionaries, or −1 when it has no rows in this index. */
export function walletOf(world: Pick<World, 'events' | 'walletIndex'>, wallet: string): number {
  const w = world.events.dict.wallets.find(wallet);
  return w >= 0 && w < world.walletIndex.wallets ? w : -1;
}

/**
 * What one published snapshot reads of a world that refreshes keep growing: the containers
 * copied (series objects with their lengths, the price map, the event table's header), the
 * rows they hold shared. Refreshes only append past a copied length, replace price series and
 * build a new wallet index, so nothing a snapshot can reach changes after it is published.
 */
export function frozenView(w: World): World {
  return {
    ...w,
    series: new Map([...w.series].map(([id, s]) => [id, { ...s }])),
    prices: new Map(w.prices),
    events: frozenEvents(w.events),
  };
}

/** What a replay of positions in `vaultId` reads (its series, numeraire and USD prices). */
export function positionContext(world: World, vaultId: string): PositionContext | null {
  const v = world.vaults.get(vaultId);
  const series = world.series.get(vaultId);
  if (!v || !series) return null;
  return {
    series,
    prices: world.prices.get(priceKey(v.chain_id, v.numeraire_address)),
    numeraire: { address: v.numeraire_address, decimals: v.numeraire_decimals, symbol: v.numeraire_symbol },
  };
}
