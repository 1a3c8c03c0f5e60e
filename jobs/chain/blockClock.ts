// Block headers of one chain, cached (timestamps of log blocks, hashes for reorg detection), and
// "the block at or before time t" by search over them: interpolation first (block times are
// nearly regular), bisection after, so an hour boundary costs a few header reads at most.
import type { BlockHeader, ChainRpc } from '../evm/chainRpc.js';

export interface BlockClock {
  header(n: number): Promise<BlockHeader>;
  /** Fetch many headers concurrently (the transport batches them). */
  prefetch(numbers: Iterable<number>): Promise<void>;
  cached(n: number): BlockHeader | undefined;
  /** The greatest block in [lo, hi] with timestamp ≤ t; lo's timestamp must be ≤ t. */
  atOrBefore(t: number, lo: number, hi: number): Promise<number>;
  /** Drop cached headers above `n` (after a reorg). */
  forgetAbove(n: number): void;
}

const MAX_CACHED = 200_000;
const PREFETCH_CONCURRENCY = 64;

export function createBlockClock(rpc: Pick<ChainRpc, 'header'>): BlockClock {
  const cache = new Map<number, BlockHeader>();
  const inflight = new Map<number, Promise<BlockHeader>>();

  function remember(h: BlockHeader): void {
    if (cache.size >= MAX_CACHED) {
      // insertion order ≈ block order: drop the oldest tenth
      let drop = MAX_CACHED / 10;
      for (const k of cache.keys()) {
        cache.delete(k);
        if (--drop <= 0) break;
      }
    }
    cache.set(h.number, h);
  }

  async function header(n: number): Promise<BlockHeader> {
    const hit = cache.get(n);
    if (hit) return hit;
    let p = inflight.get(n);
    if (!p) {
      p = rpc.header(n).then(
        (h) => {
          inflight.delete(n);
          remember(h);
          return h;
        },
        (err: unknown) => {
          inflight.delete(n);
          throw err;
        },
      );
      inflight.set(n, p);
    }
    return p;
  }

  const ts = async (n: number) => (await header(n)).timestamp;

  return {
    header,
    cached: (n) => cache.get(n),
    async prefetch(numbers) {
      const todo = [...new Set(numbers)].filter((n) => !cache.has(n));
      for (let i = 0; i < todo.length; i += PREFETCH_CONCURRENCY) {
        await Promise.all(todo.slice(i, i + PREFETCH_CONCURRENCY).map(header));
      }
    },
    async atOrBefore(t, lo, hi) {
      if ((await ts(hi)) <= t) return hi;
      // invariant: ts(lo) ≤ t < ts(hi)
      let probes = 0;
      while (hi - lo > 1) {
        let mid: number;
        if (probes++ < 2) {
          const [a, b] = [await ts(lo), await ts(hi)];
          mid = lo + Math.floor(((t - a) / Math.max(1, b - a)) * (hi - lo));
          mid = Math.min(hi - 1, Math.max(lo + 1, mid));
        } else {
          mid = lo + ((hi - lo) >> 1);
        }
        if ((await ts(mid)) <= t) lo = mid;
        else hi = mid;
      }
      return lo;
    },
    forgetAbove(n) {
      for (const k of [...cache.keys()]) if (k > n) cache.delete(k);
    },
  };
}
