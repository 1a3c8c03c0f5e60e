// The single binary against the npm install (issue: single-binary self-hosting): its size, and
// spawn → first 200 of /v1/vaults for `vaultd serve --no-jobs` on the same demo world, each
// started the same number of times in one run, alternating. Builds the binary first.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../common/version.js';
import type { BenchOutput } from './run.js';
import { median } from './stats.js';

const STARTS = 7;
const binary = join(PROJECT_ROOT, 'dist', `vaultd-${process.platform}-${process.arch}`);

/** ms from spawn to the first 200 of /v1/vaults. */
async function firstOk(cmd: string, args: string[], port: number, env: NodeJS.ProcessEnv): Promise<number> {
  const t0 = performance.now();
  const child = spawn(cmd, args, { env, stdio: 'ignore' });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/v1/vaults`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return performance.now() - t0;
      if (child.exitCode !== null) throw new Error(`${cmd} exited with ${child.exitCode}`);
      if (performance.now() - t0 > 60_000) throw new Error(`${cmd} did not answer within 60 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  }
}

export async function run(): Promise<BenchOutput> {
  const built = spawnSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'buildBinary.mjs')], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('npm run build:binary failed');
  const dir = mkdtempSync(join(tmpdir(), 'vaultd-binary-bench-'));
  try {
    const db = join(dir, 'demo.duckdb');
    const env = { ...process.env, VAULTD_LOG_LEVEL: 'warn', XDG_CACHE_HOME: join(dir, 'cache') };
    const demo = spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin', 'vaultd.js'), 'demo', '--db', db, '--seed', '7', '--now', '2026-06-01T00:00:00Z'], {
      env,
      stdio: 'inherit',
    });
    if (demo.status !== 0) throw new Error('demo failed');
    const port = 18_000 + (process.pid % 1000);
    const serve = ['serve', '--db', db, '--port', String(port), '--host', '127.0.0.1', '--no-jobs'];
    const samples = { binary: [] as number[], node: [] as number[] };
    await firstOk(binary, serve, port, env); // first run extracts the native libraries to the cache
    for (let i = 0; i < STARTS; i++) {
      samples.binary.push(await firstOk(binary, serve, port, env));
      samples.node.push(await firstOk(process.execPath, [join(PROJECT_ROOT, 'bin', 'vaultd.js'), ...serve], port, env));
    }
    const size = statSync(binary).size;
    const results = {
      binary_bytes: size,
      spawn_to_first_200_ms: { binary: Math.round(median(samples.binary)), node_bin_vaultd_js: Math.round(median(samples.node)) },
      samples_ms: { binary: samples.binary.map(Math.round), node: samples.node.map(Math.round) },
      world: 'vaultd demo --seed 7 --now 2026-06-01T00:00:00Z (default size)',
    };
    return {
      name: 'binary',
      results,
      table: [
        { figure: 'binary size', value: `${(size / 2 ** 20).toFixed(1)} MiB`, baseline: '', ratio: null },
        {
          figure: `spawn → first 200 of /v1/vaults (median of ${STARTS})`,
          value: `${results.spawn_to_first_200_ms.binary} ms (binary)`,
          baseline: `${results.spawn_to_first_200_ms.node_bin_vaultd_js} ms (node bin/vaultd.js)`,
          ratio: Math.round((median(samples.binary) / median(samples.node)) * 100) / 100,
        },
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
