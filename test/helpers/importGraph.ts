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
  // of the engine, only engine/publish (the door); no store, no jobs
  server: ['common', 'model', 'engine/publish'],
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

const TYPE_LITERAL = /'(?:aera_v3|morpho_v1|morpho_v2|symbiotic)'/;
/** A comparison or a switch on a vault_type literal: `=== 'aera_v3'`, `!== '…'`, SQL `= '…'`, `case '…':`. */
const TYPE_SWITCH =
  /(?:[!=]==?|\bIN\s*\(|\bcase)\s*'(?:aera_v3|morpho_v1|morpho_v2|symbiotic)'|'(?:aera_v3|morpho_v1|morpho_v2|symbiotic)'\s*(?:[!=]==?|:\s*\[)/;
/**
 * Files that may name vault types outside families/: the enumerations that validate input
 * (the config schema, the migration's CHECK, the wire schemas of server/schemas) and the demo
 * and devnet simulators' own per-family simulation parameters.
 */
export const TYPE_LITERAL_EXEMPT = /^(?:families\/|common\/config\.ts$|store\/migrations\.ts$|server\/schemas\/|jobs\/demo\/|jobs\/devnet\/)/;

/** Lines outside families/ that branch on a vault_type literal, as `path:line: text`. */
export function vaultTypeSwitches(files: readonly SourceFile[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    if (TYPE_LITERAL_EXEMPT.test(f.path) || !TYPE_LITERAL.test(f.text)) continue;
    f.text.split('\n').forEach((line, i) => {
      if (TYPE_SWITCH.test(line)) out.push(`${f.path}:${i + 1}: ${line.trim()}`);
    });
  }
  return out;
}
