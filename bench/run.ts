// `npm run bench` (= tsc && node dist/bench/run.js [filter…]): runs every compiled
// dist/bench/*.bench.js one after the other, prints each one's table, and merges the results
// into bench/results/local/latest.json (untracked); with `--update` into the committed
// bench/results/latest.json instead (the file the README table is made from, DESIGN §8).
//
// Convention for a bench module (bench/<name>.bench.ts):
//   export async function run(): Promise<BenchOutput>
// where BenchOutput = { name, results, table? }:
//   - name: a stable key in latest.json (e.g. "series_recompute");
//   - results: JSON-serializable figures (numbers, strings, nested objects);
//   - table: optional rows to print, each {figure, value, baseline, ratio, target, met, …};
//     without it the scalar leaves of `results` are printed.
// Setup stays out of the timed parts (tinybench), benches compare named alternatives side by
// side, and a bench throws if its alternatives disagree on the outputs they compute.
// Arguments filter bench files by substring: `node dist/bench/run.js series`.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, freemem, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface BenchOutput {
  name: string;
  results: Record<string, unknown>;
  table?: Record<string, string | number | boolean | null>[];
}

interface LatestFile {
  updated_at: string;
  machine: { node: string; cpus: number; cpu_model: string; memory_gib: number; free_memory_gib: number };
  results: Record<string, { ran_at: string; seconds: number; results: Record<string, unknown> }>;
}

const here = dirname(fileURLToPath(import.meta.url)); // dist/bench
const repoRoot = resolve(here, '..', '..');
const committedPath = join(repoRoot, 'bench', 'results', 'latest.json');
let latestPath = join(repoRoot, 'bench', 'results', 'local', 'latest.json');

async function main(args: string[]): Promise<number> {
  if (args.includes('--update')) latestPath = committedPath;
  const filters = args.filter((a) => a !== '--update');
  const files = readdirSync(here)
    .filter((f) => f.endsWith('.bench.js'))
    .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
    .sort();
  if (files.length === 0) {
    console.error(`no bench matches ${JSON.stringify(filters)} in ${here}`);
    return 2;
  }
  const latest = readLatest();
  let failed = 0;
  for (const file of files) {
    console.log(`\n=== ${file}`);
    const t0 = performance.now();
    try {
      const mod = (await import(pathToFileURL(join(here, file)).href)) as { run?: () => Promise<BenchOutput> };
      if (typeof mod.run !== 'function') throw new Error(`${file} exports no run()`);
      const out = await mod.run();
      const seconds = Math.round((performance.now() - t0) / 100) / 10;
      console.table(out.table ?? scalars(out.results));
      latest.results[out.name] = { ran_at: new Date().toISOString(), seconds, results: out.results };
      writeLatest(latest);
    } catch (err) {
      failed++;
      console.error(`${file} failed:`, err);
    }
  }
  console.log(`\nresults: ${latestPath}`);
  return failed === 0 ? 0 : 1;
}

function readLatest(): LatestFile {
  let prev: Partial<LatestFile> = {};
  try {
    prev = JSON.parse(readFileSync(existsSync(latestPath) ? latestPath : committedPath, 'utf8')) as LatestFile;
  } catch {
    // first run
  }
  return {
    updated_at: new Date().toISOString(),
    machine: {
      node: process.version,
      cpus: availableParallelism(),
      cpu_model: cpus()[0]?.model ?? 'unknown',
      memory_gib: Math.round(totalmem() / 2 ** 30),
      // what was free when the run started (a busy machine's figures are not a quiet one's)
      free_memory_gib: Math.round((freemem() / 2 ** 30) * 10) / 10,
    },
    results: prev.results ?? {},
  };
}

function writeLatest(latest: LatestFile): void {
  mkdirSync(dirname(latestPath), { recursive: true });
  latest.updated_at = new Date().toISOString();
  writeFileSync(latestPath, JSON.stringify(latest, null, 2) + '\n');
}

/** {a: {b: 1}} → [{figure: 'a.b', value: 1}] for benches without a table. */
function scalars(results: Record<string, unknown>, prefix = ''): { figure: string; value: unknown }[] {
  return Object.entries(results).flatMap(([k, v]) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? scalars(v as Record<string, unknown>, `${prefix}${k}.`) : [{ figure: prefix + k, value: v }],
  );
}

process.exitCode = await main(process.argv.slice(2));
