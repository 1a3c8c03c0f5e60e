// The event table keeps every row exactly (a round trip through columns gives the rows back),
// its kind codes are EVENT_KINDS' indexes, and a view taken before an append never sees it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_KINDS } from './rows.js';
import { appendEventRow, eventRows, eventTableOf, frozenEvents, hashAt, KIND, setHashWords, withCapacity } from './events.js';
import { eventRowsArb, worldOrder } from '../test/helpers/eventArb.js';

describe('event table', () => {
  it('kind codes are the indexes of EVENT_KINDS', () => {
    expect(Object.entries(KIND)).toEqual(EVENT_KINDS.map((k, i) => [k, i]));
  });

  it('gives back every row exactly: strings, NULLs, odd hashes, 128-bit amounts (oracle: the rows)', () => {
    fc.assert(
      fc.property(eventRowsArb(), (rows) => {
        const sorted = [...rows].sort(worldOrder);
        expect(eventRows(eventTableOf(sorted))).toEqual(sorted);
      }),
      { numRuns: 150 },
    );
  });

  it('hash words round-trip canonical hashes and refuse others', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const h = `0x${Buffer.from(bytes).toString('hex')}`;
        const words = new BigUint64Array(4);
        expect(setHashWords(words, 0, h)).toBe(true);
        expect(hashAt(words, 0)).toBe(h);
      }),
    );
    const words = new BigUint64Array(4);
    for (const odd of ['0x12', `0x${'A'.repeat(64)}`, `${'a'.repeat(66)}`]) expect(setHashWords(words, 0, odd)).toBe(false);
  });

  it('a frozen view keeps its rows while the table grows in place or into a copy', () => {
    fc.assert(
      fc.property(eventRowsArb({ maxLength: 30 }), fc.nat({ max: 30 }), (rows, cut) => {
        const sorted = [...rows].sort(worldOrder);
        const k = Math.min(cut, sorted.length);
        let t = withCapacity(eventTableOf(sorted.slice(0, k)), k + 3);
        const view = frozenEvents(t);
        for (const r of sorted.slice(k)) t = appendEventRow(t, r);
        expect(eventRows(view)).toEqual(sorted.slice(0, k));
        expect(eventRows(t)).toEqual(sorted);
      }),
      { numRuns: 100 },
    );
  });
});
