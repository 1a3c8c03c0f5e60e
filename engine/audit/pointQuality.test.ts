import { describe, expect, it } from 'vitest';
import { makePrices, makeSeries } from '../../test/helpers/positionFixtures.js';
import { computeApy } from '../series/apyWindows.js';
import { pointQuality, staleReason } from './pointQuality.js';

const H = 3600;
const T0 = 1_700_000_000 - (1_700_000_000 % 86_400); // a midnight
const DAY = 86_400;

describe('pointQuality (DESIGN §11.3)', () => {
  // hourly snapshots over 100 days, with hours 30..33 missing and a 6 % jump at hour 50
  const hours = Array.from({ length: 100 * 24 }, (_, i) => i).filter((i) => i < 30 || i > 33);
  const ts = hours.map((i) => T0 + i * H);
  const prices = hours.map((i) => (i >= 50 ? 1.06 : 1) * (1 + i / 1e6));
  const s = makeSeries(
    ts,
    prices.map((p) => p.toFixed(18)),
    6,
  );
  computeApy(s);
  const usd = makePrices([T0, T0 + 20 * H, T0 + 90 * H], ['1', '1', '1']);
  const at = (hour: number) => ts.indexOf(T0 + hour * H);

  it('carried and stale_snapshot: a point in a gap of missing hours', () => {
    const i = at(29);
    expect(pointQuality(s, i, T0 + 29 * H, usd, T0 + 29 * H).flags).not.toContain('carried');
    const q = pointQuality(s, i, T0 + 32 * H, usd, T0 + 29 * H);
    expect(q.flags).toEqual(['carried', 'stale_snapshot', 'stale_price', 'warming_up']);
    expect(q.snapshot_age_seconds).toBe(3 * H);
    // the price the value used is 9 h old at the snapshot, 12 h at the point
    expect(q.price_age_seconds).toBe(12 * H);
    expect(pointQuality(s, i, T0 + 31 * H, usd, T0 + 29 * H).flags).toEqual(['carried', 'stale_price', 'warming_up']);
  });

  it('jump: more than 5 % against the previous snapshot, either way', () => {
    expect(pointQuality(s, at(50), T0 + 50 * H, usd, T0 + 50 * H).flags).toContain('jump');
    expect(pointQuality(s, at(51), T0 + 51 * H, usd, T0 + 51 * H).flags).not.toContain('jump');
    expect(pointQuality(s, at(49), T0 + 49 * H, usd, T0 + 49 * H).flags).not.toContain('jump');
  });

  it('unpriced beyond 48 h, and with no price at all; price age null without any', () => {
    const q = pointQuality(s, at(90 + 49), T0 + 139 * H, usd, T0 + 139 * H);
    expect(q.flags).toContain('unpriced');
    expect(q.flags).not.toContain('stale_price');
    const none = pointQuality(s, at(10), T0 + 10 * H, undefined, T0 + 10 * H);
    expect(none.flags).toContain('unpriced');
    expect(none.price_age_seconds).toBeNull();
  });

  it('warming_up until the 90-day window has history', () => {
    expect(pointQuality(s, at(89 * 24), T0 + 89 * 24 * H, usd, T0 + 89 * 24 * H).flags).toContain('warming_up');
    const late = s.length - 1;
    expect(pointQuality(s, late, s.ts[late]!, usd, s.ts[late]!).flags).not.toContain('warming_up');
  });

  it('stale_reason: never read, chain lag, unpriced, fresh', () => {
    const end = s.ts[s.length - 1]!;
    const head = { ts: end, stalled: false };
    expect(staleReason(undefined, usd, head, end)).toBe('never_read');
    expect(staleReason(s, usd, { ts: end - 3 * H, stalled: false }, end)).toBe('chain_lag');
    expect(staleReason(s, usd, { ts: end, stalled: true }, end)).toBe('chain_lag');
    expect(staleReason(s, usd, head, end)).toBe('unpriced');
    expect(staleReason(s, makePrices([end - DAY], ['1']), head, end)).toBe('fresh');
  });
});
