// Per-wallet views of the raw rows: positions with stable ids (the positions-list cursor
// runs over them, DESIGN §5.2) and the wallet-wide activity order (DESIGN §4.6).
import { priceKey, type WalletIndex, type World } from '../../model/world.js';
import type { PositionContext } from '../positions/replayPosition.js';
import type { EventRow } from '../../model/rows.js';

export type { WalletIndex, WalletPosition } from '../../model/world.js';

export function buildWalletIndex(world: Pick<World, 'events' | 'walletRows'>): WalletIndex {
  const index: WalletIndex = { positions: new Map(), activity: new Map(), nextId: 1 };
  extendWalletIndex(index, world.events, world.walletRows);
  return index;
}

/**
 * Add `events` (newer than everything indexed, in wallet-wide order) to the index. Positions
 * keep their ids: a new (wallet, vault) pair gets the next one, in order of first appearance.
 * Copy-on-write: a wallet touched here gets new activity and position arrays (its positions
 * re-pointed at its current row arrays), so a published snapshot's copy of the index keeps
 * reading exactly what it was published with.
 */
export function extendWalletIndex(index: WalletIndex, events: readonly EventRow[], walletRows: World['walletRows']): void {
  const copied = new Set<string>();
  for (const e of events) {
    if (!copied.has(e.wallet)) {
      copied.add(e.wallet);
      const rows = walletRows.get(e.wallet)!;
      index.activity.set(e.wallet, [...(index.activity.get(e.wallet) ?? [])]);
      index.positions.set(e.wallet, (index.positions.get(e.wallet) ?? []).map((p) => ({ ...p, rows: rows.get(p.vault_id)! })));
    }
    index.activity.get(e.wallet)!.push(e);
    const list = index.positions.get(e.wallet)!;
    if (list.some((p) => p.vault_id === e.vault_id)) continue;
    list.push({ position_id: index.nextId++, wallet: e.wallet, vault_id: e.vault_id, rows: walletRows.get(e.wallet)!.get(e.vault_id)! });
  }
}

/**
 * What one published snapshot reads of a world that refreshes keep growing: the containers
 * copied (series objects with their lengths, the price, wallet-row and index maps), the rows
 * they hold shared. Refreshes only append past a copied length, replace price series, and
 * replace (never push into) a touched wallet's arrays, so nothing a snapshot can reach
 * changes after it is published.
 */
export function frozenView(w: World): World {
  return {
    ...w,
    series: new Map([...w.series].map(([id, s]) => [id, { ...s }])),
    prices: new Map(w.prices),
    walletRows: new Map(w.walletRows),
    walletIndex: { ...w.walletIndex, positions: new Map(w.walletIndex.positions), activity: new Map(w.walletIndex.activity) },
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
