// Windows sliced from lazily serialized blocks equal the naive answer — every point of the
// window serialized and joined — for any window, order, limit and cursor (fast-check), across
// block boundaries, on a real demo world; their deflate streams inflate to the same bytes with
// the CRC-32 and length they state.
import fc from 'fast-check';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { demoSnapshot, SMALL_DEMO } from '../../test/helpers/demoSnapshot.js';
import { storedHeader } from '../../common/deflateStored.js';
import { crc32Shift, crc32ShiftBy } from '../../common/crc32.js';
import {
  buildBlock,
  buildSeriesBuffer,
  coldBlocks,
  coldCount,
  windowBlocks,
  type Block,
  CHUNK_LARGE,
  SERIES_BLOCK,
  SERIES_CACHE_BYTES,
  seriesCacheBytes,
  setSeriesCacheBudget,
  sliceSeries,
  type DeflatedItems,
  type SeriesBuffer,
  type SeriesSlice,
} from './seriesBuffers.js';

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
          expectInflatesToBody(got);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('deflated windows: every start offset within a large chunk and lengths around chunk sizes', () => {
    const id = vaults[0]!;
    const sb = buildSeriesBuffer(snapshot.world, id, 'hour')!;
    for (const order of ['asc', 'desc'] as const) {
      for (let from = 0; from < CHUNK_LARGE + 2; from++) {
        for (const limit of [1, 2, 7, 8, 9, 63, 64, 65, 72, 129, 300, 600]) {
          const start = order === 'asc' ? sb.instants[from]! : sb.instants[0]!;
          const end = order === 'asc' ? sb.instants.at(-1)! : sb.instants[sb.instants.length - 1 - from]!;
          expectInflatesToBody(sliceSeries(sb, start, end, order, limit));
        }
      }
    }
  });

  it('deflated windows: a descending window across a last block that ends mid-chunk carries its ragged run as a stored block', () => {
    // day points: few enough that the last block is partial, and some vault's count is off the 8-point grid
    const sb = vaults
      .map((id) => buildSeriesBuffer(snapshot.world, id, 'day')!)
      .find((b) => (b.instants.length % SERIES_BLOCK) % 8 !== 0 && b.instants.length > SERIES_BLOCK);
    const hourly = vaults.map((id) => buildSeriesBuffer(snapshot.world, id, 'hour')!).find((b) => (b.instants.length % SERIES_BLOCK) % 8 !== 0);
    const pick = sb ?? hourly;
    expect(pick).toBeDefined();
    for (const limit of [SERIES_BLOCK, SERIES_BLOCK + 40, 2 * SERIES_BLOCK]) {
      const slice = sliceSeries(pick!, pick!.instants[0]!, pick!.instants.at(-1)!, 'desc', limit);
      expectInflatesToBody(slice);
      // the ragged end of the last block, mid-window: an uncompressed piece between compressed ones
      const { stored } = slice.deflate();
      expect(stored.some((raw, i) => raw && i > 0 && i < stored.length - 1)).toBe(true);
    }
  });

  it('deflated windows are mostly compressed: a 600-point window is under a quarter of its bytes', () => {
    const sb = buildSeriesBuffer(snapshot.world, vaults[0]!, 'hour')!;
    const slice = sliceSeries(sb, sb.instants[3]!, sb.instants.at(-1)!, 'asc', 600);
    const d = slice.deflate();
    expect(d.length).toBe(Buffer.concat(slice.body).length);
    expect(piecesOf(d).reduce((n, p) => n + p.bytes.length, 0)).toBeLessThan(d.length / 4);
  });

  it('evicts by second chance: a block used since it was placed stays, one not used since goes; one past the whole budget is answered, not kept', () => {
    const touch = (sb: SeriesBuffer, b: number) => sliceSeries(sb, sb.instants[b * SERIES_BLOCK]!, sb.instants[b * SERIES_BLOCK]!, 'asc', 1);
    const old = setSeriesCacheBudget(0);
    try {
      for (let round = 0; round < 3; round++) {
        // a zero budget keeps nothing: the block is made, answered from and let go
        const x = buildSeriesBuffer(snapshot.world, vaults[0]!, 'hour')!;
        setSeriesCacheBudget(0);
        expect(touch(x, 2).count).toBe(1);
        expect([x.asc[2], seriesCacheBytes()]).toEqual([undefined, 0]);
        // the size of one block (a change of budget drops what is kept)
        setSeriesCacheBudget(SERIES_CACHE_BYTES);
        touch(x, 2);
        const one = seriesCacheBytes();
        expect(one).toBeGreaterThan(0);
        setSeriesCacheBudget(one * 2.5);
        expect(x.asc[2]).toBeUndefined();
        touch(x, 2);
        const sb = buildSeriesBuffer(snapshot.world, vaults[1 % vaults.length]!, 'hour')!;
        touch(sb, 0);
        touch(sb, 0); // used again after it was placed
        touch(sb, 1); // over the budget: x's block (not used since placed) goes
        expect(x.asc[2]).toBeUndefined();
        touch(sb, 2); // over again: block 0 gets a second chance, block 1 goes
        expect(sb.asc[0]).toBeDefined();
        expect(sb.asc[1]).toBeUndefined();
        expect(sb.asc[2]).toBeDefined();
        expect(seriesCacheBytes()).toBeLessThanOrEqual(one * 2.5);
        setSeriesCacheBudget(0);
      }
    } finally {
      setSeriesCacheBudget(old);
    }
  });

  it('keeps serialized blocks within the cache budget, evicting the least recently used, and answers the same', () => {
    const old = setSeriesCacheBudget(200_000);
    try {
      const sbs = vaults.map((id) => buildSeriesBuffer(snapshot.world, id, 'hour')!);
      const whole = (sb: (typeof sbs)[number]) => sliceSeries(sb, sb.instants[0]!, sb.instants.at(-1)!, 'asc', 100_000);
      const first = sbs.map((sb) => Buffer.concat(whole(sb).body).toString());
      let peak = 0;
      for (let round = 0; round < 2; round++) {
        sbs.forEach((sb, k) => {
          expect(Buffer.concat(whole(sb).body).toString()).toBe(first[k]);
          peak = Math.max(peak, seriesCacheBytes());
        });
      }
      // the budget plus at most the block being added
      expect(seriesCacheBytes()).toBeLessThanOrEqual(200_000 + 256 * 1024);
      expect(peak).toBeLessThanOrEqual(200_000 + 256 * 1024);
      // and something was evicted: every vault's whole history would not fit
      expect(sbs.some((sb) => sb.asc.some((b) => b === undefined))).toBe(true);
    } finally {
      setSeriesCacheBudget(old);
    }
  });
});

