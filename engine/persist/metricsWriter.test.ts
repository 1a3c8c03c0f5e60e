// The columnar metrics write: 128-bit values staged as raw words through the column appender
// and formatted by DuckDB (unitsSelect) read back exactly as formatUnits writes them, for any
// sign, size and number of decimals; NULL stays NULL.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUnits } from '../../model/format/numbers.js';
import { I128Array } from '../../model/int128.js';
import { createColumnAppender } from '../../store/columnAppender.js';
import { createStore, type Store } from '../../store/store.js';
import { testCommon } from '../../test/helpers/common.js';
import { unitsSelect } from './metricsWriter.js';

let store: Store;
beforeAll(async () => {
  store = await createStore(testCommon(), { path: ':memory:' });
});
afterAll(async () => {
  await store.close();
});

const amount = fc.oneof(
  fc.bigInt({ min: -(1n << 126n), max: 1n << 126n }),
  fc.bigInt({ min: -1000n, max: 1000n }),
  fc.constantFrom(0n, 1n, -1n, 10n ** 18n, 10n ** 18n - 1n, (1n << 127n) - 1n),
);

describe('unitsSelect over staged 128-bit words', () => {
  it('equals formatUnits for any value and decimals (oracle), and keeps NULL', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.option(amount, { nil: null }), fc.integer({ min: 0, max: 30 })), { minLength: 1, maxLength: 300 }), async (rows) => {
        await store.run('test.stage', 'CREATE OR REPLACE TEMP TABLE t_stage (i INTEGER, d INTEGER, x HUGEINT)');
        const app = await createColumnAppender(store, 't_stage', ['integer', 'integer', 'hugeint']);
        const words = new I128Array(rows.length);
        rows.forEach(([x], k) => words.set(k, x ?? 0n));
        app.batch(rows.length, (b) => {
          rows.forEach(([x, d], k) => {
            b.int32(0)[k] = k;
            b.int32(1)[k] = d;
            if (x === null) b.setNull(2, k);
          });
          b.hugeint(2).set(new Uint8Array(words.words.buffer, 0, rows.length * 16));
        });
        app.close();
        const out = await store.rows<{ i: number; s: string | null }>(
          'test.format',
          `SELECT i, s FROM (${unitsSelect('t_stage', ['i'], [{ expr: 'x', decimals: 'd', as: 's' }])}) ORDER BY i`,
        );
        expect(out.map((r) => r.s)).toEqual(rows.map(([x, d]) => (x === null ? null : formatUnits(x, d))));
      }),
      { numRuns: 60 },
    );
  });
});
