// A server's cold start publishes before the positions' returns are made (engine option
// deferReturns; positionItems.ts returnsLater): they are made once on the compute pool when
// first asked for, and everything that needs them waits — an include=returns answer, the
// snapshot files, the next publish's merge. Every answer equals the one of a publish that made
// them inline, byte for byte. The pool's returns task is held at a gate, so the waits are
// exercised, not raced; end to end, include=returns asked the moment a server listens answers
// what the server answers later and what a restart on its saved files answers. A pool that fails
// the returns task leaves them to the same function in-thread.
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, inThreadCompute, type Engine, type SeriesCompute } from '../engine/engine.js';
import { createComputePool, type ComputePool } from '../engine/pool/computePool.js';
import type { Snapshot } from '../engine/publish/buildSnapshot.js';
import type { ReadModel } from '../engine/publish/index.js';
import { createReadModel } from '../engine/publish/readModel.js';
import { readSnapshotDir, writeSnapshotDir } from '../engine/publish/snapshotFiles.js';
import type { PositionsInput } from '../engine/positions/positionItems.js';
import { createDemoWorld } from '../jobs/demo/createDemoWorld.js';
import { extendDemoWorld } from '../jobs/demo/extendDemoWorld.js';
import type { Store } from '../store/store.js';
import { withStore } from '../store/storeHandle.js';
import { smallDemoDb, stopChildren, vaultd, vaultdSpawn, waitForListening } from './helpers/cli.js';
import { tempDir, testCommon } from './helpers/common.js';

const common = testCommon();
const NOW = Date.parse('2026-03-01T00:00:00Z') / 1000;
const HOUR = 3600;
let dir: string;
let path: string;
let pool: ComputePool;
const access = <T>(work: (store: Store) => Promise<T>) => withStore(common, { path }, work);

beforeAll(async () => {
  dir = tempDir('vaultd-returns-');
  path = join(dir, 'world.duckdb');
  await createDemoWorld(common, { path, params: { seed: 5, now: NOW, vaults: null, wallets: 60, days: 40 }, force: true });
  pool = createComputePool(common, { threads: 1 });
});

afterAll(async () => {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The pool's positions tasks, those making returns alone held until `open()`; counted. */
function gatedCompute(): SeriesCompute & { open(): void; returnsTasks: () => number } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let returnsTasks = 0;
  return {
    run: inThreadCompute.run,
    positions: (task: PositionsInput) => {
      if (task.returns !== true) return pool.positions(task);
      returnsTasks++;
      return gate.then(() => pool.positions(task));
    },
    open,
    returnsTasks: () => returnsTasks,
  };
}

/** Whether `p` has settled after the event loop ran everything queued (no timer involved). */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let k = 0; k < 20; k++) await new Promise((resolve) => setImmediate(resolve));
  return done;
}

/** Every wallet's positions page (hidden vaults too) with returns, and with FIFO and returns. */
async function answers(model: ReadModel, wallets: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const wallet of wallets) {
    for (const fifo of [false, true]) {
      const a = await model.positionsWith(wallet, { includeHidden: true, after: 0, limit: 500 }, { fifo, returns: true });
      out.push(`${wallet} ${fifo} ${a.count} ${Buffer.concat(a.parts).toString()}`);
    }
  }
  return out;
}

const walletsOf = (s: Snapshot) => s.world.events.dict.wallets.values.slice();
const returnsOf = (s: Snapshot) => {
  const r = s.world.positionItems!.returns!;
  return { json: Buffer.from(r.json).toString(), offsets: [...r.offsets] };
};

