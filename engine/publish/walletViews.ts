// A wallet's positions as the index holds them (position ids and rows), for the routes that
// read rows: the position timeseries replays them per request; the list and detail routes
// answer from the position items computed at publish (engine/positions/positionItems.ts).
import type { World } from '../../model/world.js';
import type { RowSlice } from '../../model/events.js';
import { positionRows, walletOf } from './walletIndex.js';

/** One position of a wallet. */
export interface WalletPosition {
  /** stable: assigned in the order positions first appear in the event stream */
  position_id: number;
  wallet: string;
  vault_id: string;
  /** the wallet's rows in this vault, chain order */
  rows: RowSlice;
}

/** Every position of the wallet (in any vault), in position_id order. */
export function walletPositionList(world: World, wallet: string): WalletPosition[] {
  const w = walletOf(world, wallet);
  if (w < 0) return [];
  const x = world.walletIndex;
  const out: WalletPosition[] = [];
  for (let k = x.walletPosStart[w]!; k < x.walletPosStart[w + 1]!; k++) {
    const p = x.walletPos[k]!;
    out.push({ position_id: p + 1, wallet, vault_id: world.events.dict.vaults.values[x.posVault[p]!]!, rows: positionRows(world, p) });
  }
  return out;
}
