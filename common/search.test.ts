import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lowerBound, upperBound } from './search.js';

describe('binary search', () => {
  it('equals a linear scan on sorted arrays with repeats', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 60 }), fc.integer({ min: -60, max: 60 }), (xs, t) => {
        const a = Float64Array.from(xs.sort((x, y) => x - y));
        const lin = (pred: (x: number) => boolean) => {
          const i = a.findIndex(pred);
          return i < 0 ? a.length : i;
        };
        expect(lowerBound(a, a.length, t)).toBe(lin((x) => x >= t));
        expect(upperBound(a, a.length, t)).toBe(lin((x) => x > t));
      }),
    );
  });
});
