// Issue #38 item 5: a typo must never serve fake data. `vaultd serve` builds the demo world into
// an empty database only at the default path (what `npm start` serves) or with --demo; a named
// --db that holds no world, or a configuration that lists chains or vaults, is one line and exit
// 2, with no file created.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { BIN, vaultd, vaultdSpawn, waitForListening } from './helpers/cli.js';
import { tempDir } from './helpers/common.js';

const dir = tempDir('vaultd-demo-policy-');
const serve = (args: string[], env: Record<string, string> = {}) => vaultd(['serve', '--port', '0', '--host', '127.0.0.1', ...args], env);
const chain = { chain_id: 1, slug: 'ethereum', name: 'Ethereum', rpc_urls: ['http://127.0.0.1:1'] };
const vault = {
  chain_id: 1,
  address: '0xBEEF01735c132Ada46AA9aA4c54623cAA92A64CB',
  vault_type: 'morpho_v1',
  name: 'Steakhouse USDC',
  symbol: 'steakUSDC',
  numeraire_token: { address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6, symbol: 'USDC' },
};

/** Only `names` are in `folder` (nothing else was created there). */
const holdsOnly = (folder: string, names: string[]) => expect(readdirSync(folder).sort()).toEqual([...names].sort());

describe('serve never builds a demo world by accident', () => {
  it('error: a named --db that does not exist (a typo) is one line, exit 2, no file', () => {
    const folder = join(dir, 'typo');
    mkdirSync(folder);
    const db = join(folder, 'prod.duckbd');
    const r = serve(['--db', db]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `vaultd serve: no database at "${db}"; the demo world is built only at the default path (data/vaultd.duckdb) or with --demo: check --db (a typo?), or pass --demo to build it there\n`,
    );
    holdsOnly(folder, []);
  });

  it('error: VAULTD_DB naming a missing file is refused the same way', () => {
    const db = join(dir, 'env-typo.duckdb');
    const r = serve([], { VAULTD_DB: db });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^vaultd serve: no database at ".*env-typo\.duckdb"; the demo world is built only at the default path/);
    expect(existsSync(db)).toBe(false);
  });

  it('error: a configuration with chains but no vaults (the README example shape) gets no demo world', () => {
    const folder = join(dir, 'chains-only');
    mkdirSync(folder);
    const config = join(dir, 'chains-only.json');
    writeFileSync(config, JSON.stringify({ chains: [chain], registry: { vaults: [] } }));
    // even at the default path (data/vaultd.duckdb of the working folder): a configured deployment never gets fake data
    const r = spawnSync(process.execPath, [BIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--config', config], {
      cwd: folder,
      encoding: 'utf8',
      env: { ...process.env, VAULTD_LOG_LEVEL: 'warn', VAULTD_DB: '' },
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^vaultd serve: the configuration lists chains but no "registry\.vaults", and database "data\/vaultd\.duckdb" holds no world: there is nothing to serve \(a configured deployment never gets the demo world\); add the vaults to index, or leave out "chains" to serve the demo world\n$/,
    );
    holdsOnly(folder, []);
  });

  it('error: vaults without chains, and --demo with a configured deployment', () => {
    const config = join(dir, 'vaults-only.json');
    writeFileSync(config, JSON.stringify({ registry: { vaults: [vault] } }));
    const db = join(dir, 'vaults-only.duckdb');
    const r = serve(['--db', db, '--config', config, '--demo']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      'vaultd serve: --demo builds the fake demo world, which a configuration listing chains or vaults never gets; drop --demo, or the "chains" and "registry.vaults" of the configuration\n',
    );
    const without = serve(['--db', db, '--config', config]);
    expect(without.status).toBe(2);
    expect(without.stderr).toBe('vaultd serve: "registry.vaults" lists vaults but "chains" lists no chain to read them from; add their chains with rpc_urls\n');
    expect(existsSync(db)).toBe(false);
  });

  it('--demo on a named path builds the demo world there and serves it', async () => {
    const db = join(dir, 'asked.duckdb');
    const child = vaultdSpawn(['serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--no-jobs', '--demo']);
    try {
      const port = await waitForListening(child);
      const vaults = (await (await fetch(`http://127.0.0.1:${port}/v1/vaults`)).json()) as { data: unknown[] };
      expect(vaults.data.length).toBeGreaterThan(0);
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    expect(existsSync(db)).toBe(true);
    // once it holds a world, the path is served without --demo
    const again = vaultdSpawn(['serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--no-jobs']);
    try {
      const port = await waitForListening(again);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    } finally {
      const exited = new Promise((r) => again.once('exit', r));
      again.kill('SIGTERM');
      await exited;
    }
  });

  it('the default path still gets the demo world (what `npm start` does)', async () => {
    const cwd = join(dir, 'fresh-checkout');
    mkdirSync(cwd);
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--no-jobs'], {
      cwd,
      env: { ...process.env, VAULTD_LOG_LEVEL: 'info', VAULTD_DB: '', VAULTD_CONFIG: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const port = await waitForListening(child);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      expect(existsSync(join(cwd, 'data', 'vaultd.duckdb'))).toBe(true);
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
