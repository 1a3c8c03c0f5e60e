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
  // runs the sources' rounds and turns changed inputs into engine refreshes: composes both
  runtime: ['common', 'model', 'families', 'store', 'jobs', 'engine'],
  // of the engine, only the read model's door (engine/publish/index.ts); no store, no jobs.
  // families: the vault types and each family's /definition schema, for the OpenAPI document
  server: ['common', 'model', 'families', 'engine/publish/index.ts'],
  client: [],
  explorer: ['client'],
  cli: ['common', 'model', 'families', 'store', 'jobs', 'engine', 'runtime', 'server'],
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
  if (path === 'engine/publish/index.ts') return path;
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
    // explorer/families.ts: the browser bundle's names for people (it reaches the server only through the SDK, never families/)
    if (f.path.startsWith('families/') || f.path === 'explorer/families.ts' || !any.test(f.text)) continue;
    const data = f.path in FAMILY_DATA;
    f.text.split('\n').forEach((line, i) => {
      if (FAMILY_HISTORY.includes(`${f.path}: ${line.trim()}`)) return;
      if (branch.test(line.trim()) || (!data && literal.test(line))) out.push(`${f.path}:${i + 1}: ${line.trim()}`);
    });
  }
  return out;
}

/**
 * The string literals of a TypeScript/JavaScript source, with the line each starts on: quoted
 * strings and template texts (a template's `${…}` parts are scanned as code and stand as `?` in
 * its text). Comments and regular expression literals are skipped.
 */
export function stringLiterals(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let i = 0;
  let line = 1;
  /** the last significant character of code: a `/` after an operand divides, elsewhere it opens a regex */
  let last = '';
  const lineAt = () => line;
  const advance = (to: number) => {
    for (let k = i; k < to; k++) if (text[k] === '\n') line++;
    i = to;
  };
  const quoted = (q: string) => {
    const start = lineAt();
    let k = i + 1;
    let s = '';
    while (k < text.length && text[k] !== q) {
      if (text[k] === '\\') {
        s += text[k + 1] ?? '';
        k += 2;
      } else s += text[k++];
    }
    advance(k + 1);
    out.push({ line: start, text: s });
  };
  const template = () => {
    const start = lineAt();
    let k = i + 1;
    let s = '';
    while (k < text.length && text[k] !== '`') {
      if (text[k] === '\\') {
        s += text[k + 1] ?? '';
        k += 2;
      } else if (text[k] === '$' && text[k + 1] === '{') {
        advance(k + 2);
        code('}');
        k = i;
        s += '?';
      } else s += text[k++];
    }
    advance(k + 1);
    out.push({ line: start, text: s });
  };
  const regex = () => {
    let k = i + 1;
    let inClass = false;
    while (k < text.length && text[k] !== '\n') {
      const c = text[k];
      if (c === '\\') k += 2;
      else {
        if (c === '[') inClass = true;
        else if (c === ']') inClass = false;
        else if (c === '/' && !inClass) break;
        k++;
      }
    }
    while (/[a-z]/i.test(text[k + 1] ?? '')) k++;
    advance(k + 1);
  };
  /** Code up to the `close` that ends it (a template's `}`), or to the end of the text. */
  const code = (close: string | null) => {
    let depth = 0;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '/' && text[i + 1] === '/') {
        const end = text.indexOf('\n', i);
        advance(end < 0 ? text.length : end);
      } else if (c === '/' && text[i + 1] === '*') {
        const end = text.indexOf('*/', i + 2);
        advance(end < 0 ? text.length : end + 2);
      } else if (c === "'" || c === '"') {
        quoted(c);
        last = 'a';
      } else if (c === '`') {
        template();
        last = 'a';
      } else if (
        c === '/' &&
        (last === '' || /[(,=:[!&|?{};+\-*%<>~^]/.test(last) || /\b(?:return|typeof|case|of|in)$/.test(text.slice(Math.max(0, i - 8), i).trimEnd()))
      ) {
        regex();
        last = 'a';
      } else {
        if (c === '{') depth++;
        if (c === '}') {
          if (depth === 0 && close === '}') {
            advance(i + 1);
            return;
          }
          depth--;
        }
        if (!/\s/.test(c)) last = c;
        advance(i + 1);
      }
    }
  };
  code(null);
  return out;
}

/** SQL statements as this code writes them: upper-case verbs with the clause that makes them SQL. */
const SQL_STATEMENT = [
  /\bSELECT\b[\s\S]*\bFROM\b/,
  /\bINSERT\b[\s\S]*\bINTO\b/,
  /\bDELETE\s+FROM\b/,
  /\bUPDATE\s+\S+\s+SET\b/,
  /\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP\s+|TEMPORARY\s+|UNIQUE\s+)?(?:TABLE|VIEW|INDEX|MACRO|SEQUENCE|SCHEMA)\b/,
  /\bCOPY\b[\s\S]*\b(?:FROM|TO)\b/,
  /\bDROP\s+(?:TABLE|VIEW|INDEX|MACRO|SEQUENCE|SCHEMA)\b/,
  /\bALTER\s+TABLE\b/,
  /^\s*(?:SET|RESET)\s+\w+/,
  /^\s*CHECKPOINT\b/,
];

/**
 * Files outside store/ that may hold SQL text: the SQL twin of the series kernels, a
 * benchmark's reference (moving to bench/).
 */
export const SQL_EXEMPT = /^(?:store\/|engine\/series\/sqlTwin\.ts$)/;

/** String literals outside store/ that hold SQL, as `path:line: text` (STYLE.md habit 18: SQL only through the store). */
export function sqlOutsideStore(files: readonly SourceFile[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    if (SQL_EXEMPT.test(f.path)) continue;
    for (const lit of stringLiterals(f.text)) {
      if (SQL_STATEMENT.some((re) => re.test(lit.text))) out.push(`${f.path}:${lit.line}: ${lit.text.replace(/\s+/g, ' ').trim().slice(0, 80)}`);
    }
  }
  return out;
}

/** Imports of one family's own folder from outside families/: the rest of the program sees only families/index.ts. */
export function familyInternals(edges: readonly Edge[]): string[] {
  return edges
    .filter((e) => !e.from.startsWith('families/') && /^families\/[^/]+\//.test(e.to))
    .map((e) => `${e.from} → ${e.to}: only families/index.ts is the families' door`);
}
