// The read model's heavy reads on the compute pool (a real piscina worker): long position
// windows and cold blocks of long vault windows computed off the serving thread answer the same
// bytes as the same reads done in-thread, their deflate runs inflate to those bytes, a finished
// window is kept (answered at once the next time), and past the in-flight cap a new one is 503.
import fc from 'fast-check';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createComputePool, type ComputePool } from '../engine/pool/computePool.js';
import type { Snapshot } from '../engine/publish/buildSnapshot.js';
import type { DeflatedItems, ReadModel, WindowQuery } from '../engine/publish/index.js';
import { createReadModel, IN_THREAD_POINTS, POSITION_WINDOWS_IN_FLIGHT } from '../engine/publish/readModel.js';
import { walletPositionList } from '../engine/publish/walletViews.js';
import { storedHeader } from '../common/deflateStored.js';
import { tempDir, testCommon } from './helpers/common.js';
import { publishedDemo } from './helpers/publishedDemo.js';

let snapshot: Snapshot;
let pool: ComputePool;
let onPool: ReadModel;
let inThread: ReadModel;
let positions: { wallet: string; vault: string }[];
let vaults: string[];

beforeAll(async () => {
  snapshot = await publishedDemo(join(tempDir('vaultd-pool-reads-'), 'w.duckdb'), {
    seed: 11,
    now: Date.parse('2026-04-01T00:00:00Z') / 1000,
    vaults: null,
    wallets: 40,
    days: 90,
  });
  pool = createComputePool(testCommon(), { threads: 1 });
  onPool = createReadModel(snapshot, { positionWindow: (t) => pool.positionWindow(t), seriesBlocks: (t) => pool.seriesBlocks(t) });
  inThread = createReadModel(snapshot);
  const w = snapshot.world;
  positions = w.events.dict.wallets.values
    .flatMap((wallet) => walletPositionList(w, wallet).map((p) => ({ wallet, vault: p.vault_id })))
    .filter((p) => onPool.positionSeriesMissing(p.wallet, p.vault) === null);
  vaults = [...w.series.keys()].filter((id) => onPool.hasVault(id) && w.series.get(id)!.length > 1000);
});
afterAll(async () => {
  await pool?.close();
});

/** Identity bytes of an answer's parts, and what its deflate pieces inflate to. */
function bytesOf(a: { parts: Buffer[]; deflated?: () => DeflatedItems }): { identity: string; inflated: string | null } {
  const identity = Buffer.concat(a.parts);
  if (!a.deflated) return { identity: identity.toString(), inflated: null };
  const d = a.deflated();
  const stream: Buffer[] = [];
  d.src.forEach((src, i) => {
    const piece = src.subarray(d.at[2 * i]!, d.at[2 * i + 1]!);
    if (d.stored[i]) {
      const header = Buffer.alloc(5);
      storedHeader(header, 0, piece.length, false);
      stream.push(header);
    }
    stream.push(piece);
  });
  stream.push(Buffer.from([1, 0, 0, 0xff, 0xff]));
  expect(d.length).toBe(identity.length);
  return { identity: identity.toString(), inflated: inflateRawSync(Buffer.concat(stream)).toString() };
}

const windowArb = fc.record({
  granularity: fc.constantFrom('hour' as const, 'day' as const),
  order: fc.constantFrom('asc' as const, 'desc' as const),
  limit: fc.integer({ min: IN_THREAD_POINTS + 1, max: 3000 }),
  from: fc.double({ min: 0, max: 0.9, noNaN: true }),
});

describe('heavy reads on the compute pool', () => {
  it('long position windows: the pool answers what the serving thread would, and the deflated run inflates to it', async () => {
    expect(positions.length).toBeGreaterThan(5);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...positions), windowArb, async ({ wallet, vault }, w) => {
        const s = snapshot.world.series.get(vault)!;
        const q: WindowQuery = { granularity: w.granularity, order: w.order, limit: w.limit, start: s.ts[Math.floor(w.from * (s.length - 1))]! };
        const a = await onPool.positionWindow(wallet, vault, q);
        const b = await inThread.positionWindow(wallet, vault, q);
        expect({ ...a, parts: undefined, deflated: undefined }).toEqual({ ...b, parts: undefined, deflated: undefined });
        const got = bytesOf(a);
        expect(got.identity).toBe(Buffer.concat(b.parts).toString());
        if (got.inflated !== null) expect(got.inflated).toBe(got.identity);
      }),
      { numRuns: 40 },
    );
  });

  it('a finished position window is kept: the same window again is answered at once', async () => {
    const { wallet, vault } = positions[0]!;
    const q: WindowQuery = { granularity: 'hour', order: 'asc', limit: 5000 };
    const first = onPool.positionWindow(wallet, vault, q);
    const again = await first;
    const kept = onPool.positionWindow(wallet, vault, q);
    expect(kept instanceof Promise).toBe(false);
    expect(Buffer.concat((kept as Awaited<typeof first>).parts).equals(Buffer.concat(again.parts))).toBe(true);
  });

  it('cold blocks of long vault windows are built on the pool: same bytes as built in-thread, and kept after', async () => {
    expect(vaults.length).toBeGreaterThan(0);
    let cold = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...vaults), windowArb, async (vault, w) => {
        const s = snapshot.world.series.get(vault)!;
        const q: WindowQuery = { granularity: w.granularity, order: w.order, limit: w.limit, start: s.ts[Math.floor(w.from * (s.length - 1))]! };
        const answer = onPool.vaultWindow(vault, q);
        if (answer instanceof Promise) cold++;
        const a = await answer;
        const b = await inThread.vaultWindow(vault, q);
        expect({ ...a, parts: undefined, deflated: undefined }).toEqual({ ...b, parts: undefined, deflated: undefined });
        const got = bytesOf(a);
        expect(got.identity).toBe(bytesOf(b).identity);
        if (got.inflated !== null) expect(got.inflated).toBe(got.identity);
        // the blocks are kept now: the same window is sliced at once
        expect(onPool.vaultWindow(vault, q) instanceof Promise).toBe(false);
      }),
      { numRuns: 30 },
    );
    expect(cold).toBeGreaterThan(0);
  });

  it(`past ${POSITION_WINDOWS_IN_FLIGHT} windows being computed, a new one is refused with 503 NOT_READY`, () => {
    // a pool that never answers: every window stays in flight
    const stuck = createReadModel(snapshot, { positionWindow: () => new Promise(() => undefined) });
    const { wallet, vault } = positions.find((p) => snapshot.world.series.get(p.vault)!.length > 2 * POSITION_WINDOWS_IN_FLIGHT + IN_THREAD_POINTS)!;
    const s = snapshot.world.series.get(vault)!;
    for (let k = 0; k < POSITION_WINDOWS_IN_FLIGHT; k++) {
      const pending = stuck.positionWindow(wallet, vault, { granularity: 'hour', order: 'asc', limit: IN_THREAD_POINTS + 1 + k, start: s.ts[0]! });
      expect(pending instanceof Promise).toBe(true);
    }
    // the same window again shares its task; a new one is refused
    expect(stuck.positionWindow(wallet, vault, { granularity: 'hour', order: 'asc', limit: IN_THREAD_POINTS + 1, start: s.ts[0]! }) instanceof Promise).toBe(
      true,
    );
    expect(() => stuck.positionWindow(wallet, vault, { granularity: 'hour', order: 'desc', limit: IN_THREAD_POINTS + 1, start: s.ts[0]! })).toThrow(
      /position histories are being computed now; retry in a second/,
    );
  });
});
