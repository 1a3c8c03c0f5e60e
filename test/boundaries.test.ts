// Imports run one way, down the pipeline: common → model → families → store → jobs / engine → (engine/publish) → server → cli;
// client and explorer stand alone. See test/helpers/importGraph.ts for the table.
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../common/version.js';
import { importCycles, importEdges, readProductFiles, vaultTypeSwitches, wrongWay } from './helpers/importGraph.js';

const files = readProductFiles(PROJECT_ROOT);
const edges = importEdges(files);

describe('import boundaries', () => {
  it('reads the whole program', () => {
    expect(files.length).toBeGreaterThan(150);
    for (const top of ['common', 'model', 'families', 'store', 'jobs', 'engine', 'server', 'cli', 'client', 'explorer']) {
      expect(
        files.some((f) => f.path.startsWith(`${top}/`)),
        top,
      ).toBe(true);
    }
    expect(edges.length).toBeGreaterThan(500);
  });

  it('no file imports against the pipeline', () => {
    expect(wrongWay(edges)).toEqual([]);
  });

  it('no import cycles', () => {
    expect(importCycles(edges)).toEqual([]);
  });

  it('would fail on a planted wrong-way import (each edge the issue listed)', () => {
    const planted = [
      { path: 'jobs/chain/planted.ts', text: "import { createStore } from '../../engine/persist/metricsWriter.js';" },
      { path: 'store/planted.ts', text: "import type { World } from '../engine/engine.js';" },
      { path: 'server/routes/planted.ts', text: "import { createStore } from '../../store/store.js';" },
      { path: 'server/routes/planted2.ts', text: "export { replayPosition } from '../../engine/positions/replayPosition.js';" },
      { path: 'engine/planted.ts', text: "const m = await import('../jobs/demo/params.js');" },
      { path: 'jobs/prices/planted.ts', text: "import { x } from '../../test/helpers/loopback.js';" },
      { path: 'client/planted.ts', text: "import { VERSION } from '../common/version.js';" },
      { path: 'common/planted.ts', text: "import { parseFlags } from '../cli/args.js';" },
      { path: 'jobs/prices/planted2.ts', text: "import { ingestOnce } from '../chain/ingestOnce.js';" },
      { path: 'jobs/evm/planted.ts', text: "import type { BadDataReason } from '../chain/ingestMetrics.js';" },
    ];
    const bad = wrongWay(importEdges(planted));
    expect(bad).toHaveLength(planted.length);
    expect(bad[0]).toBe('jobs/chain/planted.ts → engine/persist/metricsWriter.ts: jobs/ may import only common, model, families, store');
    expect(bad.at(-2)).toBe('jobs/prices/planted2.ts → jobs/chain/ingestOnce.ts: jobs/prices/ may import only jobs/evm of jobs/');
    expect(bad.at(-1)).toBe('jobs/evm/planted.ts → jobs/chain/ingestMetrics.ts: jobs/evm/ may import only itself of jobs/');
    // and a planted cycle is found
    expect(
      importCycles(
        importEdges([
          { path: 'engine/a.ts', text: "import { b } from './b.js';" },
          { path: 'engine/b.ts', text: "import { a } from './a.js';" },
        ]),
      ),
    ).toEqual([['engine/a.ts', 'engine/b.ts', 'engine/a.ts']]);
  });

  it('no product file exports a seam made for tests (…ForTest), and would fail on a planted one', () => {
    const forTest = (list: readonly { path: string; text: string }[]) =>
      list.flatMap((f) => [...f.text.matchAll(/^export\b[^\n]*?\b(\w+ForTest)\b/gm)].map((m) => `${f.path}: ${m[1]}`));
    expect(forTest(files)).toEqual([]);
    expect(forTest([{ path: 'common/planted.ts', text: 'export const crc32ShiftBitsForTest = (crc: number) => crc;' }])).toEqual([
      'common/planted.ts: crc32ShiftBitsForTest',
    ]);
  });

  it('every vault_type switch lives in families/ (and would fail on a planted one)', () => {
    expect(vaultTypeSwitches(files)).toEqual([]);
    const planted = [
      { path: 'engine/metrics/planted.ts', text: "const aera = v.vault_type === 'aera_v3';" },
      { path: 'jobs/chain/planted.ts', text: "switch (t) {\n  case 'symbiotic':\n    return null;\n}" },
      { path: 'engine/series/planted.ts', text: "const sql = `SELECT vault_type IN ('morpho_v1') FROM vaults`;" },
      { path: 'engine/metrics/planted2.ts', text: "const F = { morpho_v2: ['curator'] };\nconst G = { 'morpho_v2': ['curator'] };" },
      { path: 'families/ok.ts', text: "if (type === 'aera_v3') return 1;" },
      { path: 'jobs/demo/ok.ts', text: "if (type === 'symbiotic') return [0.02, 0.05];" },
    ];
    expect(vaultTypeSwitches(planted)).toEqual([
      "engine/metrics/planted.ts:1: const aera = v.vault_type === 'aera_v3';",
      "jobs/chain/planted.ts:2: case 'symbiotic':",
      "engine/series/planted.ts:1: const sql = `SELECT vault_type IN ('morpho_v1') FROM vaults`;",
      "engine/metrics/planted2.ts:2: const G = { 'morpho_v2': ['curator'] };",
    ]);
  });
});
