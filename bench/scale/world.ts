// The scale bench's world: `vaultd demo` at the parameters, built once and cached by
// them (a file per parameter set in $VAULTD_SCALE_BENCH_DIR, default <tmp>/vaultd-scale-bench),
// with a sidecar JSON of how long its build took and its peak RSS. A run works on a copy so
// the cached world stays raw.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../common/version.js';

export interface WorldParams {
  vaults: number;
  wallets: number;
  days: number;
  seed: number;
  now: string;
}

export interface BuildFigures {
  wall_ms: number;
  peak_rss_mib: number | null;
  raw_rows: number | null;
  raw_rows_per_s: number | null;
}

export const VAULTD = join(PROJECT_ROOT, 'bin', 'vaultd.js');

/** Parameters from the environment: VAULTD_SCALE_VAULTS (1000), 100 wallets per vault, 730 days. */
export function worldParams(env = process.env): WorldParams {
  const vaults = Number(env.VAULTD_SCALE_VAULTS ?? 1000);
  return {
    vaults,
    wallets: Number(env.VAULTD_SCALE_WALLETS ?? vaults * 100),
    days: Number(env.VAULTD_SCALE_DAYS ?? 730),
    seed: 7,
    now: '2026-06-01T00:00:00Z',
  };
}

export const worldLabel = (p: WorldParams) => `vaultd demo --vaults ${p.vaults} --wallets ${p.wallets} --days ${p.days} --seed ${p.seed} --now ${p.now}`;

export function cacheDir(env = process.env): string {
  const dir = env.VAULTD_SCALE_BENCH_DIR ?? join(tmpdir(), 'vaultd-scale-bench');
  mkdirSync(dir, { recursive: true });
  return dir;
}

export interface Timed {
  code: number | null;
  wall_ms: number;
  /** from /usr/bin/time -v ("Maximum resident set size"), null without it */
  peak_rss_mib: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node bin/vaultd.js …` under /usr/bin/time -v when present: wall time and peak RSS. */
export const timedVaultd = (args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Timed> => timedScript(VAULTD, args, env);

/** Runs `node <script> …` under /usr/bin/time -v when present: wall time and peak RSS. */
export function timedScript(script: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Timed> {
  const useTime = existsSync('/usr/bin/time');
  const [cmd, argv] = useTime ? ['/usr/bin/time', ['-v', process.execPath, script, ...args]] : [process.execPath, [script, ...args]];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, argv as string[], { env: { VAULTD_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      const text = d.toString();
      stderr += text;
      // progress lines of long commands stay visible
      const progress = text.split('\n').filter((l) => /\d%/.test(l) && !l.startsWith('\t'));
      if (progress.length > 0) process.stderr.write(`${progress.join('\n')}\n`);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      resolve({ code, wall_ms: performance.now() - t0, peak_rss_mib: m ? Math.round(Number(m[1]) / 1024) : null, stdout, stderr });
    });
  });
}

/** The cached world for `p` (built now if missing) and the figures of its build. */
export async function ensureWorld(
  p: WorldParams,
  say: (line: string) => void,
  rebuild = false,
): Promise<{ path: string; build: BuildFigures; cached: boolean }> {
  const base = join(cacheDir(), `world-v${p.vaults}-w${p.wallets}-d${p.days}-s${p.seed}`);
  const path = `${base}.duckdb`;
  const sidecar = `${base}.json`;
  if (!rebuild && existsSync(path) && existsSync(sidecar)) return { path, build: JSON.parse(readFileSync(sidecar, 'utf8')) as BuildFigures, cached: true };
  const partial = `${base}.building.duckdb`;
  rmSync(partial, { force: true });
  rmSync(`${partial}.wal`, { force: true });
  say(`scale: building ${worldLabel(p)} into ${path} (cached for later runs)…`);
  const r = await timedVaultd([
    'demo',
    '--db',
    partial,
    '--vaults',
    String(p.vaults),
    '--wallets',
    String(p.wallets),
    '--days',
    String(p.days),
    '--seed',
    String(p.seed),
    '--now',
    p.now,
    '--force',
  ]);
  if (r.code !== 0) throw new Error(`vaultd demo failed (exit ${r.code}): ${r.stderr.trim().split('\n').slice(-5).join(' | ')}`);
  const rows = rawRows(r.stdout);
  const build: BuildFigures = {
    wall_ms: Math.round(r.wall_ms),
    peak_rss_mib: r.peak_rss_mib,
    raw_rows: rows,
    raw_rows_per_s: rows === null ? null : Math.round(rows / (r.wall_ms / 1000)),
  };
  renameSync(partial, path);
  if (existsSync(`${partial}.wal`)) renameSync(`${partial}.wal`, `${path}.wal`);
  writeFileSync(sidecar, JSON.stringify(build));
  return { path, build, cached: false };
}

/** Rows `vaultd demo` reports ("N snapshots, M events, K prices"), or null. */
function rawRows(stdout: string): number | null {
  const counts = [...stdout.matchAll(/(\d+) (?:snapshots|events|prices)\b/g)].map((m) => Number(m[1]));
  return counts.length > 0 ? counts.reduce((a, b) => a + b, 0) : null;
}

/** A working copy of the cached world (the database and its WAL), removed by the caller. */
export function workingCopy(path: string, dir: string): string {
  const copy = join(dir, 'work.duckdb');
  copyFileSync(path, copy);
  if (existsSync(`${path}.wal`)) copyFileSync(`${path}.wal`, `${copy}.wal`);
  return copy;
}
