// Windows sliced from lazily serialized blocks equal the naive answer — every point of the
// window serialized and joined — for any window, order, limit and cursor (fast-check), across
// block boundaries, on a real demo world.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { demoSnapshot, SMALL_DEMO } from '../../test/helpers/demoSnapshot.js';
import { buildSeriesBuffer, SERIES_BLOCK, sliceSeries } from './seriesBuffers.js';

const snapshot = demoSnapshot({ ...SMALL_DEMO, days: 40, wallets: 10 });
const vaults = [...snapshot.world.series.keys()].filter((id) => snapshot.world.series.get(id)!.length > SERIES_BLOCK * 2);

describe('sliceSeries over lazily serialized blocks', () => {
  it('equals serializing the window point by point (oracle)', () => {
    expect(vaults.length).toBeGreaterThan(0);
    fc.assert(
      fc.property(
        fc.constantFrom(...vaults),
        fc.constantFrom('hour' as const, 'day' as const),
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 1000 }),
        fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
        (id, granularity, order, a, b, limit, cursor) => {
          const sb = buildSeriesBuffer(snapshot.world, id, granularity)!;
          const n = sb.instants.length;
          const at = (f: number) => sb.instants[Math.min(n - 1, Math.floor(f * n))]!;
          const [start, end] = [at(Math.min(a, b)), at(Math.max(a, b))];
          const after = cursor === undefined ? undefined : at(cursor);
          // oracle: the instants in the window, in order, after the cursor, at most limit
          let ks = [...sb.instants.keys()].filter((k) => sb.instants[k]! >= start && sb.instants[k]! <= end);
          if (order === 'desc') ks.reverse();
          if (after !== undefined) ks = ks.filter((k) => (order === 'asc' ? sb.instants[k]! > after : sb.instants[k]! < after));
          const more = ks.length > limit;
          ks = ks.slice(0, limit);
          const got = sliceSeries(sb, start, end, order, limit, after);
          expect(Buffer.concat(got.body).toString()).toBe(ks.map((k) => sb.point(k)).join(','));
          expect(got.count).toBe(ks.length);
          expect(got.hasMore).toBe(more);
          expect(got.lastInstant).toBe(ks.length > 0 ? sb.instants[ks.at(-1)!]! : null);
        },
      ),
      { numRuns: 300 },
    );
  });
});
