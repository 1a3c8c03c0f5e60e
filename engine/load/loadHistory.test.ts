// The columnar history loader (the cold start's follow-up to issues #34–#36) reads back what the
// row-object reads it replaced made of the same tables (the oracle below): every vault's
// allocation snapshots oldest first with their rows by position, every TVL source's readings
// oldest first with values trimmed, and every request's terms in the table's order — whatever
// the physical order, with NULLs, repeated targets and strings shared across rows.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trimZeros } from '../../model/format/numbers.js';
import { requestTermsKey, type RequestTerms, type World } from '../../model/world.js';
import type { AllocationRow } from '../../store/allocations.js';
import { createStore, type Store } from '../../store/store.js';
import { testCommon } from '../../test/helpers/common.js';
import { loadHistory, loadRequestTerms } from './loadHistory.js';

let store: Store;
beforeAll(async () => {
  store = await createStore(testCommon(), { path: ':memory:' });
});
afterAll(async () => {
  await store.close();
});

const T0 = 1_700_000_400 - (1_700_000_400 % 3600);
const sql = (s: string | null) => (s === null ? 'NULL' : `'${s.replaceAll("'", "''")}'`);
const double = (x: number) => `'${x}'::DOUBLE`;
// a big integer as text: `-N::HUGEINT` casts N before negating it, and 2^127 is out of range
// (so -2^127, which fast-check draws, failed the insert)
const huge = (x: bigint) => `'${x}'::HUGEINT`;

const targets = [
  { address: '0xaaaa', chain_id: 1, kind: 'asset', protocol: { id: 'morpho-blue', name: 'Morpho Blue' } },
  { address: '0xbbbb', chain_id: 10, kind: 'vault', symbol: 'USDC-LP', name: "O'Brien pool" },
  { kind: 'idle' },
  { address: '0xcccc', chain_id: 8453, kind: 'asset', strategy_type: 'morpho_market', weights: [1, 2.5, -3] },
];

const allocationArb = fc.record({
  vault: fc.constantFrom('v-b', 'v-a', 'vault-é', 'v-c'),
  hour: fc.integer({ min: 0, max: 30 }),
  position: fc.integer({ min: 0, max: 6 }),
  category: fc.constantFrom('lending', 'idle', 'lp', 'rwa'),
  target: fc.integer({ min: 0, max: targets.length - 1 }),
  allocation: fc.double({ noNaN: true, noDefaultInfinity: true }),
  amount: fc.double({ min: -1e12, max: 1e18, noNaN: true }),
  amount_usd: fc.option(fc.double({ min: -1e12, max: 1e18, noNaN: true })),
  order: fc.integer(),
});
const readingArb = fc.record({
  source: fc.constantFrom('llama:b', 'llama:a', 'manual'),
  hour: fc.integer({ min: 0, max: 500 }),
  usd: fc.option(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n })),
  error: fc.option(fc.constantFrom('fetch failed: ECONNREFUSED', "HTTP 500 'oops'", '')),
  order: fc.integer(),
});
const termsArb = fc.record({
  vault: fc.constantFrom('v-b', 'v-a', 'v-c'),
  deadline: fc.option(fc.integer({ min: 0, max: 2 ** 40 })),
  tip: fc.option(fc.bigInt({ min: -(2n ** 127n), max: 2n ** 127n - 1n })),
  order: fc.integer(),
});

type Allocation = typeof allocationArb extends fc.Arbitrary<infer A> ? A : never;
type Reading = typeof readingArb extends fc.Arbitrary<infer R> ? R : never;
type Terms = typeof termsArb extends fc.Arbitrary<infer T> ? T : never;

/** Rows inserted in the order of their random keys, not the load's. */
const shuffled = <T extends { order: number }>(rows: T[]) => rows.map((r, i) => ({ r, i })).sort((a, b) => a.r.order - b.r.order || a.i - b.i);

async function write(allocations: Allocation[], readings: Reading[], terms: Terms[]): Promise<void> {
  await store.run('test.clear', 'DELETE FROM allocations; DELETE FROM tvl_source_values; DELETE FROM request_terms');
  // (vault, hour, position) is one row, as the table's writers keep it; (source, hour) one reading
  const seen = new Set<string>();
  const rows = shuffled(allocations).filter(({ r }) => !seen.has(`${r.vault}|${r.hour}|${r.position}`) && seen.add(`${r.vault}|${r.hour}|${r.position}`));
  if (rows.length > 0)
    await store.run(
      'test.insert',
      `INSERT INTO allocations VALUES ${rows
        .map(
          ({ r }) =>
            `(${sql(r.vault)}, to_timestamp(${T0 + 3600 * r.hour})::TIMESTAMP, ${r.position}, ${sql(r.category)}, ${sql(JSON.stringify(targets[r.target]))}::JSON, ${double(r.allocation)}, ${double(r.amount)}, ${r.amount_usd === null ? 'NULL' : double(r.amount_usd)})`,
        )
        .join(', ')}`,
    );
  const hours = new Set<string>();
  const reads = shuffled(readings).filter(({ r }) => !hours.has(`${r.source}|${r.hour}`) && hours.add(`${r.source}|${r.hour}`));
  if (reads.length > 0)
    await store.run(
      'test.insert',
      `INSERT INTO tvl_source_values VALUES ${reads
        .map(
          ({ r }) =>
            `(${sql(r.source)}, to_timestamp(${T0 + 3600 * r.hour})::TIMESTAMP, ${r.usd === null ? 'NULL' : `(${huge(r.usd)} / 1000000)::DECIMAL(38, 6)`}, ${sql(r.error)})`,
        )
        .join(', ')}`,
    );
  if (terms.length > 0)
    await store.run(
      'test.insert',
      `INSERT INTO request_terms VALUES ${shuffled(terms)
        .map(
          ({ r, i }) =>
            `(1, ${sql(r.vault)}, '0x${i.toString(16).padStart(4, '0')}', ${i}, ${r.deadline === null ? 'NULL' : `to_timestamp(${r.deadline})::TIMESTAMP`}, ${r.tip === null ? 'NULL' : huge(r.tip)})`,
        )
        .join(', ')}`,
    );
}

