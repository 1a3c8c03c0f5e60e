// The scale bench's exact arithmetic in generated SQL (bench/scale/sqlLimbs.ts) against bigint:
// products, sums, differences, quotients by a HUGEINT and by powers of ten, half-even rounding,
// reading back as HUGEINT, and the market-value rule, far past HUGEINT; and every bound raising
// instead of giving a wrong value.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as L from '../bench/scale/sqlLimbs.js';
import { sharesToAssets } from '../engine/positions/marketValue.js';
import { halfEven } from '../model/format/numbers.js';
import { createStore, type Store } from '../store/store.js';
import { testCommon } from './helpers/common.js';

const MIN = -(1n << 127n);
const MAX = (1n << 127n) - 1n;
const wide = (bits: number) =>
  fc.oneof(
    fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n }),
    fc.bigInt({ min: 0n, max: 1n << 40n }),
    fc.constantFrom(0n, 1n, (1n << BigInt(bits)) - 1n, 1n << BigInt(bits - 1)),
  );
const hugeint = fc.oneof(fc.bigInt({ min: MIN, max: MAX }), fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.constantFrom(MIN, MAX, 0n, 1n, -1n));

/** limbs of x ≥ 0 as n BIGINT literals */
const W = BigInt(L.LIMB_BITS);
const limbsOf = (x: bigint, count: number) => Array.from({ length: count }, (_, i) => `${(x >> (W * BigInt(i))) & ((1n << W) - 1n)}::BIGINT`);
const limbsValue = (row: Record<string, unknown>, a: L.Limbs) =>
  Array.from({ length: a.n }, (_, i) => BigInt(row[`${a.name}${i}`] as bigint) << (W * BigInt(i))).reduce((x, y) => x + y, 0n);
const hugeLit = (x: bigint) => `'${x}'::HUGEINT`;

let store: Store;
beforeAll(async () => {
  store = await createStore(testCommon(), { path: ':memory:' });
});
afterAll(async () => {
  await store?.close();
});

