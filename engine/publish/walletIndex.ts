// Per-wallet views of the raw rows: positions with stable ids (the positions-list cursor
// runs over them, DESIGN §5.2) and the wallet-wide activity order (DESIGN §4.6).
import { priceKey, type World } from '../model/world.js';
import type { PositionContext } from '../positions/replayPosition.js';
import type { EventRow } from '../store/rows.js';

export interface WalletPosition {
  /** stable: assigned in the order positions first appear in the event stream */
  position_id: number;
  wallet: string;
  vault_id: string;
  /** the wallet's rows in this vault, chain order */
  rows: EventRow[];
}

export interface WalletIndex {
  /** wallet → its positions (every vault it ever touched), by position_id */
  positions: Map<string, WalletPosition[]>;
  /** wallet → its rows in wallet-wide order (block_timestamp, chain_id, block_number, log_index, sub_index) */
  activity: Map<string, EventRow[]>;
}

export function buildWalletIndex(world: World): WalletIndex {
  const positions = new Map<string, WalletPosition[]>();
  const activity = new Map<string, EventRow[]>();
  const seen = new Set<string>();
  let nextId = 1;
  // world.events is already in wallet-wide order, so first sight gives a stable id.
  for (const e of world.events) {
    let rows = activity.get(e.wallet);
    if (!rows) activity.set(e.wallet, (rows = []));
    rows.push(e);
    const key = `${e.wallet}|${e.vault_id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    let list = positions.get(e.wallet);
    if (!list) positions.set(e.wallet, (list = []));
    list.push({ position_id: nextId++, wallet: e.wallet, vault_id: e.vault_id, rows: world.walletRows.get(e.wallet)!.get(e.vault_id)! });
  }
  return { positions, activity };
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
