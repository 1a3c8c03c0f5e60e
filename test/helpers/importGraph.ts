// The import graph of the program's non-test files and the one-way rule between top-level
// folders (issue: structure that shows the data flow). test/boundaries.test.ts holds the repo
// to it; the checker is a plain function so the test can also plant a wrong import in memory.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

/** What each top-level folder may import besides itself (folders not listed import freely: test, bench, scripts). */
export const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  common: [],
  model: ['common'],
  families: ['common', 'model'],
  store: ['common', 'model'],
  jobs: ['common', 'model', 'families', 'store'],
  engine: ['common', 'model', 'families', 'store'],
  // of the engine, only engine/publish (the door); no store, no jobs. families: the vault types and
  // each family's /definition schema, for the OpenAPI document
  server: ['common', 'model', 'families', 'engine/publish'],
  client: [],
  explorer: ['client'],
  cli: ['common', 'model', 'families', 'store', 'jobs', 'engine', 'server'],
};

/**
 * Inside a top-level folder, which of its subfolders each may import (folders not listed may
 * import any sibling): the sources of jobs/ share only the RPC toolkit (jobs/evm) and the
 * demo's generators; prices never reach into the chain indexer.
 */
export const ALLOWED_WITHIN: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  jobs: { evm: [], chain: ['evm'], prices: ['evm'], demo: [] },
};

/**
 * Development rigs beside the product (not product folders: they import freely, like test/):
 * devnet/ (Hardhat, Solidity mocks, artifacts) is reached only by the command that runs it,
 * and only with a dynamic `import()`, so nothing else loads it and the product never needs its
 * dev dependencies.
 */
export const RIGS: Readonly<Record<string, readonly string[]>> = {
  devnet: ['cli/commands/devnet.ts'],
};

const PRODUCT = Object.keys(ALLOWED);
const SPEC =
  /(?:import|export)\s[^'";]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|new URL\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*,\s*import\.meta\.url/g;

export interface SourceFile {
  /** repo-relative, '/'-separated */
  path: string;
  text: string;
}

export function readProductFiles(root: string): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ts|mjs|cjs)$/.test(name) && !/\.test\.ts$/.test(name) && !name.endsWith('.d.ts') && !name.endsWith('.gen.ts')) {
        out.push({ path: relative(root, p).split(sep).join('/'), text: readFileSync(p, 'utf8') });
      }
    }
  };
  for (const top of PRODUCT) {
    try {
      walk(join(root, top));
    } catch {
      // a folder that does not exist has nothing to check
    }
  }
  return out;
}

export interface Edge {
  from: string;
  to: string;
  /** `import type` / `export type`: erased at compile time, so no load order */
  typeOnly: boolean;
  /** `import('…')`: loaded when run, not with the importer */
  dynamic: boolean;
}

/** Every relative import between files, specifiers resolved to repo paths ('.js' read as the '.ts' source). */
export function importEdges(files: readonly SourceFile[]): Edge[] {
  const edges: Edge[] = [];
  for (const f of files) {
    for (const m of f.text.matchAll(SPEC)) {
      const spec = (m[1] ?? m[2] ?? m[3])!;
      const to = normalize(join(dirname(f.path), spec))
        .split(sep)
        .join('/')
        .replace(/\.js$/, '.ts');
      edges.push({ from: f.path, to, typeOnly: /^(?:import|export)\s+type\s/.test(m[0]), dynamic: m[2] !== undefined });
    }
  }
  return edges;
}

function area(path: string): string {
  const [top, sub] = path.split('/');
  return top === 'engine' && sub === 'publish' ? 'engine/publish' : top!;
}

