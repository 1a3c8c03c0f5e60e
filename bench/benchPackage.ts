// Comparison tools a bench runs beside vaultd (Ponder, Fastify) live in their own folders under
// bench/ with their own package.json and lockfile, so the root install (and a production
// install) never carries them. The first run of a bench that needs one installs it there.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url)); // dist/bench
/** bench/<folder> in the source tree (not dist/) */
export const benchPackageDir = (folder: string): string => resolve(here, '..', '..', 'bench', folder);

export type BenchPackage = { ok: true; dir: string; version: string; install_ms: number } | { ok: false; reason: string };

/**
 * Installs bench/<folder>'s lockfile when its node_modules has no `pkg`. `npm install --no-save`,
 * not `npm ci`: the npm mirror here lacks some packages' binaries for other platforms, so a
 * lockfile may miss their (optional) entries and `npm ci` refuses it; `install` takes the
 * locked versions of everything present and leaves the lockfile as it is.
 */
export async function ensureBenchPackage(folder: string, pkg: string, say: (line: string) => void): Promise<BenchPackage> {
  const dir = benchPackageDir(folder);
  const manifest = join(dir, 'node_modules', pkg, 'package.json');
  let installMs = 0;
  if (!existsSync(manifest)) {
    say(`${pkg}: installing into ${dir} (npm install --no-save, from its lockfile)…`);
    const t0 = performance.now();
    const r = await runCommand('npm', ['install', '--no-save', '--no-audit', '--no-fund'], dir, 600_000);
    installMs = Math.round(performance.now() - t0);
    if (r.code !== 0 || !existsSync(manifest))
      return { ok: false, reason: `npm install in bench/${folder} failed (exit ${r.code}): ${lastLines(r.output, 8).join(' | ')}` };
  }
  const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  return { ok: true, dir, version, install_ms: installMs };
}

/** Imports `pkg` from bench/<folder>'s own install (not the root's). */
export async function importBenchPackage<T>(folder: string, pkg: string): Promise<T> {
  const require = createRequire(join(benchPackageDir(folder), 'package.json'));
  return (await import(pathToFileURL(require.resolve(pkg)).href)) as T;
}

export const lastLines = (text: string, n: number): string[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-n);

export function runCommand(cmd: string, args: string[], cwd: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((res) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      res({ code: null, output: `${output}\n${err.message}` });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      res({ code, output });
    });
  });
}
