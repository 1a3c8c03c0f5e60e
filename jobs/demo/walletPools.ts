// The demo's wallets: deterministic addresses, and each wallet's 1–4 vaults chosen by hash,
// stored as one flat index array per vault (100,000 wallets cost a few hundred KB).
import { deriveAddress, fmix32, hashKey, mixIn } from './prng.js';

export interface WalletPools {
  /** wallet indices of vault v: members.subarray(offsets[v], offsets[v + 1]) */
  offsets: Int32Array;
  members: Int32Array;
  address(wallet: number): string;
}

/** `vaultCount` vaults in the caller's canonical order (sorted by vault_id). */
export function createWalletPools(seed: number, wallets: number, vaultCount: number): WalletPools {
  const key = hashKey(seed, 'wallet-pools');
  const choices = new Int32Array(wallets * 4).fill(-1);
  const counts = new Int32Array(vaultCount + 1);
  for (let w = 0; vaultCount > 0 && w < wallets; w++) {
    const h = fmix32(mixIn(key, w));
    // most wallets use one vault, a few spread over up to four
    const r = h % 100;
    const k = r < 45 ? 1 : r < 75 ? 2 : r < 92 ? 3 : 4;
    for (let j = 0; j < k; j++) {
      const v = fmix32(mixIn(mixIn(key, w), j + 1)) % vaultCount;
      let dup = false;
      for (let i = 0; i < j; i++) if (choices[w * 4 + i] === v) dup = true;
      if (dup) continue;
      choices[w * 4 + j] = v;
      counts[v + 1]!++;
    }
  }
  const offsets = new Int32Array(vaultCount + 1);
  for (let v = 0; v < vaultCount; v++) offsets[v + 1] = offsets[v]! + counts[v + 1]!;
  const fill = offsets.slice(0, vaultCount);
  const members = new Int32Array(offsets[vaultCount]!);
  for (let w = 0; w < wallets; w++) {
    for (let j = 0; j < 4; j++) {
      const v = choices[w * 4 + j]!;
      if (v >= 0) members[fill[v]!++] = w;
    }
  }

  const cache = new Array<string | undefined>(wallets).fill(undefined);
  return {
    offsets,
    members,
    address(wallet) {
      return (cache[wallet] ??= deriveAddress(seed, 'wallet', wallet));
    },
  };
}
