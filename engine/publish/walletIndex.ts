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
 */
export function extendWalletIndex(index: WalletIndex, events: readonly EventRow[], walletRows: World['walletRows']): void {
  for (const e of events) {
    let rows = index.activity.get(e.wallet);
    if (!rows) index.activity.set(e.wallet, (rows = []));
    rows.push(e);
    let list = index.positions.get(e.wallet);
    if (!list) index.positions.set(e.wallet, (list = []));
    if (list.some((p) => p.vault_id === e.vault_id)) continue;
    list.push({ position_id: index.nextId++, wallet: e.wallet, vault_id: e.vault_id, rows: walletRows.get(e.wallet)!.get(e.vault_id)! });
  }
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