/** What the row-object reads made of the tables (the loader before it read columns). */
async function oracle(): Promise<{ history: NonNullable<World['history']>; terms: Map<string, RequestTerms> }> {
  const allocations: NonNullable<World['history']>['allocations'] = new Map();
  for (const r of await store.rows<AllocationRow>(
    'test.oracle',
    `SELECT vault_id, epoch(as_of)::DOUBLE AS as_of, category, target::VARCHAR AS target, allocation, amount, amount_usd
       FROM allocations ORDER BY vault_id, as_of, position`,
  )) {
    let snaps = allocations.get(r.vault_id);
    if (!snaps) allocations.set(r.vault_id, (snaps = []));
    let last = snaps.at(-1);
    if (!last || last.as_of !== r.as_of) snaps.push((last = { as_of: r.as_of, items: [] }));
    last.items.push({ category: r.category, target: JSON.parse(r.target), allocation: r.allocation, amount: r.amount, amount_usd: r.amount_usd });
  }
  const tvlValues: NonNullable<World['history']>['tvlValues'] = new Map();
  for (const r of await store.rows<{ source_id: string; ts: number; usd: string | null; error: string | null }>(
    'test.oracle',
    'SELECT source_id, epoch(ts)::DOUBLE AS ts, usd::VARCHAR AS usd, error FROM tvl_source_values ORDER BY source_id, ts',
  )) {
    let list = tvlValues.get(r.source_id);
    if (!list) tvlValues.set(r.source_id, (list = []));
    list.push({ ts: r.ts, usd: r.usd === null ? null : trimZeros(r.usd), error: r.error });
  }
  const terms = new Map<string, RequestTerms>();
  for (const r of await store.rows<{ vault_id: string; request_hash: string; deadline: number | null; solver_tip: string | null }>(
    'test.oracle',
    'SELECT vault_id, request_hash, epoch(deadline)::DOUBLE AS deadline, solver_tip::VARCHAR AS solver_tip FROM request_terms',
  ))
    terms.set(requestTermsKey(r.vault_id, r.request_hash), { deadline: r.deadline, solver_tip: r.solver_tip === null ? null : BigInt(r.solver_tip) });
  return { history: { allocations, tvlValues }, terms };
}

/** Maps as their entries in order (toEqual alone ignores a Map's order), objects as their JSON text. */
const text = (x: unknown) => JSON.stringify(x, (_, v) => (v instanceof Map ? [...v] : typeof v === 'bigint' ? `${v}n` : v));

describe('loadHistory, loadRequestTerms', () => {
  it('equal the row-object reads, in the same order, whatever the physical order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(allocationArb, { maxLength: 120 }),
        fc.array(readingArb, { maxLength: 60 }),
        fc.array(termsArb, { maxLength: 60 }),
        async (allocations, readings, terms) => {
          await write(allocations, readings, terms);
          const want = await oracle();
          const history = await loadHistory(store);
          const loaded = await loadRequestTerms(store);
          expect(text(history)).toBe(text(want.history));
          expect(text(loaded)).toBe(text(want.terms));
        },
      ),
      {
        numRuns: 40,
        // the HUGEINT bounds as solver tips, always (a draw that reached them once failed the insert)
        examples: [
          [
            [],
            [],
            [
              { vault: 'v-a', deadline: null, tip: -(2n ** 127n), order: 0 },
              { vault: 'v-b', deadline: 0, tip: 2n ** 127n - 1n, order: 1 },
            ],
          ],
        ],
      },
    );
  });

  it('reads more rows than one chunk holds (a vault and a target spanning chunks)', async () => {
    const many: Allocation[] = Array.from({ length: 5000 }, (_, i) => ({
      vault: i < 2500 ? 'v-a' : 'v-b',
      hour: Math.floor(i / 7),
      position: i % 7,
      category: i % 3 === 0 ? 'idle' : 'lending',
      target: i % targets.length,
      allocation: i / 5000,
      amount: i * 1.5,
      amount_usd: i % 11 === 0 ? null : i * 2.25,
      order: (i * 7919) % 5003,
    }));
    const readings: Reading[] = Array.from({ length: 3000 }, (_, i) => ({
      source: 'llama:a',
      hour: i,
      usd: i % 5 === 0 ? null : BigInt(i) * 1_000_000n + 500n,
      error: i % 5 === 0 ? 'fetch failed: ECONNREFUSED' : null,
      order: (i * 31) % 3001,
    }));
    const terms: Terms[] = Array.from({ length: 3000 }, (_, i) => ({
      vault: i % 2 === 0 ? 'v-a' : 'v-c',
      deadline: i % 4 === 0 ? null : 1_700_000_000 + i,
      tip: i % 3 === 0 ? null : BigInt(i) * 10n ** 20n,
      order: (i * 17) % 3001,
    }));
    await write(many, readings, terms);
    const want = await oracle();
    const history = await loadHistory(store);
    expect(history.allocations.get('v-a')).toHaveLength(Math.floor(2499 / 7) + 1); // hours 0..357
    expect(history.tvlValues.get('llama:a')).toHaveLength(3000);
    expect(text(history)).toBe(text(want.history));
    expect(text(await loadRequestTerms(store))).toBe(text(want.terms));
  });
});
