// A slot memo never answers a key with another key's value, always answers the key it was last
// given in a slot, and keeps a popular key while few others come (oracle: a Map of every set).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlotMemo } from './slotMemo.js';

describe('slot memo', () => {
  it('answers a key only with the value last set for it, or nothing (oracle: a Map)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1, 2, 8, 64),
        fc.array(fc.tuple(fc.boolean(), fc.string({ maxLength: 12 }), fc.integer()), { maxLength: 300 }),
        (slots, ops) => {
          const memo = new SlotMemo<number>(slots);
          const last = new Map<string, number>();
          let lastKey: string | null = null;
          for (const [set, key, value] of ops) {
            if (set) {
              memo.set(key, value);
              last.set(key, value);
              lastKey = key;
            } else {
              const got = memo.get(key);
              if (got !== undefined) expect(got).toBe(last.get(key));
            }
          }
          // the key set last still holds its slot
          if (lastKey !== null) expect(memo.get(lastKey)).toBe(last.get(lastKey));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps a popular key among keys seen once, and forgets nothing it was not asked to', () => {
    const memo = new SlotMemo<string>(256);
    memo.set('popular', 'p');
    let kept = 0;
    for (let i = 0; i < 100; i++) {
      const key = `once-${i}`;
      if (memo.get(key) !== undefined) throw new Error(`${key} was never set`);
      memo.set(key, key);
      if (memo.get('popular') === 'p') kept++;
      else memo.set('popular', 'p');
    }
    // it may lose its slot to a colliding key, but it gets it back at once
    expect(kept).toBeGreaterThan(90);
    expect(() => new SlotMemo(3)).toThrow(RangeError);
  });
});
