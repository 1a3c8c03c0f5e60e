// Item: every long-running command stops on SIGTERM/SIGINT at any moment with exit 0 within
// 10 s, and leaves nothing half-written. Driven through the real bin.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createStore } from '../store/store.js';
import { tempDir, testCommon } from './helpers/common.js';
import { vaultd, vaultdSpawn, waitForListening } from './helpers/cli.js';
import { eventually } from './helpers/eventually.js';
import { PROJECT_ROOT } from '../common/version.js';

const dir = tempDir('vaultd-signals-');
const big = ['--days', '400', '--wallets', '3000', '--vaults', '200', '--seed', '3', '--now', '2026-01-01T00:00:00Z'];

/** Spawn, wait for a log line matching `when`, send `signal`; resolve with the exit code and the ms it took. */
async function stopAt(args: string[], when: RegExp, signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; ms: number; log: string }> {
  const child = vaultdSpawn(args);
  let log = '';
  // 'close': the exit code once its stderr is read to the end too (the last log lines)
  const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      log += d.toString();
      if (when.test(log)) resolve();
    });
    void exited.then(() => reject(new Error(`exited before ${when}: ${log}`)));
  });
  const t0 = Date.now();
  child.kill(signal);
  const code = await exited;
  return { code, ms: Date.now() - t0, log };
}

describe('stop signals', () => {
  const sockets: Socket[] = [];
  afterAll(() => {
    for (const s of sockets) s.destroy();
  });

  it('demo: SIGTERM mid-build exits 0 at once and leaves no file', async () => {
    const db = join(dir, 'demo.duckdb');
    const r = await stopAt(['demo', '--db', db, ...big], /"msg":"progress"/);
    expect(r.code).toBe(0);
    expect(r.ms).toBeLessThan(10_000);
    expect(readdirSync(dir).filter((f) => f.startsWith('demo.duckdb'))).toEqual([]);
  });

  it('serve: SIGINT while the first start builds the world exits 0 and leaves no file', async () => {
    const db = join(dir, 'serve.duckdb');
    const r = await stopAt(['serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--demo'], /"msg":"progress"/, 'SIGINT');
    expect(r.code).toBe(0);
    expect(r.ms).toBeLessThan(10_000);
    expect(existsSync(db)).toBe(false);
  });

  it('ingest: SIGTERM during the first price round (an RPC that never answers) exits 0', async () => {
    const silent = createNetServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const rpc = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const config = join(dir, 'silent.json');
    writeFileSync(
      config,
      JSON.stringify({
        chains: [{ chain_id: 1, slug: 'ethereum', name: 'Ethereum', rpc_urls: [rpc], finality_blocks: 0 }],
        registry: {
          vaults: [
            {
              chain_id: 1,
              address: '0xbeef01735c132ada46aa9aa4c54623caa92a64cb',
              vault_type: 'morpho_v1',
              name: 'Steakhouse USDC',
              symbol: 'steakUSDC',
              numeraire_token: { address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', decimals: 6, symbol: 'USDC' },
            },
          ],
        },
        prices: {
          providers: [
            {
              kind: 'chainlink',
              chain_id: 1,
              feeds: [{ token: '0x0000000000000000000000000000000000000001', aggregator: '0x0000000000000000000000000000000000000002' }],
            },
          ],
        },
      }),
    );
    const db = join(dir, 'ingest.duckdb');
    const child = vaultdSpawn(['ingest', '--db', db, '--config', config]);
    let log = '';
    child.stderr!.on('data', (d: Buffer) => void (log += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    void exited.then((code) => sockets.length === 0 && silent.emit('connection-missing', code));
    // the first round has reached the RPC (and waits on it)
    await new Promise<void>((r, reject) => {
      if (sockets.length > 0) return r();
      silent.once('connection', () => r());
      silent.once('connection-missing', (code) => reject(new Error(`ingest exited ${code} before reaching the RPC: ${log}`)));
    });
    const t0 = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
  });

  it('npm start: a SIGTERM to npm stops the server it started', async () => {
    const db = join(dir, 'npm-start.duckdb');
    expect(vaultd(['demo', '--db', db, '--days', '10', '--wallets', '20']).status).toBe(0);
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, VAULTD_DB: db, VAULTD_PORT: '0', VAULTD_HOST: '127.0.0.1', VAULTD_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const port = await waitForListening(npm);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    const exited = new Promise<number | null>((r) => npm.once('exit', (code) => r(code)));
    npm.kill('SIGTERM');
    await exited;
    // the server itself is gone too, not orphaned: its port refuses connections
    const up = await eventually(
      () =>
        fetch(`http://127.0.0.1:${port}/health`).then(
          () => true,
          () => false,
        ),
      (answered) => !answered,
      200,
    );
    expect(up).toBe(false);
  });

  it('recompute --full: a SIGTERM mid-run exits 0 and the derived tables stay one consistent set', async () => {
    const db = join(dir, 'recompute.duckdb');
    expect(vaultd(['demo', '--db', db, ...big]).status).toBe(0);
    const count = async () => {
      const store = await createStore(testCommon(), { path: db });
      try {
        return await store.one<{ m: bigint; p: bigint; a: bigint }>(
          'q',
          'SELECT (SELECT count(*) FROM vault_metrics_hourly) AS m, (SELECT count(*) FROM positions) AS p, (SELECT count(*) FROM activity) AS a',
        );
      } finally {
        await store.close();
      }
    };
    const before = await count();
    expect(before).toEqual({ m: 0n, p: 0n, a: 0n });
    const r = await stopAt(['recompute', '--full', '--db', db], /"msg":"progress"/);
    expect(r.code).toBe(0);
    expect(r.ms).toBeLessThan(10_000);
    const after = await count();
    // all three tables from before the run, or all three from it: never a mix
    const empty = after!.m === 0n && after!.p === 0n && after!.a === 0n;
    const full = after!.m > 0n && after!.p > 0n && after!.a > 0n;
    expect(empty || full).toBe(true);
    expect(vaultd(['recompute', '--full', '--db', db]).status).toBe(0);

    // A SIGTERM while the three tables are being written (inside their transaction: they were
    // cleared, the first pass's series are read): the stop's signal reaches the work, which ends
    // and rolls back, and the file is closed cleanly — the previous set stays whole, and no
    // write-ahead log is left to replay.
    const written = await count();
    expect(written!.m).toBeGreaterThan(0n);
    const w = await stopAt(['recompute', '--full', '--db', db], /"percent":40,/);
    expect(w.code).toBe(0);
    expect(w.log).toMatch(/"stage":"(series|positions|write_\w+)"[^\n]*"msg":"recompute stopped"/);
    expect(await count()).toEqual(written);
    expect(existsSync(`${db}.wal`)).toBe(false);
  }, 240_000);
});
