import { describe, expect, it } from 'vitest';
import { irr, npv } from './irr.js';

const YEAR = 365 * 86_400;

describe('irr (DESIGN §11.5)', () => {
  it('one flow in, one out a year later: the simple return', () => {
    expect(
      irr([
        { t: 0, amount: -100 },
        { t: YEAR, amount: 110 },
      ]),
    ).toBeCloseTo(0.1, 9);
    expect(
      irr([
        { t: 0, amount: -100 },
        { t: 2 * YEAR, amount: 121 },
      ]),
    ).toBeCloseTo(0.1, 9);
    expect(
      irr([
        { t: 0, amount: -100 },
        { t: YEAR, amount: 50 },
      ]),
    ).toBeCloseTo(-0.5, 9);
  });

  it('the root is within 1e-10 of NPV = 0', () => {
    const flows = [
      { t: 0, amount: -1000 },
      { t: 0.3 * YEAR, amount: -500 },
      { t: 0.7 * YEAR, amount: 300 },
      { t: 1.4 * YEAR, amount: 1400 },
    ];
    const r = irr(flows)!;
    const lo = npv(flows, 0, r - 1e-9);
    const hi = npv(flows, 0, r + 1e-9);
    expect(Math.sign(lo)).not.toBe(Math.sign(hi));
  });

  it('null without a sign change in the flows, or without a root in (−0.9999, 1e6)', () => {
    expect(irr([{ t: 0, amount: -100 }])).toBeNull();
    expect(
      irr([
        { t: 0, amount: -100 },
        { t: YEAR, amount: 0 },
      ]),
    ).toBeNull();
    expect(
      irr([
        { t: 0, amount: 0 },
        { t: YEAR, amount: 0 },
      ]),
    ).toBeNull();
    expect(
      irr([
        { t: 0, amount: 100 },
        { t: YEAR, amount: 100 },
      ]),
    ).toBeNull();
    // a gain of 10⁹ in a year is beyond the bracket
    expect(
      irr([
        { t: 0, amount: -1 },
        { t: YEAR, amount: 1e9 },
      ]),
    ).toBeNull();
  });
});
