// The columnar price loader (issue #11's cold start) reads back exactly what DuckDB holds: each
// token's hours ascending, and each price as DuckDB's own text of the decimal with trailing
// zeros trimmed (the oracle), whatever the sign, size or insertion order; the price table it
// primes from the 128-bit words equals the one built by parsing those strings; a slice loads
// only the rows after its hour.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUnits, trimZeros } from '../../model/format/numbers.js';
import { I128Array } from '../../model/int128.js';
import { priceKey, type PriceSeries } from '../../model/world.js';
import { createStore, type Store } from '../../store/store.js';
import { testCommon } from '../../test/helpers/common.js';
import { usdTable } from '../positions/usdPriceCache.js';
import { loadPrices } from './loadWorld.js';

let store: Store;
beforeAll(async () => {
  store = await createStore(testCommon(), { path: ':memory:' });
});
afterAll(async () => {
  await store.close();
});

const E18 = 10n ** 18n;
const MAX = 10n ** 38n - 1n;
const T0 = 1_700_000_400 - (1_700_000_400 % 3600);

/** The unscaled value as a DECIMAL(38, 18) literal, written without the code under test. */
const literal = (v: bigint) => `${v < 0n ? '-' : ''}${(v < 0n ? -v : v) / E18}.${((v < 0n ? -v : v) % E18).toString().padStart(18, '0')}`;

const priceArb = fc.oneof(
  fc.bigInt({ min: -MAX, max: MAX }),
  fc.bigInt({ min: -(10n ** 20n), max: 10n ** 22n }),
  fc.constantFrom(0n, 1n, -1n, E18, -E18, 10n ** 36n, MAX, -MAX, 2n ** 64n, 2n ** 64n - 1n, 2n ** 63n, 1_500_000_000_000_000_000n),
);

interface Token {
  chain_id: number;
  address: string;
  rows: { hour: number; usd: bigint }[];
}

const tokensArb = fc
  .uniqueArray(
    fc.record({
      chain_id: fc.constantFrom(1, 10, 8453, 42161),
      address: fc.constantFrom('0xaaaa', '0xbbbb', '0x00cc', '0xdd'),
      hourly: fc.boolean(),
      rows: fc.array(fc.record({ hour: fc.integer({ min: 0, max: 400 }), usd: priceArb }), { minLength: 1, maxLength: 40 }),
    }),
    { selector: (t) => `${t.chain_id}:${t.address}`, minLength: 1, maxLength: 4 },
  )
  .map((ts) =>
    ts.map(({ chain_id, address, hourly, rows }): Token => {
      // hours unique per token; an hourly token's are 0..n-1 (the table's arithmetic as-of index)
      const seen = new Set<number>();
      const unique = rows.filter((r) => !seen.has(r.hour) && seen.add(r.hour));
      return { chain_id, address, rows: hourly ? unique.map((r, i) => ({ hour: i, usd: r.usd })) : unique };
    }),
  );

async function write(tokens: Token[], order: number[]): Promise<void> {
  await store.run('test.clear', 'DELETE FROM prices');
  const all = tokens.flatMap((t) =>
    t.rows.map((r) => `(${t.chain_id}, '${t.address}', to_timestamp(${T0 + 3600 * r.hour})::TIMESTAMP, '${literal(r.usd)}'::DECIMAL(38, 18), 'test')`),
  );
  // inserted in a random order (rows sorted by random keys), not the load's
  const keyed = all.map((row, i) => ({ row, key: order.length === 0 ? i : order[i % order.length]!, i }));
  keyed.sort((a, b) => a.key - b.key || a.i - b.i);
  await store.run('test.insert', `INSERT INTO prices VALUES ${keyed.map((k) => k.row).join(', ')}`);
}

/** What DuckDB itself says: every token's rows by hour, the price as its text, trimmed. */
async function oracle(after = new Map<string, number>()): Promise<Map<string, { ts: number[]; usd: string[] }>> {
  const rows = await store.rows<{ chain_id: number; address: string; ts: number; usd: string }>(
    'test.oracle',
    'SELECT chain_id::DOUBLE AS chain_id, address, epoch(ts)::DOUBLE AS ts, usd::VARCHAR AS usd FROM prices ORDER BY chain_id, address, ts',
  );
  const out = new Map<string, { ts: number[]; usd: string[] }>();
  for (const r of rows) {
    const key = priceKey(r.chain_id, r.address);
    if (after.has(key) && r.ts <= after.get(key)!) continue;
    if (!out.has(key)) out.set(key, { ts: [], usd: [] });
    out.get(key)!.ts.push(r.ts);
    out.get(key)!.usd.push(trimZeros(r.usd));
  }
  return out;
}

const shape = (m: Map<string, PriceSeries>) => new Map([...m].map(([k, p]) => [k, { ts: [...p.ts], usd: p.usd }]));

describe('loadPrices', () => {
  it("reads every price back as DuckDB's exact text, hours ascending, whatever the insertion order", async () => {
    await fc.assert(
      fc.asyncProperty(tokensArb, fc.array(fc.nat(), { maxLength: 200 }), async (tokens, order) => {
        await write(tokens, order);
        const loaded = await loadPrices(store);
        expect(shape(loaded)).toEqual(await oracle());
        for (const p of loaded.values()) {
          expect([...p.usd_f]).toEqual(p.usd.map(Number));
          // the table primed from the words is the one parsing the strings builds
          const primed = usdTable(p);
          const parsed = usdTable({ ...p });
          expect(primed).not.toBe(parsed);
          expect({ ...primed, prices: null }).toEqual({ ...parsed, prices: null });
        }
      }),
      { numRuns: 40 },
    );
  });

  it("a slice loads only its token's rows after its hour (all of them with no hour)", async () => {
    await fc.assert(
      fc.asyncProperty(tokensArb, fc.integer({ min: -1, max: 400 }), async (tokens, cut) => {
        await write(tokens, []);
        const t = tokens[0]!;
        const after = cut < 0 ? null : T0 + 3600 * cut;
        const loaded = await loadPrices(store, [{ chain_id: t.chain_id, address: t.address, after }]);
        const want = await oracle(new Map(after === null ? [] : [[priceKey(t.chain_id, t.address), after]]));
        const key = priceKey(t.chain_id, t.address);
        const expected = want.get(key);
        expect(shape(loaded)).toEqual(expected ? new Map([[key, expected]]) : new Map());
      }),
      { numRuns: 25 },
    );
  });

  it("formats 128-bit two's-complement words as the shortest exact decimal", () => {
    fc.assert(
      fc.property(priceArb, (v) => {
        const words = BigInt.asUintN(128, v);
        const text = formatUnits(I128Array.from(new BigUint64Array([words & ((1n << 64n) - 1n), words >> 64n])).get(0), 18);
        expect(text).toBe(trimZeros(literal(v)).replace(/^-0$/, '0'));
        expect(text).not.toMatch(/\.$|\.\d*0$|^-0$/);
      }),
      { numRuns: 500 },
    );
  });
});
