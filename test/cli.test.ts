// The command-line contract of DESIGN §2, driven through the real bin.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Agent as HttpAgent, get as httpGet } from 'node:http';
import { createConnection, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../store/store.js';
import { tempDir, testCommon } from './helpers/common.js';
import { BIN, vaultd, vaultdSpawn, waitForListening } from './helpers/cli.js';
import { eventually } from './helpers/eventually.js';

const require = createRequire(import.meta.url);
const dir = tempDir('vaultd-cli-');
const db = join(dir, 'world.duckdb');
const small = ['--seed', '7', '--now', '2026-01-10T00:00:00Z', '--days', '30', '--wallets', '40'];

function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('vaultd CLI', () => {
  beforeAll(() => {
    const r = vaultd(['demo', '--db', db, ...small]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^demo world: \d+ vaults, \d+ wallets, \d+ snapshots, \d+ events, \d+ prices in [\d.]+ s \(\d+ rows\/s\) -> /);
  });

  it('error: unknown flag names it, exit 2, nothing written', () => {
    const target = join(dir, 'never.duckdb');
    const r = vaultd(['demo', '--db', target, '--bogus']);
    expect(r.status).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/^vaultd demo: .*'--bogus'/);
    expect(existsSync(target)).toBe(false);
  });

  it('error: unknown command and bad flag values exit 2', () => {
    expect(vaultd(['explode']).status).toBe(2);
    const r = vaultd(['demo', '--db', join(dir, 'x.duckdb'), '--days', 'many']);
    expect(r.status).toBe(2);
    expect(oneLine(r.stderr)).toBe('vaultd demo: invalid --days "many": expected an integer from 1 to 3650');
    expect(oneLine(vaultd(['demo', '--db', join(dir, 'x.duckdb'), '--now', 'yesterday']).stderr)).toContain('invalid --now "yesterday"');
  });

  it('every command prints its own usage for --help (exit 0); `help CMD` too', () => {
    for (const cmd of ['demo', 'serve', 'recompute', 'ingest', 'devnet', 'keys', 'wallets']) {
      for (const args of [
        [cmd, '--help'],
        [cmd, '-h'],
        ['help', cmd],
      ]) {
        const r = vaultd(args);
        expect(r.status, args.join(' ')).toBe(0);
        expect(r.stdout).toMatch(new RegExp(`^Usage:\\n  vaultd ${cmd}( |\\n)`));
        expect(r.stdout.match(/^ {2}vaultd /gm)).toHaveLength(1);
      }
    }
  });

  it('error: negative numbers are named as bad values; sub-command errors carry one prefix', () => {
    const neg = vaultd(['demo', '--db', join(dir, 'x.duckdb'), '--days', '-5']);
    expect(neg.status).toBe(2);
    expect(oneLine(neg.stderr)).toBe('vaultd demo: invalid --days "-5": expected an integer from 1 to 3650');
    expect(oneLine(vaultd(['serve', '--port', '-1', '--db', join(dir, 'x.duckdb')]).stderr)).toBe(
      'vaultd serve: invalid --port "-1": expected an integer from 0 to 65535',
    );
    const flag = vaultd(['serve', '--bogus']);
    expect(oneLine(flag.stderr)).toMatch(/^vaultd serve: Unknown option '--bogus'/);
    expect(oneLine(vaultd(['keys', 'create']).stderr)).toBe('vaultd keys create: missing NAME');
  });

  it('error: a config key typo suggests the closest key', () => {
    const config = join(dir, 'typo.json');
    writeFileSync(config, JSON.stringify({ rate_limit: { keyed_per_minute: 5 } }));
    const r = vaultd(['serve', '--config', config, '--db', join(dir, 'y.duckdb')]);
    expect(r.status).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/unknown key "rate_limit"; did you mean "rate_limits"\?$/);
  });

  it('error: a bad config value names the key', () => {
    const config = join(dir, 'bad.json');
    writeFileSync(config, JSON.stringify({ rate_limits: { keyed_per_minute: -5 } }));
    const r = vaultd(['serve', '--config', config, '--db', join(dir, 'y.duckdb')]);
    expect(r.status).toBe(2);
    expect(oneLine(r.stderr)).toContain('"rate_limits.keyed_per_minute"');
  });

  it('error: an unwritable database path is one clear line, exit 2', () => {
    const r = vaultd(['demo', '--db', '/proc/vaultd-nope/world.duckdb', ...small]);
    expect(r.status).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/^vaultd demo: cannot create the folder of database "\/proc\/vaultd-nope\/world.duckdb"/);
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const under = vaultd(['demo', '--db', join(file, 'k.duckdb'), ...small]);
    expect(under.status).toBe(2);
    expect(oneLine(under.stderr)).toMatch(/^vaultd demo: cannot create the folder of database ".*a-file\/k.duckdb"/);
  });

  it('error: wallets, keys and recompute never create a database; a mistyped --db is one line, exit 2', () => {
    const typo = join(dir, 'typo.duckdb');
    for (const args of [['wallets'], ['keys', 'list'], ['keys', 'create', 'bot'], ['keys', 'revoke', 'key_1'], ['recompute']]) {
      const r = vaultd([...args, '--db', typo]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(oneLine(r.stderr)).toBe(`vaultd ${args[0]}: no database at "${typo}"; check --db, or create one with \`vaultd demo --db ${typo}\``);
      expect(existsSync(typo)).toBe(false);
    }
  });

  it('error: a file that is not a DuckDB database says so, without blaming permissions', () => {
    const junk = join(dir, 'junk.duckdb');
    writeFileSync(junk, 'not a database '.repeat(1000));
    const r = vaultd(['wallets', '--db', junk]);
    expect(r.status).toBe(2);
    expect(oneLine(r.stderr)).toBe(
      `vaultd wallets: "${junk}" is not a DuckDB database or is damaged; restore it from a backup, or move it away and create a world with \`vaultd demo --db ${junk}\``,
    );
  });

  it('keys and wallets wait out another process briefly holding the database; the lock error names the holder', async () => {
    // the holder lets go when told (its stdin closes), once the CLI has said it is waiting: no race with a timer
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `
      const { DuckDBInstance } = require(${JSON.stringify(require.resolve('@duckdb/node-api'))});
      DuckDBInstance.create(${JSON.stringify(db)}).then((i) => {
        process.stdout.write('held\\n');
        process.stdin.resume();
        process.stdin.on('end', () => { i.closeSync(); process.exit(0); });
      });
    `,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const holderExit = new Promise((r) => holder.once('exit', r));
    try {
      await new Promise<void>((r) => holder.stdout!.once('data', () => r()));
      await expect(createStore(testCommon(), { path: db })).rejects.toThrow(
        new RegExp(`database ".*" is in use by PID ${holder.pid} \\(.*node.*\\); stop that process or pass another --db`),
      );
      const cli = vaultdSpawn(['wallets', '--db', db, '--limit', '1'], { VAULTD_LOG_LEVEL: 'warn' });
      let stdout = '';
      let stderr = '';
      cli.stdout!.on('data', (d: Buffer) => void (stdout += d.toString()));
      const exited = new Promise<number | null>((r) => cli.once('exit', (code) => r(code)));
      await new Promise<void>((resolve, reject) => {
        cli.stderr!.on('data', (d: Buffer) => {
          stderr += d.toString();
          if (stderr.includes('database is locked by another process; waiting')) resolve();
        });
        void exited.then((code) => reject(new Error(`vaultd wallets exited with ${code} before waiting: ${stderr}`)));
      });
      holder.stdin!.end();
      expect(await exited).toBe(0);
      expect(JSON.parse(oneLine(stderr))).toMatchObject({
        level: 'warn',
        holder: expect.stringContaining(`PID ${holder.pid} `),
        msg: 'database is locked by another process; waiting',
      });
      expect(stdout).toMatch(/^0x[0-9a-f]{40}\n$/);
    } finally {
      holder.stdin!.end();
      await holderExit;
    }
  });

  it('demo refuses to replace a world without --force, replaces it with --force', () => {
    const again = vaultd(['demo', '--db', db, ...small]);
    expect(again.status).toBe(2);
    expect(oneLine(again.stderr)).toContain('already holds a world; pass --force to replace it');
    expect(vaultd(['demo', '--db', db, ...small, '--force']).status).toBe(0);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('a demo killed mid-build leaves no database behind', async () => {
    const target = join(dir, 'killed.duckdb');
    const child = vaultdSpawn(['demo', '--db', target, '--days', '400', '--wallets', '3000', '--vaults', '200']);
    await new Promise<void>((resolve) => {
      child.stderr!.on('data', (d: Buffer) => {
        if (d.toString().includes('"msg":"progress"')) resolve();
      });
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(existsSync(target)).toBe(false);
    // the next build cleans the leftovers of the killed one
    expect(vaultd(['demo', '--db', target, ...small]).status).toBe(0);
    expect(readdirSync(dir).filter((f) => f.startsWith('killed.duckdb.tmp-'))).toEqual([]);
  });

  it('wallets: one address per line, most active first', async () => {
    const r = vaultd(['wallets', '--db', db, '--limit', '5']);
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(5);
    for (const l of lines) expect(l).toMatch(/^0x[0-9a-f]{40}$/);
    const store = await createStore(testCommon(), { path: db });
    try {
      const counts = await store.rows<{ wallet: string; n: bigint }>(
        'q',
        'SELECT wallet, count(*) AS n FROM vault_events GROUP BY wallet ORDER BY n DESC, wallet LIMIT 5',
      );
      expect(lines).toEqual(counts.map((c) => c.wallet));
      expect(counts[0]!.n >= counts[4]!.n).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('ingest --once: static prices and TVL sources, one summary line each; a bad provider config names its key', () => {
    const copy = join(dir, 'ingest.duckdb');
    expect(vaultd(['demo', '--db', copy, ...small]).status).toBe(0);
    const config = join(dir, 'prices.json');
    writeFileSync(
      config,
      JSON.stringify({
        prices: { providers: [{ kind: 'static', prices: [{ chain_id: 1, address: '0x0000000000000000000000000000000000000bad', usd: '2.5' }] }] },
        tvl_sources: [
          { id: 'fixed', label: 'Fixed', kind: 'static', usd: 1000.125 },
          { id: 'down', label: 'Down', kind: 'http', url: 'http://127.0.0.1:9/tvl', timeout_ms: 500 },
        ],
      }),
    );
    const r = vaultd(['ingest', '--once', '--config', config, '--db', copy]);
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^prices static: 1 rows for 1 tokens — ok$/);
    expect(lines[1]).toBe('tvl source fixed: 1000.125 USD — ok');
    expect(lines[2]).toMatch(/^tvl source down: failed: .*127\.0\.0\.1:9/);

    const bad = join(dir, 'bad-prices.json');
    writeFileSync(
      bad,
      JSON.stringify({
        prices: { providers: [{ kind: 'chainlink', chain_id: 1, feeds: [{ token: 'nope', aggregator: '0x0000000000000000000000000000000000000001' }] }] },
      }),
    );
    const e = vaultd(['ingest', '--once', '--config', bad, '--db', copy]);
    expect(e.status).toBe(2);
    expect(oneLine(e.stderr)).toContain('"prices.providers.0.feeds.0.token"');
  });

  it('ingest --once with failing upstreams: one line per chain and provider, hosts named, keys never printed', async () => {
    const probe = createNetServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const dead = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise((r) => probe.close(r));
    const config = join(dir, 'failing-once.json');
    writeFileSync(
      config,
      JSON.stringify({
        chains: [{ chain_id: 1, slug: 'ethereum', name: 'Ethereum', rpc_urls: [`${dead}/v2/SECRETKEY123`], finality_blocks: 0 }],
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
        prices: { providers: [{ kind: 'http', base_url: `${dead}/pro?x_cg_pro_api_key=SECRETKEY456`, timeout_ms: 500 }] },
      }),
    );
    const r = vaultd(['ingest', '--once', '--db', join(dir, 'failing-once.duckdb'), '--config', config]);
    expect(r.status).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^chain 1 \(ethereum\): .* — stalled: /);
    expect(lines[1]).toMatch(/^prices http:defillama: 0 rows for \d+ tokens — failed: /);
    expect(r.stdout + r.stderr).not.toContain('SECRETKEY');
  });

  it('keys: create prints the secret alone on the last line; list; revoke', async () => {
    const kdb = join(dir, 'keys.duckdb');
    await (await createStore(testCommon(), { path: kdb })).close();
    const created = vaultd(['keys', 'create', 'ci bot', '--db', kdb]);
    expect(created.status).toBe(0);
    const lines = created.stdout.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^vk_[A-Za-z0-9_-]{43}$/);
    const id = /created API key (key_[0-9a-f]+)/.exec(created.stdout)![1]!;
    expect(vaultd(['keys', 'list', '--db', kdb]).stdout).toMatch(new RegExp(`^${id}\\tci bot\\tkeyed\\t\\S+Z\\tactive$`, 'm'));
    expect(vaultd(['keys', 'revoke', id, '--db', kdb]).status).toBe(0);
    expect(vaultd(['keys', 'list', '--db', kdb]).stdout).toMatch(new RegExp(`^${id}\\t.*\\trevoked \\S+Z$`, 'm'));
    const missing = vaultd(['keys', 'revoke', 'key_000', '--db', kdb]);
    expect(missing.status).toBe(2);
    expect(oneLine(missing.stderr)).toContain('no API key with id "key_000"');
    expect(vaultd(['keys', 'create', '--db', kdb]).status).toBe(2);
  });

  describe('serve', () => {
    let child: ReturnType<typeof vaultdSpawn>;
    let port: number;
    beforeAll(async () => {
      child = vaultdSpawn(['serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--no-jobs']);
      port = await waitForListening(child);
    });
    afterAll(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });

    it('answers /health with status, version and uptime', async () => {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const body = await res.json();
      expect(body).toEqual({ status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/), uptime_seconds: expect.any(Number) });
    });

    it('a second server on a taken port fails with one line naming the port, exit 2 (no shared port)', () => {
      const other = join(dir, 'second.duckdb');
      expect(vaultd(['demo', '--db', other, ...small]).status).toBe(0);
      const r = vaultd(['serve', '--db', other, '--port', String(port), '--host', '127.0.0.1', '--no-jobs']);
      expect(r.status).toBe(2);
      expect(
        oneLine(
          r.stderr
            .split('\n')
            .filter((l) => !l.startsWith('{'))
            .join('\n'),
        ),
      ).toBe(`vaultd serve: port ${port} on 127.0.0.1 is already in use by another process; stop it or pass another --port`);
    });

    it('an invalid --host is named as the host, exit 2', () => {
      const r = vaultd(['serve', '--db', join(dir, 'second.duckdb'), '--port', '0', '--host', '192.0.2.1', '--no-jobs']);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('invalid --host "192.0.2.1"');
      expect(r.stderr).not.toContain('--port');
    });

    it('SIGTERM: stops and exits 0', async () => {
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    });
  });

  it('a restart with unchanged inputs serves the snapshot it last published (same refreshed_at and ETag); new inputs publish anew', async () => {
    const db2 = join(dir, 'restart.duckdb');
    expect(vaultd(['demo', '--db', db2, ...small]).status).toBe(0);
    const serveOnce = async () => {
      const child = vaultdSpawn(['serve', '--db', db2, '--port', '0', '--host', '127.0.0.1', '--no-jobs']);
      try {
        const port = await waitForListening(child);
        const res = await fetch(`http://127.0.0.1:${port}/v1/vaults`);
        const body = (await res.json()) as { meta: { refreshed_at: string } };
        return { refreshed_at: body.meta.refreshed_at, etag: res.headers.get('etag') };
      } finally {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    };
    const first = await serveOnce();
    expect(first.etag).toMatch(/^"/);
    // a publish time strictly earlier than any later one (publish times have one-second resolution)
    await new Promise((r) => setTimeout(r, 1100));
    expect(await serveOnce()).toEqual(first);

    const config = join(dir, 'restart-prices.json');
    writeFileSync(
      config,
      JSON.stringify({
        prices: { providers: [{ kind: 'static', prices: [{ chain_id: 1, address: '0x0000000000000000000000000000000000000bad', usd: '3' }] }] },
      }),
    );
    expect(vaultd(['ingest', '--once', '--config', config, '--db', db2]).status).toBe(0);
    const changed = await serveOnce();
    expect(changed.etag).not.toBe(first.etag);
    expect(Date.parse(changed.refreshed_at)).toBeGreaterThan(Date.parse(first.refreshed_at));
  });

  it('unknown is null: a chain never synced and a failing price provider show as such, not as invented numbers', async () => {
    // a port with nothing behind it: every RPC and price request fails at once
    const probe = createNetServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const dead = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise((r) => probe.close(r));
    const config = join(dir, 'dead-upstreams.json');
    const vault = '0xbeef01735c132ada46aa9aa4c54623caa92a64cb';
    writeFileSync(
      config,
      JSON.stringify({
        chains: [{ chain_id: 1, slug: 'ethereum', name: 'Ethereum', rpc_urls: [dead], finality_blocks: 0 }],
        registry: {
          vaults: [
            {
              chain_id: 1,
              address: vault,
              vault_type: 'morpho_v1',
              name: 'Steakhouse USDC',
              symbol: 'steakUSDC',
              numeraire_token: { address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', decimals: 6, symbol: 'USDC' },
            },
          ],
        },
        prices: { providers: [{ kind: 'http', base_url: dead, timeout_ms: 500 }] },
      }),
    );
    const child = vaultdSpawn(['serve', '--db', join(dir, 'dead-upstreams.duckdb'), '--port', '0', '--host', '127.0.0.1', '--config', config]);
    try {
      const port = await waitForListening(child);
      const get = async (path: string): Promise<any> => (await fetch(`http://127.0.0.1:${port}${path}`)).json();
      expect(await get('/health')).toMatchObject({ status: 'degraded', stalled_chains: [1] });
      expect(await get('/health/chains')).toEqual([{ chain_id: 1, latest_block: null, latest_timestamp: null, lag_seconds: null, freshness: 'stalled' }]);
      const [row] = (await get('/v1/vaults')).data;
      expect(row.metrics).toEqual({
        tvl: { native: null, usd: null },
        unit_price: null,
        total_supply: null,
        apy_7d: null,
        apy_30d: null,
        apy_90d: null,
        as_of: null,
      });
      // the prices round runs in the background: wait for it to have failed
      const tvl = await eventually(
        () => get('/v1/tvl'),
        (t) => t.meta.partial_errors !== null,
        200,
      );
      expect(tvl.data.tvl.usd).toBeNull();
      expect(tvl.meta.partial_errors).toEqual([
        { code: 'PRICE_PROVIDER_FAILED', message: expect.stringContaining('price provider "http:defillama" failed'), resource_id: 'http:defillama' },
      ]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('server.trusted_proxies: behind a trusted proxy each X-Forwarded-For client has its own budget; otherwise the header is ignored', async () => {
    const copy = join(dir, 'proxied.duckdb');
    copyFileSync(db, copy);
    const start = async (name: string, trusted: string[]) => {
      const config = join(dir, `${name}.json`);
      writeFileSync(config, JSON.stringify({ server: { trusted_proxies: trusted }, rate_limits: { anonymous_per_minute: 2 } }));
      const child = vaultdSpawn(['serve', '--db', copy, '--port', '0', '--host', '127.0.0.1', '--no-jobs', '--config', config]);
      return { child, port: await waitForListening(child) };
    };
    const trusting = await start('trusting', ['127.0.0.0/8']);
    const plainSrv = await start('plain', []);
    try {
      const status = async (port: number, client: string) =>
        (await fetch(`http://127.0.0.1:${port}/v1/strategies`, { headers: { 'x-forwarded-for': client } })).status;
      expect([await status(trusting.port, '203.0.113.1'), await status(trusting.port, '203.0.113.1'), await status(trusting.port, '203.0.113.1')]).toEqual([
        200, 200, 429,
      ]);
      expect(await status(trusting.port, '203.0.113.2')).toBe(200);
      // not configured: the header names nobody, every request is the socket's
      expect([await status(plainSrv.port, '203.0.113.1'), await status(plainSrv.port, '203.0.113.2'), await status(plainSrv.port, '203.0.113.3')]).toEqual([
        200, 200, 429,
      ]);
    } finally {
      trusting.child.kill('SIGKILL');
      plainSrv.child.kill('SIGKILL');
    }
  });

  it('at the file-descriptor limit the server stops accepting (no accept spin), keeps serving open connections, and accepts again after', async () => {
    const copy = join(dir, 'fd-limit.duckdb');
    copyFileSync(db, copy);
    const child = spawn('sh', ['-c', `ulimit -n 512 && exec "${process.execPath}" "${BIN}" serve --db "${copy}" --port 0 --host 127.0.0.1 --no-jobs`], {
      env: { ...process.env, VAULTD_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const flood: Socket[] = [];
    try {
      const port = await waitForListening(child);
      let log = '';
      child.stderr!.on('data', (d: Buffer) => void (log += d.toString()));
      // one kept-alive connection opened before the flood
      const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
      const health = () =>
        new Promise<number>((resolve, reject) => {
          const req = httpGet({ host: '127.0.0.1', port, path: '/health', agent }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          });
          req.on('error', reject);
        });
      expect(await health()).toBe(200);
      // start-up work done first (the snapshot files are written once the server listens)
      await eventually(
        () => log,
        (l) => l.includes('snapshot files written'),
      );
      for (let i = 0; i < 520; i++) {
        const s = createConnection(port, '127.0.0.1');
        s.on('error', () => undefined);
        flood.push(s);
      }
      // waits for the watcher (a busy CI machine may take seconds to accept the flood): a condition, not a time limit
      await eventually(
        () => log,
        (l) => l.includes('near the file-descriptor limit: not accepting connections'),
      );
      // the connection it already had is still served
      expect(await health()).toBe(200);
      // the port can be bound again once the connections of the old listener are gone
      for (const s of flood) s.destroy();
      agent.destroy();
      await eventually(
        () => log,
        (l) => l.includes('accepting connections again'),
      );
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    } finally {
      for (const s of flood) s.destroy();
      child.kill('SIGKILL');
    }
  });

  it('pipelining readers that never read get one answer at a time, not hundreds buffered: memory stays bounded; others are served', async () => {
    const copy = join(dir, 'backlog.duckdb');
    copyFileSync(db, copy);
    const config = join(dir, 'backlog.json');
    writeFileSync(config, JSON.stringify({ rate_limits: { anonymous_per_minute: 1_000_000 } }));
    const child = vaultdSpawn(['serve', '--db', copy, '--port', '0', '--host', '127.0.0.1', '--no-jobs', '--config', config]);
    const slow: Socket[] = [];
    try {
      const port = await waitForListening(child);
      const path = '/v1/vaults?include_hidden=true';
      const size = (await (await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer()).byteLength;
      expect(size).toBeGreaterThan(16 * 1024);
      const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024;
      const before = rss();
      const burst = `GET ${path} HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n`.repeat(400);
      let closedByServer = 0;
      for (let i = 0; i < 60; i++) {
        const s = createConnection(port, '127.0.0.1');
        s.on('error', () => undefined);
        s.on('close', () => void closedByServer++);
        s.pause(); // never read
        s.write(burst);
        slow.push(s);
      }
      // 60 × 400 answers of `size` bytes would be buffered without the cap
      expect(60 * 400 * size).toBeGreaterThan(400 * 1024 * 1024);
      // give the server time to answer all it would (with uWS's own buffering: every request)
      await new Promise((r) => setTimeout(r, 3000));
      // streamed answers hold uWS at one unread answer per connection; nothing is closed
      expect(rss() - before).toBeLessThan(100 * 1024 * 1024);
      expect(closedByServer).toBe(0);
      for (const s of slow) s.destroy();
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    } finally {
      for (const s of slow) s.destroy();
      child.kill('SIGKILL');
    }
  });

  it('a database replaced under a running server is reloaded whole, not spliced onto the old world', async () => {
    const live = join(dir, 'replaced.duckdb');
    expect(vaultd(['demo', '--db', live, '--days', '30', '--wallets', '40']).status).toBe(0);
    const config = join(dir, 'fast-ticks.json');
    writeFileSync(config, JSON.stringify({ schedules: { ingest: '* * * * * *' } }));
    const child = vaultdSpawn(['serve', '--db', live, '--port', '0', '--host', '127.0.0.1', '--config', config]);
    let fresh: ReturnType<typeof vaultdSpawn> | null = null;
    try {
      const port = await waitForListening(child);
      const get = async (p: number, path: string) => (await (await fetch(`http://127.0.0.1:${p}${path}`)).json()) as any;
      const before = await get(port, '/v1/tvl');
      // a served file is replaced only when asked explicitly (a plain --force is refused while it is served)
      expect(vaultd(['demo', '--db', live, '--days', '60', '--wallets', '40', '--seed', '2', '--force', '--even-if-served']).status).toBe(0);
      const copy = join(dir, 'replaced-copy.duckdb');
      copyFileSync(live, copy);
      fresh = vaultdSpawn(['serve', '--db', copy, '--port', '0', '--host', '127.0.0.1', '--no-jobs']);
      const freshPort = await waitForListening(fresh);
      const expected = await get(freshPort, '/v1/tvl');
      expect(expected.data.tvl).not.toEqual(before.data.tvl);
      // the running server notices the replaced file on a scheduled round and reloads it
      const served = await eventually(
        () => get(port, '/v1/tvl'),
        (t) => JSON.stringify(t.data) === JSON.stringify(expected.data),
        200,
      );
      expect(served.data).toEqual(expected.data);
      const id = (await get(freshPort, '/v1/vaults')).data[0].vault_id;
      const series = (p: number) => get(p, `/v1/vaults/${id}/timeseries?granularity=day&limit=10000`);
      expect((await series(port)).data).toEqual((await series(freshPort)).data);
    } finally {
      child.kill('SIGKILL');
      fresh?.kill('SIGKILL');
    }
  });

  it('serve with stored history and an RPC that never answers: serves first, the prices round fails later in the background', async () => {
    // a JSON-RPC endpoint that accepts connections and never replies
    const sockets: Socket[] = [];
    let connected: () => void = () => undefined;
    const firstConnection = new Promise<void>((r) => (connected = r));
    const silent = createNetServer((s) => {
      sockets.push(s);
      connected();
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const rpc = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const config = join(dir, 'silent-rpc.json');
    writeFileSync(
      config,
      JSON.stringify({
        chains: [{ chain_id: 1, slug: 'ethereum', name: 'Ethereum', rpc_urls: [rpc], finality_blocks: 0 }],
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
    const child = vaultdSpawn(['serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--config', config]);
    let log = '';
    child.stderr!.on('data', (d: Buffer) => void (log += d.toString()));
    try {
      const port = await waitForListening(child);
      const res = await fetch(`http://127.0.0.1:${port}/v1/vaults`);
      expect(res.status).toBe(200);
      // the background round reaches the silent RPC and waits on it, while the API keeps serving
      await firstConnection;
      expect((await fetch(`http://127.0.0.1:${port}/v1/vaults`)).status).toBe(200);
      expect(log).not.toContain('price provider failed');
    } finally {
      child.kill('SIGKILL');
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });
});
