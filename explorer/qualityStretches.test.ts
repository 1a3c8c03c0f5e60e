import { describe, expect, it } from 'vitest';
import { qualityStretches } from './qualityStretches.js';

describe('qualityStretches', () => {
  const xs = [0, 10, 20, 30, 40, 50];
  it('joins runs of a flag, one stretch per run, half a step beyond its end points', () => {
    const flags = [[], ['carried'], ['carried', 'stale_snapshot'], [], ['stale_snapshot'], []];
    expect(qualityStretches(xs, flags)).toEqual([
      { kind: 'carried', first: 1, last: 2, from: 5, to: 25 },
      { kind: 'carried', first: 4, last: 4, from: 35, to: 45 },
    ]);
  });
  it('keeps kinds apart and clamps to the first and last point', () => {
    const flags = [['unpriced'], ['unpriced', 'jump'], [], ['stale_price'], ['stale_price'], ['stale_price', 'warming_up']];
    expect(qualityStretches(xs, flags)).toEqual([
      { kind: 'unpriced', first: 0, last: 1, from: 0, to: 15 },
      { kind: 'stale_price', first: 3, last: 5, from: 25, to: 50 },
      { kind: 'jump', first: 1, last: 1, from: 5, to: 15 },
    ]);
  });
  it('nothing without flags (warming_up is not shaded), and nothing for points without a quality block', () => {
    expect(qualityStretches(xs, [['warming_up'], [], undefined, [], [], []])).toEqual([]);
    expect(qualityStretches([], [])).toEqual([]);
  });
});
