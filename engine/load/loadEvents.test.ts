// The columnar event loader reads back exactly the rows written (oracle: the rows themselves in
// world order), whatever their strings, NULLs and hashes, and loading in two steps — a table,
// then the rows after it appended — gives the same table as one load.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventRows } from '../../model/events.js';
import type { EventRow } from '../../model/rows.js';
import { createRawWriter } from '../../store/rawWriter.js';
import { createStore, type Store } from '../../store/store.js';
import { testCommon } from '../../test/helpers/common.js';
import { eventRowsArb, worldOrder } from '../../test/helpers/eventArb.js';
import { loadEventTable } from './loadEvents.js';

let store: Store;
beforeAll(async () => {
  store = await createStore(testCommon(), { path: ':memory:' });
});
afterAll(async () => {
  await store.close();
});

async function writeEvents(rows: readonly EventRow[]): Promise<void> {
  await store.run('test.clear', 'DELETE FROM vault_events');
  const writer = await createRawWriter(store, 'append');
  for (const r of rows) writer.sink.event(r);
  await writer.finish();
}

describe('loadEventTable', () => {
  it('reads every row back exactly, in world order', async () => {
    await fc.assert(
      fc.asyncProperty(eventRowsArb(), async (rows) => {
        await writeEvents(rows);
        const t = await loadEventTable(store, null);
        expect(eventRows(t)).toEqual([...rows].sort(worldOrder));
      }),
      { numRuns: 25 },
    );
  });

  it('an incremental load appended to a table equals one load of everything', async () => {
    await fc.assert(
      fc.asyncProperty(eventRowsArb(), fc.integer({ min: 0, max: 20 }), fc.nat({ max: 4 }), async (rows, cutHour, spare) => {
        await writeEvents(rows);
        const cut = 1_700_000_000 + cutHour * 3600;
        const first = await loadEventTable(store, null, { until: cut }, { spare });
        const before = eventRows(first);
        const both = await loadEventTable(store, first, { after: cut }, { spare });
        expect(eventRows(both)).toEqual([...rows].sort(worldOrder));
        // the first table's rows did not change (a view of it stays valid)
        expect(eventRows({ ...first, length: before.length })).toEqual(before);
      }),
      { numRuns: 25 },
    );
  });
});