describe('deferred position returns', () => {
  let inline: Snapshot;
  beforeAll(async () => {
    const engine = createEngine(testCommon(), access, {
      clock: () => NOW,
      apyColumns: false,
      compute: { run: inThreadCompute.run, positions: (t) => pool.positions(t) },
    });
    await engine.recomputeFull();
    inline = engine.current()!;
    expect(inline.world.positionItems!.returns).not.toBeNull();
  });

  it('a publish serves before its returns; include=returns waits for them and equals the inline answer', async () => {
    const compute = gatedCompute();
    const engine = createEngine(testCommon(), access, { clock: () => NOW, apyColumns: false, compute, deferReturns: true });
    await engine.recomputeFull();
    const snapshot = engine.current()!;
    const items = snapshot.world.positionItems!;
    expect(items.returns).toBeNull();
    expect(compute.returnsTasks()).toBe(0); // made when first asked for, not at publish
    const model = createReadModel(snapshot);
    const wallets = walletsOf(snapshot);
    // the plain answers are there at once, equal to the inline publish's
    const plain = createReadModel(inline);
    for (const w of wallets) {
      const q = { includeHidden: true, after: 0, limit: 500 };
      expect(Buffer.concat(model.positions(w, q).parts).toString()).toBe(Buffer.concat(plain.positions(w, q).parts).toString());
    }
    const asked = answers(model, wallets);
    expect(await settled(asked)).toBe(false);
    expect(compute.returnsTasks()).toBe(1);
    compute.open();
    expect(await asked).toEqual(await answers(plain, wallets));
    expect(returnsOf(snapshot)).toEqual(returnsOf(inline));
    // made once: later asks and the files find them made
    await items.returnsLater!();
    expect(compute.returnsTasks()).toBe(1);
  });

  it('the snapshot files wait for the returns and hold the inline publish’s', async () => {
    const compute = gatedCompute();
    const engine = createEngine(testCommon(), access, { clock: () => NOW, apyColumns: false, compute, deferReturns: true });
    await engine.recomputeFull();
    const snapshot = engine.current()!;
    const out = join(dir, 'files');
    const writing = writeSnapshotDir(out, snapshot.world, { generation: snapshot.generation, refreshed_at_s: snapshot.refreshed_at_s, stamp: null }, null);
    expect(await settled(writing)).toBe(false);
    compute.open();
    await writing;
    const read = await readSnapshotDir(out);
    const r = read.world.positionItems!.returns!;
    expect({ json: Buffer.from(r.json).toString(), offsets: [...r.offsets] }).toEqual(returnsOf(inline));
  });

  it('a pool that fails the returns task: they are made in-thread, the same bytes', async () => {
    let failed = 0;
    const compute: SeriesCompute = {
      run: inThreadCompute.run,
      positions: (task) => (task.returns === true ? Promise.reject(new Error(`pool down (${++failed})`)) : pool.positions(task)),
    };
    const engine = createEngine(testCommon(), access, { clock: () => NOW, apyColumns: false, compute, deferReturns: true });
    await engine.recomputeFull();
    const snapshot = engine.current()!;
    expect(await answers(createReadModel(snapshot), walletsOf(snapshot))).toEqual(await answers(createReadModel(inline), walletsOf(snapshot)));
    expect(failed).toBe(1);
    expect(returnsOf(snapshot)).toEqual(returnsOf(inline));
  });

  it('a refresh after a deferred publish waits for its returns and merges them: equal to a full inline recompute', async () => {
    const compute = gatedCompute();
    const engine: Engine = createEngine(testCommon(), access, { clock: () => NOW, apyColumns: false, compute, deferReturns: true });
    await engine.recomputeFull();
    const first = engine.current()!;
    expect(first.world.positionItems!.returns).toBeNull();
    const ext = await access((store) => extendDemoWorld(store, NOW + 30 * HOUR));
    expect(ext).not.toBeNull();
    const refreshing = engine.refresh();
    expect(await settled(refreshing)).toBe(false);
    compute.open();
    expect(await refreshing).not.toBeNull();
    const refreshed = engine.current()!;
    expect(refreshed).not.toBe(first);
    const full = createEngine(testCommon(), access, {
      clock: () => NOW,
      apyColumns: false,
      compute: { run: inThreadCompute.run, positions: (t) => pool.positions(t) },
    });
    await full.recomputeFull();
    expect(returnsOf(refreshed)).toEqual(returnsOf(full.current()!));
    expect(await answers(createReadModel(refreshed), walletsOf(refreshed))).toEqual(await answers(createReadModel(full.current()!), walletsOf(refreshed)));
  });
});

describe('vaultd serve: include=returns asked the moment it listens', () => {
  const children: ChildProcess[] = [];
  let db: string;
  let wallets: string[];
  beforeAll(() => {
    db = join(dir, 'served.duckdb');
    smallDemoDb(db);
    const r = vaultd(['wallets', '--db', db, '--limit', '20']);
    expect(r.status, r.stderr).toBe(0);
    wallets = r.stdout.trim().split('\n');
  });
  afterAll(() => stopChildren(children));

  /**
   * A server on `db`: every wallet's positions with returns, asked all at once as it listens;
   * with `files`, asked again once it has written its snapshot files (their returns made).
   */
  async function serve(files: boolean): Promise<{ first: string[]; later: string[] | null; log: string }> {
    const child = vaultdSpawn(['serve', '--db', db, '--port', '0', '--no-jobs']);
    children.push(child);
    let log = '';
    const written = new Promise<void>((resolve) =>
      child.stderr!.on('data', (d: Buffer) => {
        log += d.toString();
        if (log.includes('"msg":"snapshot files written"')) resolve();
      }),
    );
    const port = await waitForListening(child);
    const base = `http://127.0.0.1:${port}`;
    const ask = () =>
      Promise.all(
        wallets.map(async (w) => {
          const res = await fetch(`${base}/v1/users/${w}/positions?include=returns&include_hidden=true&limit=500`, { headers: { 'x-request-id': 'same' } });
          return `${res.status} ${res.headers.get('etag')} ${await res.text()}`;
        }),
      );
    const first = await ask();
    let later: string[] | null = null;
    if (files) {
      await written;
      later = await ask();
    }
    await stopChildren([child]);
    return { first, later, log };
  }

  it('equals what it answers later and what a restart on its saved files answers', async () => {
    const cold = await serve(true);
    expect(cold.log).toContain('"msg":"recomputed"');
    expect(cold.first).toHaveLength(20);
    for (const a of cold.first) expect(a).toMatch(/^200 /);
    expect(cold.first.filter((a) => a.includes('"returns":{"twr_pct"')).length).toBeGreaterThan(5);
    expect(cold.first).toEqual(cold.later);
    const restart = await serve(false);
    expect(restart.log).toContain('published snapshot restored from its files');
    expect(restart.first).toEqual(cold.first);
  });
});
