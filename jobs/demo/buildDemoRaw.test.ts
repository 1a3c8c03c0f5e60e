// The pipelined, column-batched demo load against the row-at-a-time path it replaced (the
// oracle): on real DuckDB files, every raw table holds the same rows in the same table order
// (rowid), for the worker and the inline mode and across piece boundaries.
import fc from 'fast-check';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RAW_AND_REGISTRY_TABLES } from '../../store/publishInputs.js';
import { createRawWriter } from '../../store/rawWriter.js';
import { writeRegistry } from '../../store/registryStore.js';
import { createStore, type Store } from '../../store/store.js';
import { tempDir, testCommon } from '../../test/helpers/common.js';
import { buildDemoRaw, type BuildDemoRawOptions, type DemoRawCounts } from './buildDemoRaw.js';
import { buildDemoRegistry, simulateDemo, type DemoParams } from './index.js';

const common = testCommon();
const dir = tempDir('vaultd-demo-raw-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NOW = Date.parse('2026-06-01T00:00:00Z') / 1000;
let files = 0;

/** The row-at-a-time load: RawWriter's chunk loaders fed by the simulation on this thread. */
async function oracle(store: Store, params: DemoParams): Promise<DemoRawCounts> {
  const registry = buildDemoRegistry(params);
  await writeRegistry(store, registry);
  const writer = await createRawWriter(store, 'append');
  simulateDemo(params, registry, writer.sink);
  return writer.finish();
}

async function pipelined(store: Store, params: DemoParams, opts: BuildDemoRawOptions): Promise<DemoRawCounts> {
  const registry = buildDemoRegistry(params);
  await writeRegistry(store, registry);
  return (await buildDemoRaw(store, params, registry, opts)).added;
}

/** Per table: row count and an md5 of every row in rowid order (so order differences show). */
async function ordered(store: Store): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const t of RAW_AND_REGISTRY_TABLES) {
    const r = await store.one<{ n: bigint; h: string | null }>(
      't',
      `SELECT count(*) AS n, md5(coalesce(string_agg(t::VARCHAR, chr(10) ORDER BY rowid), '')) AS h FROM ${t} t`,
    );
    out[t] = `${r!.n}:${r!.h}`;
  }
  return out;
}

async function build(load: (s: Store) => Promise<DemoRawCounts>): Promise<{ tables: Record<string, string>; counts: DemoRawCounts }> {
  const path = join(dir, `w${files++}.duckdb`);
  const store = await createStore(common, { path });
  try {
    const counts = await load(store);
    return { tables: await ordered(store), counts };
  } finally {
    await store.close();
    rmSync(path, { force: true });
    rmSync(`${path}.wal`, { force: true });
  }
}

describe('buildDemoRaw: the same tables as the row-at-a-time load', () => {
  it('equal tables, order included, for small scale worlds (fast-check), worker and inline, small pieces', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.nat({ max: 2 ** 31 }),
          vaults: fc.integer({ min: 1, max: 5 }),
          wallets: fc.integer({ min: 1, max: 120 }),
          days: fc.integer({ min: 1, max: 12 }),
        }),
        fc.constantFrom<'worker' | 'inline'>('worker', 'inline'),
        fc.integer({ min: 1, max: 20_000 }),
        async (p, mode, pieceRows) => {
          const params: DemoParams = { ...p, now: NOW };
          const want = await build((s) => oracle(s, params));
          const got = await build((s) => pipelined(s, params, { mode, pieceRows }));
          expect(got.tables).toEqual(want.tables);
          expect(got.counts).toEqual(want.counts);
        },
      ),
      { numRuns: 8 },
    );
  });

  it('equal tables for the curated world (every vault type, NULL unit prices and counterparties), pieces of 10,000 rows', async () => {
    const params: DemoParams = { seed: 42, now: NOW, vaults: null, wallets: 80, days: 45 };
    const want = await build((s) => oracle(s, params));
    const got = await build((s) => pipelined(s, params, { mode: 'worker', pieceRows: 10_000 }));
    expect(got.tables).toEqual(want.tables);
    expect(got.counts).toEqual(want.counts);
    expect(got.counts.snapshots).toBeGreaterThan(15_000);
  });
});