/** Imports that point the wrong way, as readable lines. */
export function wrongWay(edges: readonly Edge[]): string[] {
  const bad: string[] = [];
  for (const e of edges) {
    const from = e.from.split('/')[0]!;
    const to = e.to.split('/')[0]!;
    if (from === to) {
      const inner = ALLOWED_WITHIN[from];
      const [fromSub, toSub] = [e.from.split('/'), e.to.split('/')].map((p) => (p.length > 2 ? p[1]! : ''));
      const rule = inner?.[fromSub!];
      if (rule && toSub !== fromSub && toSub !== '' && !rule.includes(toSub!)) {
        bad.push(`${e.from} → ${e.to}: ${from}/${fromSub}/ may import only ${rule.length ? rule.map((r) => `${from}/${r}`).join(', ') : 'itself'} of ${from}/`);
      }
      continue;
    }
    if (!(from in ALLOWED)) continue;
    const rig = RIGS[to];
    if (rig) {
      if (!rig.includes(e.from) || !e.dynamic) bad.push(`${e.from} → ${e.to}: ${to}/ is a development rig, reached only by ${rig.join(', ')} with import()`);
      continue;
    }
    const allowed = ALLOWED[from]!;
    const ok = allowed.includes(to) || allowed.includes(area(e.to));
    if (!ok) bad.push(`${e.from} → ${e.to}: ${from}/ may import only ${allowed.length ? allowed.join(', ') : 'itself'}`);
  }
  return bad;
}

/** File-level cycles of runtime imports (type-only ones are erased), each reported once, as a path. */
export function importCycles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) if (!e.typeOnly) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (n: string) => {
    state.set(n, 1);
    stack.push(n);
    for (const m of next.get(n) ?? []) {
      if (state.get(m) === 1) cycles.push([...stack.slice(stack.indexOf(m)), m]);
      else if (state.get(m) === undefined) visit(m);
    }
    stack.pop();
    state.set(n, 2);
  };
  for (const n of [...next.keys()].sort()) if (!state.has(n)) visit(n);
  return cycles;
}

/**
 * Product files outside families/ that may hold family names (vault types, ledger names) as
 * plain values — data, never a branch: each with the reason it cannot derive them.
 */
export const FAMILY_DATA: Readonly<Record<string, string>> = {
  'jobs/demo/curated.ts': "the demo world's catalogue: real deployments, each of one family",
  'server/schemas/sampleBodies.ts': 'an example response body of the API reference',
};

/** Lines as they shipped that may not change: migration 1's CHECK (migration 8 drops it; a shipped migration is never edited). */
export const FAMILY_HISTORY: readonly string[] = [
  "store/migrations.ts: vault_type VARCHAR NOT NULL CHECK (vault_type IN ('aera_v3', 'morpho_v1', 'morpho_v2', 'symbiotic')),",
];

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Lines outside families/ that name a family (`names`: every vault type and ledger name of the
 * family table): as a quoted literal anywhere but in FAMILY_DATA, and as a branch anywhere — a
 * comparison (`=== 'aera_v3'`, SQL `= '…'`, `IN ('…')`), a `case`, or a key of a map by family
 * (`{ morpho_v2: […] }`). As `path:line: text`.
 */
export function familyNameUses(files: readonly SourceFile[], names: readonly string[]): string[] {
  const alt = names.map(escapeRegExp).join('|');
  const any = new RegExp(`\\b(?:${alt})\\b`);
  const literal = new RegExp(`(['"\`])(?:${alt})\\1`);
  const branch = new RegExp(
    `(?:[!=]==?|\\bIN\\s*\\(|\\bcase)\\s*(['"\`])(?:${alt})\\1|(['"\`])(?:${alt})\\2\\s*(?:[!=]==?|:)|(?:^|[{,]\\s*)(?:${alt})\\s*:(?!:)`,
  );
  const out: string[] = [];
  for (const f of files) {
    if (f.path.startsWith('families/') || !any.test(f.text)) continue;
    const data = f.path in FAMILY_DATA;
    f.text.split('\n').forEach((line, i) => {
      if (FAMILY_HISTORY.includes(`${f.path}: ${line.trim()}`)) return;
      if (branch.test(line.trim()) || (!data && literal.test(line))) out.push(`${f.path}:${i + 1}: ${line.trim()}`);
    });
  }
  return out;
}

/** Imports of one family's own folder from outside families/: the rest of the program sees only families/index.ts. */
export function familyInternals(edges: readonly Edge[]): string[] {
  return edges
    .filter((e) => !e.from.startsWith('families/') && /^families\/[^/]+\//.test(e.to))
    .map((e) => `${e.from} → ${e.to}: only families/index.ts is the families' door`);
}
