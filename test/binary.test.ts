// The single binary (npm run build:binary): built from this checkout, copied alone into an
// empty folder and run there with a scrubbed environment — no Node, no node_modules.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, VERSION } from '../common/version.js';
import { tempDir } from './helpers/common.js';
import { waitForListening } from './helpers/cli.js';

const name = `vaultd-${process.platform}-${process.arch}`;
const dir = tempDir('vaultd-binary-');
const bin = join(dir, name);
// a scrubbed environment (as `env -i HOME=$tmp PATH=$tmp/empty-bin`): no NODE_*, no npm_*,
// no node on PATH (it lives in /usr/bin), no node_modules up the tree; the native libraries'
// cache lands under $HOME/.cache in the test folder
mkdirSync(join(dir, 'empty-bin'));
const env = { HOME: dir, PATH: join(dir, 'empty-bin') };
const run = (args: string[], extra: Record<string, string> = {}) =>
  spawnSync(bin, args, { cwd: dir, env: { ...env, ...extra }, encoding: 'utf8', timeout: 120_000 });

describe.runIf(process.platform === 'linux')('single binary', () => {
  beforeAll(() => {
    const built = spawnSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'buildBinary.mjs'), '--no-compile'], { encoding: 'utf8', timeout: 240_000 });
    expect(built.status, built.stderr).toBe(0);
    const sums = readFileSync(join(PROJECT_ROOT, 'dist', 'SHA256SUMS'), 'utf8');
    expect(sums).toMatch(new RegExp(`^[0-9a-f]{64}  ${name}\\n$`));
    copyFileSync(join(PROJECT_ROOT, 'dist', name), bin);
    expect(readdirSync(dir).sort()).toEqual(['empty-bin', name]);
  }, 300_000);

  it('--version prints the version and the commit; help lists every command', () => {
    const v = run(['--version']);
    expect(v.status).toBe(0);
    expect(v.stdout).toMatch(new RegExp(`^${VERSION.replace(/\./g, '\\.')} \\(commit ([0-9a-f]{12}|unknown)\\)\\n$`));
    const h = run(['help']);
    expect(h.status).toBe(0);
    for (const cmd of ['demo', 'serve', 'recompute', 'ingest', 'devnet', 'keys', 'wallets']) expect(h.stdout).toContain(`vaultd ${cmd}`);
  });

  it('demo, wallets, keys, recompute work on a world it builds; devnet says it needs the npm install', () => {
    const quiet = { VAULTD_LOG_LEVEL: 'warn' };
    expect(run(['demo', '--db', 'w.duckdb', '--days', '20', '--wallets', '30'], quiet).status).toBe(0);
    const w = run(['wallets', '--db', 'w.duckdb', '--limit', '3'], quiet);
    expect(w.status).toBe(0);
    expect(w.stdout.trim().split('\n')).toHaveLength(3);
    expect(run(['keys', 'create', 'bot', '--db', 'w.duckdb'], quiet).stdout).toMatch(/\nvk_[A-Za-z0-9_-]{43}\n$/);
    const r = run(['recompute', '--full', '--db', 'w.duckdb'], quiet);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^recomputed 25 vaults, /m);
    const d = run(['devnet'], quiet);
    expect(d.status).toBe(2);
    expect(d.stderr).toMatch(/^vaultd devnet needs the development install .*run it from a source checkout after `npm ci`\n$/);
    const i = run(['ingest', '--once', '--db', 'w.duckdb'], quiet);
    expect(i.status).toBe(2);
  });

  it('serve answers byte for byte (bodies, ETags) what `node bin/vaultd.js serve` answers on the same database; SIGTERM exits 0', async () => {
    const quiet = { VAULTD_LOG_LEVEL: 'warn' };
    expect(run(['demo', '--db', 'same.duckdb', '--seed', '7', '--now', '2026-06-01T00:00:00Z'], quiet).status).toBe(0);
    const wallet = run(['wallets', '--db', 'same.duckdb', '--limit', '1'], quiet).stdout.trim();
    expect(wallet).toMatch(/^0x[0-9a-f]{40}$/);
    const answers = async (cmd: string, args: string[], childEnv: NodeJS.ProcessEnv) => {
      const child = spawn(cmd, [...args, 'serve', '--db', join(dir, 'same.duckdb'), '--port', '0', '--host', '127.0.0.1', '--no-jobs'], {
        cwd: dir,
        env: { ...childEnv, VAULTD_LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        const port = await waitForListening(child);
        const get = async (path: string) => {
          const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'x-request-id': 'same-request', 'accept-encoding': 'identity' } });
          return { status: res.status, etag: res.headers.get('etag'), body: await res.text() };
        };
        const vaults = await get('/v1/vaults');
        const id = (JSON.parse(vaults.body) as { data: { vault_id: string }[] }).data[0]!.vault_id;
        const out = {
          health: await get('/health'),
          vaults,
          positions: await get(`/v1/users/${wallet}/positions`),
          timeseries: await get(`/v1/vaults/${id}/timeseries?granularity=hour&limit=1000`),
        };
        const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
        return out;
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    };
    const fromBinary = await answers(bin, [], env);
    const fromNode = await answers(process.execPath, [join(PROJECT_ROOT, 'bin', 'vaultd.js')], process.env);
    expect(JSON.parse(fromBinary.timeseries.body).data).toHaveLength(1000);
    for (const key of ['vaults', 'positions', 'timeseries'] as const) {
      expect(fromBinary[key].status, key).toBe(200);
      expect(fromBinary[key].etag, key).toBe(fromNode[key].etag);
      expect(fromBinary[key].body, key).toBe(fromNode[key].body);
    }
    // /health differs only in uptime_seconds
    const health = (b: string) => ({ ...JSON.parse(b), uptime_seconds: 0 });
    expect(health(fromBinary.health.body)).toEqual(health(fromNode.health.body));
  });

  it('serve with no arguments creates ./data/vaultd.duckdb with the demo world and serves it; SIGTERM exits 0', async () => {
    const child = spawn(bin, ['serve', '--port', '0', '--host', '127.0.0.1'], {
      cwd: dir,
      env: { ...env, VAULTD_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const port = await waitForListening(child);
      expect(existsSync(join(dir, 'data', 'vaultd.duckdb'))).toBe(true);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      const vaults = (await (await fetch(`http://127.0.0.1:${port}/v1/vaults`)).json()) as { data: unknown[] };
      expect(vaults.data.length).toBeGreaterThan(0);
      // the explorer pages and the client SDK ride inside the binary
      for (const [path, type] of [
        ['/', 'text/html'],
        ['/docs', 'text/html'],
        ['/explorer/app.js', 'text/javascript'],
        ['/client/index.js', 'text/javascript'],
      ]) {
        const res = await fetch(`http://127.0.0.1:${port}${path}`);
        expect(res.status, path).toBe(200);
        expect(res.headers.get('content-type'), path).toMatch(new RegExp(`^${type}`));
      }
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
