// Wallet views: every position of a wallet in an enabled vault with its replayed state
// (DESIGN §4.4), built the first time a published snapshot is asked for that wallet and kept
// in a least-recently-used cache of WALLET_VIEWS_CAPACITY wallets per snapshot — a hot wallet
// is replayed once per publish, a scan over many cold wallets cannot grow memory (the old
// per-route cache emptied itself whole at 50 k wallets). The server reads these through the
// door and only formats them.
import type { PositionState } from '../positions/replayPosition.js';
import { replayPosition } from '../positions/replayPosition.js';
import { positionNow } from '../positions/positionMetrics.js';
import type { Snapshot } from './buildSnapshot.js';
import { positionContext, positionRows, walletOf } from './walletIndex.js';
import type { RowSlice } from '../../model/events.js';

/** One position of a wallet. */
export interface WalletPosition {
  /** stable: assigned in the order positions first appear in the event stream */
  position_id: number;
  wallet: string;
  vault_id: string;
  /** the wallet's rows in this vault, chain order */
  rows: RowSlice;
}

export interface WalletPositionView {
  position: WalletPosition;
  /** null when the vault has no snapshot yet (the position cannot be valued) */
  state: PositionState | null;
}

export const WALLET_VIEWS_CAPACITY = 65_536;

/** A Map kept in use order: a hit moves to the back, the front is evicted past `capacity`. */
export class LruCache<K, V> {
  private readonly map = new Map<K, V>();
  constructor(readonly capacity: number) {}
  get size(): number {
    return this.map.size;
  }
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K);
  }
  has(key: K): boolean {
    return this.map.has(key);
  }
}

const views = new WeakMap<Snapshot, LruCache<string, WalletPositionView[]>>();

/** The wallet's positions in enabled vaults, in position order, replayed once per snapshot while cached. */
export function walletPositions(snapshot: Snapshot, wallet: string): WalletPositionView[] {
  let cache = views.get(snapshot);
  if (!cache) views.set(snapshot, (cache = new LruCache(WALLET_VIEWS_CAPACITY)));
  const hit = cache.get(wallet);
  if (hit) return hit;
  const out: WalletPositionView[] = [];
  for (const position of walletPositionList(snapshot.world, wallet)) {
    const v = snapshot.world.vaults.get(position.vault_id);
    if (!v || v.visibility === 'disabled') continue;
    const ctx = positionContext(snapshot.world, position.vault_id);
    out.push({ position, state: ctx && positionNow(ctx) !== null ? replayPosition(position.rows, ctx) : null });
  }
  cache.set(wallet, out);
  return out;
}

/** Every position of the wallet (in any vault), in position_id order. */
export function walletPositionList(world: Snapshot['world'], wallet: string): WalletPosition[] {
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
