// Inserting vector bytes through the table function, on a real DuckDB file: values, NULL masks
// and constant strings arrive as written, a chunk without NULLs after one with them has none, a
// failing source fails the insert with its own error and leaves the transaction to roll back,
// the next scan works after that rollback (the function's registration is rolled back too), and
// DuckDB's global preserve_insertion_order, off during a scan, is restored even then.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, testCommon } from '../test/helpers/common.js';
import { createStore, type Store } from './store.js';
import { insertVectorChunks, VECTOR_ROWS, type VectorChunk, type VectorColumn } from './vectorScan.js';

const common = testCommon();
const dir = tempDir('vaultd-vector-scan-');
let store: Store;

// bytes of a chunk: ts (8 B a row), amount (16 B), x (8 B), then the masks of amount and x
const TS = 0;
const AMOUNT = TS + 8 * VECTOR_ROWS;
const X = AMOUNT + 16 * VECTOR_ROWS;
const MASKS = X + 8 * VECTOR_ROWS;
const BYTES = MASKS + 2 * (VECTOR_ROWS / 8);
const COLUMNS: VectorColumn[] = [
  { name: 'id', kind: 'varchar-constant' },
  { name: 'ts', kind: 'timestamp', offset: TS, validity: -1 },
  { name: 'amount', kind: 'decimal', width: 38, scale: 6, offset: AMOUNT, validity: MASKS },
  { name: 'x', kind: 'double', offset: X, validity: MASKS + VECTOR_ROWS / 8 },
];

/** A chunk of `rows` rows: ts = k seconds, amount = k·10^-6 (NULL where null(k)), x = k / 2. */
function chunk(id: string, rows: number, nullAt: (k: number) => boolean): VectorChunk {
  const buffer = new ArrayBuffer(BYTES);
  const ts = new BigInt64Array(buffer, TS, VECTOR_ROWS);
  const amount = new BigInt64Array(buffer, AMOUNT, 2 * VECTOR_ROWS);
  const x = new Float64Array(buffer, X, VECTOR_ROWS);
  const masks = new Uint8Array(buffer, MASKS, 2 * (VECTOR_ROWS / 8)).fill(0xff);
  let nulls = 0;
  for (let k = 0; k < rows; k++) {
    ts[k] = BigInt(k) * 1_000_000n;
    amount[2 * k] = BigInt(k);
    x[k] = k / 2;
    if (nullAt(k)) {
      masks[k >> 3]! &= ~(1 << (k & 7));
      masks[VECTOR_ROWS / 8 + (k >> 3)]! &= ~(1 << (k & 7));
      nulls = 0b110; // amount and x (the 2nd and 3rd non-constant columns)
    }
  }
  return { rows, constants: [id], buffer, base: 0, nulls };
}

const source = (chunks: VectorChunk[]) => {
  let i = 0;
  return () => chunks[i++] ?? null;
};

beforeAll(async () => {
  store = await createStore(common, { path: join(dir, 'scan.duckdb') });
  await store.run('test.table', 'CREATE TABLE t (id VARCHAR, ts TIMESTAMP, amount DECIMAL(38, 6), x DOUBLE)');
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('insertVectorChunks', () => {
  it('values, NULL masks and constant strings arrive as written; a later chunk without NULLs has none', async () => {
    await store.run('test.clear', 'DELETE FROM t');
    const rows = await insertVectorChunks(
      store,
      't',
      COLUMNS,
      source([chunk('a-long-vault-id-past-twelve-bytes', VECTOR_ROWS, (k) => k % 3 === 0), chunk('b', 5, () => false)]),
    );
    expect(rows).toBe(VECTOR_ROWS + 5);
    const got = await store.rows<{ id: string; n: bigint; nulls: bigint; s: string; sx: number; t: string }>(
      'test.read',
      `SELECT id, count(*) AS n, count(*) FILTER (WHERE amount IS NULL) AS nulls, sum(amount)::VARCHAR AS s, sum(x) AS sx, max(ts)::VARCHAR AS t FROM t GROUP BY id ORDER BY id`,
    );
    const expectedSum = (n: number, skip: (k: number) => boolean) => Array.from({ length: n }, (_, k) => k).filter((k) => !skip(k));
    const a = expectedSum(VECTOR_ROWS, (k) => k % 3 === 0);
    expect(got).toEqual([
      {
        id: 'a-long-vault-id-past-twelve-bytes',
        n: BigInt(VECTOR_ROWS),
        nulls: BigInt(VECTOR_ROWS - a.length),
        s: (a.reduce((x, y) => x + y, 0) / 1e6).toFixed(6),
        sx: a.reduce((x, y) => x + y, 0) / 2,
        t: `1970-01-01 00:${String(Math.floor((VECTOR_ROWS - 1) / 60)).padStart(2, '0')}:${String((VECTOR_ROWS - 1) % 60).padStart(2, '0')}`,
      },
      { id: 'b', n: 5n, nulls: 0n, s: '0.000010', sx: 5, t: '1970-01-01 00:00:04' },
    ]);
    const order = await store.one<{ v: boolean }>('test.order', "SELECT current_setting('preserve_insertion_order') AS v");
    expect(order!.v).toBe(true);
  });

  it('error: a failing source fails the insert with its own error; after the rollback the next scan works', async () => {
    await store.run('test.clear', 'DELETE FROM t');
    const boom = new Error('source broke at chunk 2');
    let i = 0;
    await expect(
      store.transaction('test.fail', () =>
        insertVectorChunks(store, 't', COLUMNS, () => {
          if (i++ === 1) throw boom;
          return chunk('a', 10, () => false);
        }),
      ),
    ).rejects.toBe(boom);
    expect((await store.one<{ n: bigint }>('test.count', 'SELECT count(*) AS n FROM t'))!.n).toBe(0n);
    // the global setting the scan turned off is back once the transaction has rolled back
    expect((await store.one<{ v: boolean }>('test.order', "SELECT current_setting('preserve_insertion_order') AS v"))!.v).toBe(true);
    expect(await store.transaction('test.again', () => insertVectorChunks(store, 't', COLUMNS, source([chunk('c', 3, () => false)])))).toBe(3);
  });

  it('error: a chunk past the vector size or claiming a NULL in a never-NULL column, with the exact message', async () => {
    await expect(insertVectorChunks(store, 't', COLUMNS, source([{ ...chunk('a', 1, () => false), rows: VECTOR_ROWS + 1 }]))).rejects.toThrow(
      `a vector chunk holds 1–${VECTOR_ROWS} rows, not ${VECTOR_ROWS + 1}`,
    );
    await expect(insertVectorChunks(store, 't', COLUMNS, source([{ ...chunk('a', 1, () => false), nulls: 0b1 }]))).rejects.toThrow(
      'vector scan: column "ts" is never NULL but the chunk says it has one',
    );
  });
});
