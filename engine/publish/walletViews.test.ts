import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LruCache } from './walletViews.js';

describe('LruCache', () => {
  it('holds the `capacity` most recently used keys, as a naive list model does', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 12 }) }),
      fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 12 }), value: fc.integer() }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 200 }), (capacity, ops) => {
        const lru = new LruCache<number, number>(capacity);
        // model: [key, value] pairs, least recently used first
        let model: [number, number][] = [];
        for (const o of ops) {
          if (o.kind === 'get') {
            const at = model.findIndex(([k]) => k === o.key);
            const want = at < 0 ? undefined : model[at]![1];
            if (at >= 0) model = [...model.slice(0, at), ...model.slice(at + 1), model[at]!];
            expect(lru.get(o.key)).toBe(want);
          } else {
            model = [...model.filter(([k]) => k !== o.key), [o.key, o.value]];
            if (model.length > capacity) model = model.slice(1);
            lru.set(o.key, o.value);
          }
          expect(lru.size).toBe(model.length);
        }
        for (let k = 0; k <= 12; k++) expect(lru.has(k)).toBe(model.some(([m]) => m === k));
      }),
      { numRuns: 500 },
    );
  });
});
