import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEMO_CHAINS } from './catalog.js';
import { ChainClock } from './chainClock.js';

const T2025 = Date.UTC(2025, 0, 1) / 1000;

describe('ChainClock', () => {
  it('returns the last block at or before a time, for every chain cadence', () => {
    for (const c of DEMO_CHAINS) {
      const clock = new ChainClock(c.chain_id, 42);
      fc.assert(
        fc.property(fc.integer({ min: T2025 - 400 * 86_400, max: T2025 + 800 * 86_400 }), (ts) => {
          const n = clock.blockAt(ts);
          return clock.blockTs(n) <= ts && clock.blockTs(n + 1) > ts;
        }),
      );
    }
  });

  it('gives realistic block heights', () => {
    expect(new ChainClock(1, 42).blockAt(T2025)).toBeGreaterThan(21_000_000);
    expect(new ChainClock(1, 42).blockAt(T2025)).toBeLessThan(22_000_000);
    expect(new ChainClock(42161, 42).blockAt(T2025)).toBeGreaterThan(250_000_000);
    expect(Number.isSafeInteger(new ChainClock(42161, 42).blockAt(T2025 + 3650 * 86_400))).toBe(true);
  });

  it('keeps the blocks inside an hour strictly between its boundaries', () => {
    for (const c of DEMO_CHAINS) {
      const clock = new ChainClock(c.chain_id, 42);
      const { lo, hi } = clock.blocksInside(T2025);
      expect(clock.blockTs(lo)).toBeGreaterThan(T2025 - 3600);
      expect(clock.blockTs(hi)).toBeLessThan(T2025);
      expect(clock.blockTs(lo - 1)).toBe(T2025 - 3600);
      expect(clock.blockTs(hi + 1)).toBe(T2025);
    }
  });

  it('hashes a block the same way every time and differently per chain', () => {
    const a = new ChainClock(1, 42);
    const h = a.blockHash(21_000_000);
    expect(h).toMatch(/^0x[0-9a-f]{64}$/);
    a.blockHash(21_000_001);
    expect(a.blockHash(21_000_000)).toBe(h);
    expect(new ChainClock(10, 42).blockHash(21_000_000)).not.toBe(h);
  });
});
