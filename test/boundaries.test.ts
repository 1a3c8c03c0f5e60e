// Imports run one way, down the pipeline: common → model → families → store → jobs / engine → runtime, (engine/publish) → server → cli;
// client and explorer stand alone. See test/helpers/importGraph.ts for the table.
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../common/version.js';
import { LEDGERS, VAULT_TYPES } from '../families/index.js';
import {
  familyInternals,
  familyNameUses,
  importCycles,
  importEdges,
  readProductFiles,
  sqlOutsideStore,
  stringLiterals,
  wrongWay,
} from './helpers/importGraph.js';

const files = readProductFiles(PROJECT_ROOT);
const edges = importEdges(files);

describe('import boundaries', () => {
  it('reads the whole program', () => {
    expect(files.length).toBeGreaterThan(150);
    for (const top of ['common', 'model', 'families', 'store', 'jobs', 'engine', 'runtime', 'server', 'cli', 'client', 'explorer']) {
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
      { path: 'engine/planted2.ts', text: "import { createRuntime } from '../runtime/createRuntime.js';" },
      { path: 'runtime/planted.ts', text: "import { createHandler } from '../server/handle.js';" },
      { path: 'server/routes/planted3.ts', text: "import { seriesBuffer } from '../../engine/publish/seriesBuffers.js';" },
    ];
    const bad = wrongWay(importEdges(planted));
    expect(bad).toHaveLength(planted.length);
    expect(bad[0]).toBe('jobs/chain/planted.ts → engine/persist/metricsWriter.ts: jobs/ may import only common, model, families, store');
    expect(bad.at(-5)).toBe('jobs/prices/planted2.ts → jobs/chain/ingestOnce.ts: jobs/prices/ may import only jobs/evm of jobs/');
    expect(bad.at(-4)).toBe('jobs/evm/planted.ts → jobs/chain/ingestMetrics.ts: jobs/evm/ may import only itself of jobs/');
    expect(bad.at(-2)).toBe('runtime/planted.ts → server/handle.ts: runtime/ may import only common, model, families, store, jobs, engine');
    expect(bad.at(-1)).toBe(
      'server/routes/planted3.ts → engine/publish/seriesBuffers.ts: server/ may import only common, model, families, engine/publish/index.ts',
    );
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

  it('devnet/ is reached only by the devnet command, with import() (and would fail on a planted static or foreign import)', () => {
    expect(edges.filter((e) => e.to.startsWith('devnet/')).map((e) => [e.from, e.dynamic])).toEqual([['cli/commands/devnet.ts', true]]);
    const planted = [
      { path: 'cli/commands/devnet.ts', text: "import { startDevnet } from '../../devnet/index.js';" },
      { path: 'jobs/chain/planted.ts', text: "const { startDevnet } = await import('../../devnet/index.js');" },
      { path: 'cli/commands/ok.ts', text: "import { x } from '../../jobs/chain/ingestOnce.js';" },
    ];
    expect(wrongWay(importEdges(planted))).toEqual([
      'cli/commands/devnet.ts → devnet/index.ts: devnet/ is a development rig, reached only by cli/commands/devnet.ts with import()',
      'jobs/chain/planted.ts → devnet/index.ts: devnet/ is a development rig, reached only by cli/commands/devnet.ts with import()',
    ]);
  });

  const names = [...VAULT_TYPES, ...LEDGERS.map((l) => l.name)];

  it('family names and branches live in families/ (and would fail on planted ones)', () => {
    expect(familyNameUses(files, names)).toEqual([]);
    const planted = [
      { path: 'engine/metrics/planted.ts', text: "const aera = v.vault_type === 'aera_v3';" },
      { path: 'jobs/chain/planted.ts', text: "switch (t) {\n  case 'symbiotic':\n    return null;\n}" },
      { path: 'engine/series/planted.ts', text: "const sql = `SELECT vault_type IN ('morpho_v1') FROM vaults`;" },
      { path: 'engine/metrics/planted2.ts', text: "const F = { morpho_v2: ['curator'] };\nconst G = { 'morpho_v2': ['curator'] };" },
      { path: 'jobs/chain/planted2.ts', text: "if (v.ledger.name === 'morpho') return;" },
      { path: 'common/planted.ts', text: "vault_type: v.picklist(['aera_v3', 'morpho_v1']);" },
      { path: 'jobs/demo/planted.ts', text: "if (type === 'symbiotic') return [0.02, 0.05];" },
      // data files may hold the names as values, never branch on them
      { path: 'jobs/demo/curated.ts', text: "d('x', 1, null, 'symbiotic', 'LBTC');\nif (s.vault_type === 'aera_v3') x();" },
      { path: 'families/ok.ts', text: "if (type === 'aera_v3') return 1;" },
      { path: 'engine/ok.ts', text: "const label = 'aera-hooks'; // a seed label, not a family" },
    ];
    expect(familyNameUses(planted, names)).toEqual([
      "engine/metrics/planted.ts:1: const aera = v.vault_type === 'aera_v3';",
      "jobs/chain/planted.ts:2: case 'symbiotic':",
      "engine/series/planted.ts:1: const sql = `SELECT vault_type IN ('morpho_v1') FROM vaults`;",
      "engine/metrics/planted2.ts:1: const F = { morpho_v2: ['curator'] };",
      "engine/metrics/planted2.ts:2: const G = { 'morpho_v2': ['curator'] };",
      "jobs/chain/planted2.ts:1: if (v.ledger.name === 'morpho') return;",
      "common/planted.ts:1: vault_type: v.picklist(['aera_v3', 'morpho_v1']);",
      "jobs/demo/planted.ts:1: if (type === 'symbiotic') return [0.02, 0.05];",
      "jobs/demo/curated.ts:2: if (s.vault_type === 'aera_v3') x();",
    ]);
  });

  it("outside families/, nothing imports one family's folder (and would fail on a planted import)", () => {
    expect(familyInternals(edges)).toEqual([]);
    const planted = [
      { path: 'jobs/chain/planted.ts', text: "import { AERA_LEDGER } from '../../families/aera/ledger.js';" },
      { path: 'server/schemas/planted.ts', text: "import { ERC4626_EVENTS } from '../../families/shared/erc4626.js';" },
      { path: 'engine/ok.ts', text: "import { familyOf } from '../families/index.js';" },
      { path: 'families/morpho/ok.ts', text: "import { ERC4626_EVENTS } from '../shared/erc4626.js';" },
    ];
    expect(familyInternals(importEdges(planted))).toEqual([
      "jobs/chain/planted.ts → families/aera/ledger.ts: only families/index.ts is the families' door",
      "server/schemas/planted.ts → families/shared/erc4626.ts: only families/index.ts is the families' door",
    ]);
  });

  it('SQL lives only in store/ (and would fail on planted SQL)', () => {
    expect(sqlOutsideStore(files)).toEqual([]);
    // biome-ignore-start lint/suspicious/noTemplateCurlyInString: planted source text holds templates
    const planted = [
      { path: 'cli/commands/planted.ts', text: "const n = await store.one('x', 'SELECT count(*) AS n FROM vaults');" },
      { path: 'engine/load/planted.ts', text: 'const sql = `WITH r AS (SELECT ts\n  FROM ${rows})`;' },
      { path: 'jobs/chain/planted.ts', text: "await store.run('x', `INSERT OR REPLACE INTO ${table} VALUES ($1)`);" },
      { path: 'runtime/planted.ts', text: 'await store.run("x", "DELETE FROM positions");' },
      { path: 'jobs/demo/planted.ts', text: "await store.run('demo.checkpoint', 'CHECKPOINT');" },
      { path: 'engine/planted2.ts', text: "await s.run('x', `CREATE OR REPLACE TEMP TABLE t AS ${q}`); await s.run('y', `UPDATE t SET a = 1`);" },
      // not SQL: a comment, a message, a regex, an HTTP method, a store module
      {
        path: 'server/ok.ts',
        text: "// SELECT x FROM y\nconst m = 'select a vault from the list'; const re = /'SELECT' FROM/; const v = { delete: 'DELETE' };",
      },
      { path: 'store/ok.ts', text: "await store.run('x', 'DELETE FROM positions');" },
    ];
    // biome-ignore-end lint/suspicious/noTemplateCurlyInString: planted source text holds templates
    expect(sqlOutsideStore(planted)).toEqual([
      'cli/commands/planted.ts:1: SELECT count(*) AS n FROM vaults',
      'engine/load/planted.ts:1: WITH r AS (SELECT ts FROM ?)',
      'jobs/chain/planted.ts:1: INSERT OR REPLACE INTO ? VALUES ($1)',
      'runtime/planted.ts:1: DELETE FROM positions',
      'jobs/demo/planted.ts:1: CHECKPOINT',
      'engine/planted2.ts:1: CREATE OR REPLACE TEMP TABLE t AS ?',
      'engine/planted2.ts:1: UPDATE t SET a = 1',
    ]);
    // the scanner reads a template's parts as code, so a literal inside `${…}` is seen too
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a planted source text
    expect(stringLiterals("const q = `a ${f('SELECT 1 FROM t')} b`; // 'x'").map((l) => l.text)).toEqual(['SELECT 1 FROM t', 'a ? b']);
  });
});
