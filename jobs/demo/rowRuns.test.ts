// Runs of the small tables' rows: every row crosses once, in its table's order, in runs sent as
// they fill (the worker holds at most one run, whatever the world's size), the last on flush.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AllocationRow, RequestTermsRow, TvlSourceValueRow } from '../../model/rows.js';
import { createArraySink } from '../../store/rawSink.js';
import { createRowRuns, type SmallRows, writeRun } from './rowRuns.js';

type Row = { kind: 'a'; r: AllocationRow } | { kind: 't'; r: TvlSourceValueRow } | { kind: 'q'; r: RequestTermsRow };

const row = fc.oneof(
  fc
    .nat()
    .map(
      (n): Row => ({ kind: 'a', r: { vault_id: `v${n}`, as_of: n, position: n, category: 'c', target: { n }, allocation: 1, amount: n, amount_usd: null } }),
    ),
  fc.nat().map((n): Row => ({ kind: 't', r: { source_id: `s${n}`, ts: n, usd: String(n), error: null } })),
  fc
    .nat()
    .map((n): Row => ({ kind: 'q', r: { chain_id: 1, vault_id: `v${n}`, request_hash: `0x${n}`, block_number: n, deadline: null, solver_tip: BigInt(n) } })),
);

describe('createRowRuns', () => {
  it('sends each run as it fills, every row once and in order, the rest on flush', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 300 }), fc.integer({ min: 1, max: 40 }), (rows, size) => {
        const sent: SmallRows[] = [];
        const runs = createRowRuns((r) => sent.push(r), size);
        rows.forEach((x, k) => {
          if (x.kind === 'a') runs.sink.allocation(x.r);
          else if (x.kind === 't') runs.sink.tvlSourceValue(x.r);
          else runs.sink.requestTerms(x.r);
          // streamed: after k + 1 rows, exactly ⌊(k + 1) / size⌋ full runs have gone
          expect(sent.length).toBe(Math.floor((k + 1) / size));
        });
        runs.flush();
        runs.flush(); // nothing left: sends nothing
        const sizes = sent.map((s) => s.allocations.length + s.tvlSourceValues.length + s.requestTerms.length);
        expect(sizes.slice(0, -1).every((n) => n === size)).toBe(true);
        expect(sizes.every((n) => n >= 1 && n <= size)).toBe(true);
        expect(sizes.reduce((a, b) => a + b, 0)).toBe(rows.length);
        // what the loading thread writes: each table's rows as they were made
        const got = createArraySink();
        for (const s of sent) writeRun(got.sink, s);
        expect(got.rows.allocations).toEqual(rows.filter((x) => x.kind === 'a').map((x) => x.r));
        expect(got.rows.tvlSourceValues).toEqual(rows.filter((x) => x.kind === 't').map((x) => x.r));
        expect(got.rows.requestTerms).toEqual(rows.filter((x) => x.kind === 'q').map((x) => x.r));
      }),
      { numRuns: 300 },
    );
  });
});
