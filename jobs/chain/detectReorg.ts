// Reorg detection (DESIGN §6.1, §9): the newest stored block hash is compared with the chain's;
// on a mismatch the stored hashes are walked back (newest first) to the newest block the chain
// still agrees with — the common ancestor. One header read when nothing changed.
import type { ChainRpc } from '../evm/chainRpc.js';
import type { StoredHash } from './chainStore.js';

export interface Fork {
  /** the newest stored block the chain still has */
  ancestor: { block: number; hash: string; ts: number };
  /** the newest stored block that no longer matches */
  orphanedFrom: number;
  /** true when no stored hash matched: the reorg is deeper than the stored window */
  deeperThanWindow: boolean;
}

const PARALLEL = 16;

/** `stored` newest first (from loadRecentHashes); null when the newest still matches. */
export async function detectReorg(rpc: Pick<ChainRpc, 'header' | 'blockNumber'>, stored: readonly StoredHash[]): Promise<Fork | null> {
  if (stored.length === 0) return null;
  const head = await rpc.blockNumber();
  // headers are read fresh (never from the clock's cache, which may hold the orphaned ones)
  const chainHash = async (block: number) => (block > head ? null : await rpc.header(block));
  const newest = stored[0]!;
  const top = await chainHash(newest.block);
  if (top !== null && top.hash === newest.hash) return null;

  for (let i = 0; i < stored.length; i += PARALLEL) {
    const slice = stored.slice(i, i + PARALLEL);
    const headers = await Promise.all(slice.map((s) => chainHash(s.block)));
    for (let j = 0; j < slice.length; j++) {
      const h = headers[j];
      if (h && h.hash === slice[j]!.hash) {
        return {
          ancestor: { block: h.number, hash: h.hash, ts: h.timestamp },
          orphanedFrom: stored[i + j - 1]?.block ?? newest.block,
          deeperThanWindow: false,
        };
      }
    }
  }
  // nothing in the window matches: fall back to the block below the oldest stored one
  const oldest = stored[stored.length - 1]!;
  const below = Math.max(0, oldest.block - 1);
  const h = await rpc.header(below);
  return { ancestor: { block: below, hash: h.hash, ts: h.timestamp }, orphanedFrom: oldest.block, deeperThanWindow: true };
}