describe('coldCount', () => {
  it('is the number of blocks coldBlocks lists for the window, for any window and any blocks kept', () => {
    const sb = buildSeriesBuffer(snapshot.world, vaults[0]!, 'hour')!;
    const n = sb.instants.length;
    const blocks = Math.ceil(n / SERIES_BLOCK);
    const kept = {} as Block; // only whether a slot holds a block matters here
    fc.assert(
      fc.property(
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.array(fc.boolean(), { minLength: blocks, maxLength: blocks }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 2000 }),
        fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
        (order, warm, a, b, limit, cursor) => {
          const probe = { ...sb, asc: warm.map((w) => (w ? kept : undefined)), desc: warm.map((w) => (w ? undefined : kept)) };
          const at = (f: number) => sb.instants[Math.min(n - 1, Math.floor(f * n))]!;
          const [start, end] = [at(Math.min(a, b)), at(Math.max(a, b))];
          const after = cursor === undefined ? undefined : at(cursor);
          expect(coldCount(probe, start, end, order, limit, after)).toBe(coldBlocks(probe, windowBlocks(probe, start, end, order, limit, after), order).length);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('CRCs kept with a block', () => {
  it("every point's CRC up to its end without its comma, and the shifts to the block's ends, equal fresh ones", () => {
    const sb = buildSeriesBuffer(snapshot.world, vaults[0]!, 'hour')!;
    const blocks = Math.ceil(sb.instants.length / SERIES_BLOCK);
    let checked = 0;
    for (const order of ['asc', 'desc'] as const) {
      // the first, a middle and the last (possibly short) block
      for (const b of [0, Math.floor(blocks / 2), blocks - 1]) {
        const block = buildBlock(sb, b, order);
        const { buf, offsets } = block;
        const n = offsets.length - 1;
        expect(block.crcBare!.length).toBe(n);
        expect(block.shiftToEnd!.length).toBe(n + 1);
        for (let k = 0; k < n; k++) {
          expect(block.crcBare![k]).toBe(zlib.crc32(buf.subarray(0, offsets[k + 1]! - 1)) >>> 0);
          expect(block.crc![k]).toBe(zlib.crc32(buf.subarray(0, offsets[k]!)) >>> 0);
          // an operator moves any CRC as the shift by its length does
          const c = (Math.imul(k + 1, 0x9e3779b1) ^ b) >>> 0;
          expect(crc32ShiftBy(block.shiftToBare![k]!, c)).toBe(crc32Shift(c, offsets[k + 1]! - 1));
          expect(crc32ShiftBy(block.shiftToEnd![k]!, c)).toBe(crc32Shift(c, offsets[n]! - offsets[k]!));
          checked++;
        }
        expect(crc32ShiftBy(block.shiftToEnd![n]!, 12345)).toBe(12345);
      }
    }
    expect(checked).toBeGreaterThan(4 * SERIES_BLOCK);
  });
});

/** The pieces of a deflated window as views, in order. */
function piecesOf(d: DeflatedItems): { bytes: Buffer; stored: boolean }[] {
  return d.src.map((src, i) => ({ bytes: src.subarray(d.at[2 * i]!, d.at[2 * i + 1]!), stored: d.stored[i]! }));
}

/**
 * The slice's pieces, the uncompressed ones carried in stored blocks and the stream closed with an
 * empty final block, inflate to its identity bytes; the uncompressed ends are ragged runs of at
 * most 7 points (and the last) when the window holds a whole chunk (else it is all uncompressed,
 * at most 15 points), and a window is a few pieces per block, not one per chunk.
 */
function expectInflatesToBody(slice: SeriesSlice): void {
  const identity = Buffer.concat(slice.body);
  const d = slice.deflate();
  expect(d.length).toBe(identity.length);
  expect(d.crc).toBe(zlib.crc32(identity) >>> 0);
  const pieces = piecesOf(d);
  const stream = pieces.flatMap(({ bytes, stored }) => {
    if (!stored) return [bytes];
    const header = Buffer.alloc(5);
    storedHeader(header, 0, bytes.length, false);
    return [header, bytes];
  });
  // BFINAL=1 stored block of length 0 ends the stream
  expect(zlib.inflateRawSync(Buffer.concat([...stream, Buffer.from([1, 0, 0, 0xff, 0xff])])).equals(identity)).toBe(true);
  const points = (b: Buffer) => b.toString().split('},{').length - (b.length === 0 ? 1 : 0);
  if (pieces.some((p) => !p.stored)) {
    if (pieces[0]!.stored) expect(points(pieces[0]!.bytes)).toBeLessThanOrEqual(7);
    if (pieces.at(-1)!.stored) expect(points(pieces.at(-1)!.bytes)).toBeLessThanOrEqual(8); // up to 7 whole points and the last one
  }
  // per block at most: a ragged run, a small run, a large run, a small run, a ragged run
  expect(pieces.length).toBeLessThanOrEqual(3 * Math.ceil(slice.count / 256 + 1) + 4);
}