/** Rows of `columns` (SQL literals per case) through the layers, in case order. */
async function run(columns: Record<string, string[]>, build: (q: L.Layers) => L.Limbs | string[] | void): Promise<Record<string, unknown>[]> {
  const names = Object.keys(columns);
  const n = columns[names[0]!]!.length;
  const values = Array.from({ length: n }, (_, i) => `(${i}, ${names.map((c) => columns[c]![i]).join(', ')})`).join(', ');
  const q = new L.Layers();
  const out = build(q);
  // select only what is read back, so the layers drop their intermediate columns as the bench's queries do
  const cols = out === undefined ? ['*'] : Array.isArray(out) ? ['i', ...out] : ['i', ...Array.from({ length: out.n }, (_, k) => L.limb(out, k))];
  return store.rows('test.limbs', `${q.sql(`SELECT * FROM (VALUES ${values}) t(i, ${names.join(', ')})`, cols.join(', '))} ORDER BY i`);
}
const limbColumns = (name: string, xs: bigint[], n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${name}${i}`, xs.map((x) => limbsOf(x, n)[i]!)]));

describe('exact arithmetic in generated SQL', () => {
  it('multiply, add and subtract are exact for 500-bit numbers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(wide(500), wide(300)), { minLength: 1, maxLength: 30 }), async (cases) => {
        const a = { name: 'a', n: 21 };
        const b = { name: 'b', n: 13 };
        const cols = {
          ...limbColumns(
            'a',
            cases.map((c) => c[0]),
            21,
          ),
          ...limbColumns(
            'b',
            cases.map((c) => c[1]),
            13,
          ),
        };
        const rows = await run(cols, (q) => {
          const p = L.multiply(q, a, b, 'p');
          const sum = L.add(q, a, b, 's', 22);
          return [p, sum].flatMap((x) => Array.from({ length: x.n }, (_, k) => L.limb(x, k)));
        });
        expect(rows.map((r) => limbsValue(r, { name: 'p', n: 34 }))).toEqual(cases.map(([x, y]) => x * y));
        expect(rows.map((r) => limbsValue(r, { name: 's', n: 22 }))).toEqual(cases.map(([x, y]) => x + y));
        const big = cases.filter(([x, y]) => x >= y);
        if (big.length === 0) return;
        const diff = await run(
          {
            ...limbColumns(
              'a',
              big.map((c) => c[0]),
              21,
            ),
            ...limbColumns(
              'b',
              big.map((c) => c[1]),
              13,
            ),
          },
          (q) => L.subtract(q, a, b, 'd', 21),
        );
        expect(diff.map((r) => limbsValue(r, { name: 'd', n: 21 }))).toEqual(big.map(([x, y]) => x - y));
      }),
      { numRuns: 10 },
    );
  });

  it('a result that leaves its limbs raises: a sum past n limbs, a negative difference', async () => {
    const a = { name: 'a', n: 2 };
    const cols = limbColumns('a', [(1n << 48n) - 1n], 2);
    await expect(run(cols, (q) => void L.add(q, a, a, 's', 2))).rejects.toThrow(/a sum outside 48 bits/);
    await expect(run({ ...cols, ...limbColumns('b', [1n << 48n], 3) }, (q) => void L.subtract(q, a, { name: 'b', n: 3 }, 'd', 2))).rejects.toThrow(
      /a difference outside 48 bits/,
    );
  });

  it('divide by any HUGEINT below 2^103 and by powers of ten: quotient and remainder', async () => {
    const divisor = fc.oneof(
      fc.bigInt({ min: 1n, max: L.DIVISOR_LIMIT - 1n }),
      fc.bigInt({ min: 1n, max: 1n << 33n }),
      fc.constantFrom(1n, 3n, 10n ** 24n + 7n, L.DIVISOR_LIMIT - 1n, (1n << 64n) + 1n),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(wide(500), divisor, fc.integer({ min: 0, max: 72 })), { minLength: 1, maxLength: 30 }), async (cases) => {
        const a = { name: 'a', n: 21 };
        let pow: { quotient: L.Limbs; remainders: { col: string }[] } | undefined;
        const rows = await run(
          {
            ...limbColumns(
              'a',
              cases.map((c) => c[0]),
              21,
            ),
            h: cases.map((c) => hugeLit(c[1])),
            k: cases.map((c) => String(c[2])),
          },
          (q) => {
            const quotient = L.divide(q, a, 'h', 'q');
            pow = L.dividePow10(q, a, 'k', 8, 'z');
            return [quotient, pow.quotient].flatMap((x) => Array.from({ length: x.n }, (_, k) => L.limb(x, k))).concat('q_r');
          },
        );
        expect(rows.map((r) => limbsValue(r, { name: 'q', n: 21 }))).toEqual(cases.map(([x, h]) => x / h));
        expect(rows.map((r) => BigInt(r.q_r as bigint))).toEqual(cases.map(([x, h]) => x % h));
        expect(rows.map((r) => limbsValue(r, pow!.quotient))).toEqual(cases.map(([x, , k]) => x / 10n ** BigInt(k)));
      }),
      { numRuns: 10 },
    );
  });

  it('divide raises for a divisor of 2^103 or more (or below 1), never a wrong digit', async () => {
    const a = { name: 'a', n: 5 };
    const cols = (h: bigint) => ({ ...limbColumns('a', [1n << 110n], 5), h: [hugeLit(h)] });
    await expect(run(cols(L.DIVISOR_LIMIT), (q) => void L.divide(q, a, 'h', 'q'))).rejects.toThrow(
      /divisor 10141204801825835211973625643008 outside 1 \.\. 2\^103 − 1/,
    );
    await expect(run(cols(0n), (q) => void L.divide(q, a, 'h', 'q'))).rejects.toThrow(/divisor 0 outside/);
    const rows = await run(cols(L.DIVISOR_LIMIT - 1n), (q) => L.divide(q, a, 'h', 'q'));
    expect(limbsValue(rows[0]!, { name: 'q', n: 5 })).toBe((1n << 110n) / (L.DIVISOR_LIMIT - 1n));
  });

  it('halfEven, toHugeint and compare agree with bigint', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(wide(380), fc.integer({ min: 1, max: 81 }), wide(380)), { minLength: 1, maxLength: 30 }), async (cases) => {
        const a = { name: 'a', n: 16 };
        const b = { name: 'b', n: 16 };
        let rounded = '';
        const fitting = cases.filter(([x, k]) => halfEven(x, k) <= MAX);
        if (fitting.length > 0) {
          const rows = await run(
            {
              ...limbColumns(
                'a',
                fitting.map((c) => c[0]),
                16,
              ),
              k: fitting.map((c) => String(c[1])),
            },
            (q) => {
              rounded = L.halfEven(q, a, 'k', 9, 'he', 'a rounded value');
              q.let(`${rounded} AS v`);
              return ['v'];
            },
          );
          expect(rows.map((r) => BigInt(r.v as bigint))).toEqual(fitting.map(([x, k]) => halfEven(x, k)));
        }
        const rows = await run(
          {
            ...limbColumns(
              'a',
              cases.map((c) => c[0]),
              16,
            ),
            ...limbColumns(
              'b',
              cases.map((c) => c[2]),
              16,
            ),
          },
          (q) => {
            q.let(`${L.toHugeint(a)} AS h`, `${L.compare(a, b)} AS c`);
            return ['h', 'c'];
          },
        );
        expect(rows.map((r) => (r.h === null ? null : BigInt(r.h as bigint)))).toEqual(cases.map(([x]) => (x <= MAX ? x : null)));
        expect(rows.map((r) => r.c)).toEqual(cases.map(([x, , y]) => (x > y ? 1 : x < y ? -1 : 0)));
      }),
      { numRuns: 10 },
    );
  });

  it('marketValue is sharesToAssets (DESIGN §4.4) for any shares, price and decimals, negated on demand, NULL outside HUGEINT', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(hugeint, fc.oneof(fc.bigInt({ min: 0n, max: MAX }), fc.bigInt({ min: 0n, max: 10n ** 20n })), fc.integer({ min: 0, max: 36 }), fc.boolean()),
          { minLength: 1, maxLength: 40 },
        ),
        async (cases) => {
          const rows = await run(
            { s: cases.map((c) => hugeLit(c[0])), p: cases.map((c) => hugeLit(c[1])), d: cases.map((c) => String(c[2])), neg: cases.map((c) => String(c[3])) },
            (q) => {
              L.marketValue(q, 's', 'p', 'd', 'neg', 'mv');
              return ['mv'];
            },
          );
          expect(rows.map((r) => (r.mv === null ? null : BigInt(r.mv as bigint)))).toEqual(
            cases.map(([s, p, d, neg]) => {
              const v = neg ? -sharesToAssets(s, p, d) : sharesToAssets(s, p, d);
              return v >= MIN && v <= MAX ? v : null;
            }),
          );
        },
      ),
      { numRuns: 10 },
    );
    await expect(
      run({ s: ['1::HUGEINT'], p: ['1::HUGEINT'], d: ['37'], neg: ['false'] }, (q) => {
        L.marketValue(q, 's', 'p', 'd', 'neg', 'mv');
        return ['mv'];
      }),
    ).rejects.toThrow(/numeraire decimals 37 outside 0\.\.36/);
  });
});
