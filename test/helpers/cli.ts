// Runs the compiled `vaultd` bin as a child process, the way users and acceptance tests do.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../common/version.js';

export const BIN = join(PROJECT_ROOT, 'bin', 'vaultd.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function vaultd(args: string[], env: Record<string, string> = {}): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, VAULTD_LOG_LEVEL: 'warn', ...env },
    timeout: 300_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * `vaultd` run to its end without blocking this process: for a command that talks to servers
 * living in the test's own process (a devnet, a fixture), which spawnSync would starve.
 */
export function vaultdAsync(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, VAULTD_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

export function vaultdSpawn(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, VAULTD_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Resolve with the port once the server logs its "listening" line. */
export function waitForListening(child: ChildProcess, timeoutMs = 120_000): Promise<number> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${buf}`)), timeoutMs);
    child.stderr!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${buf}`));
    });
  });
}

/** SIGTERM every child still running and wait until each has exited. */
export async function stopChildren(children: readonly ChildProcess[]): Promise<void> {
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
  const exits = running.map((c) => new Promise((resolve) => c.once('exit', resolve)));
  for (const c of running) c.kill('SIGTERM');
  await Promise.all(exits);
}

/** `vaultd demo` into `db`: a small world (seed 7, 30 wallets, 15 days, now 2026-06-01) unless `args` say otherwise; throws with its stderr on failure. */
export function smallDemoDb(db: string, args: string[] = ['--seed', '7', '--now', '2026-06-01T00:00:00Z', '--wallets', '30', '--days', '15']): void {
  const r = vaultd(['demo', '--db', db, ...args]);
  if (r.status !== 0) throw new Error(`vaultd demo failed (exit ${r.status}): ${r.stderr}`);
}
