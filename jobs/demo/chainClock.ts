// A chain's block clock for the demo: block number ↔ timestamp on a fixed cadence, and a
// deterministic block hash per (chain, block), so every vault on a chain agrees on its blocks.
import { CLOCK_ANCHOR_TS, demoChain } from './catalog.js';
import { deriveHash32 } from './prng.js';

export class ChainClock {
  readonly chainId: number;
  private readonly blockMs: number;
  private readonly anchorBlock: number;
  private readonly seed: number;
  private lastBlock = -1;
  private lastHash = '';

  constructor(chainId: number, seed: number) {
    const c = demoChain(chainId);
    this.chainId = chainId;
    // A chain outside the catalog (a registry from elsewhere) still gets a plausible 2 s clock.
    this.blockMs = c?.blockMs ?? 2_000;
    this.anchorBlock = c?.anchorBlock ?? 10_000_000;
    this.seed = seed;
  }

  /** The last block whose timestamp is ≤ ts (the block an hourly read at `ts` would use). */
  blockAt(ts: number): number {
    // block n (from the anchor) has timestamp anchor + floor(n·blockMs/1000); solve for the largest n
    return this.anchorBlock + Math.ceil(((ts - CLOCK_ANCHOR_TS + 1) * 1000) / this.blockMs) - 1;
  }

  /** Timestamp of block n (whole seconds, as chains report them). */
  blockTs(n: number): number {
    return CLOCK_ANCHOR_TS + Math.floor(((n - this.anchorBlock) * this.blockMs) / 1000);
  }

  /** First and last block strictly inside the hour that ends at `hourEnd` (exclusive bounds). */
  blocksInside(hourEnd: number): { lo: number; hi: number } {
    return { lo: this.blockAt(hourEnd - 3600) + 1, hi: this.blockAt(hourEnd - 1) };
  }

  blockHash(n: number): string {
    // Events come block-ordered within a vault, so one cached entry saves most hash work.
    if (n !== this.lastBlock) {
      this.lastBlock = n;
      this.lastHash = deriveHash32(this.seed, 'block', this.chainId, n);
    }
    return this.lastHash;
  }
}
