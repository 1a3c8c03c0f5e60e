// A smoke test of an installed checkout on the Node that runs it (CI runs it on Node 20 and 22
// after an `npm ci` there; the full suite runs on Node 24): `vaultd serve --demo` on an empty
// database (the demo world is made first, as `npm start` does), one request of every route,
// then SIGTERM, which must end the process with exit 0 within 10 s.
// Usage: node scripts/smoke.mjs   (prints one line per check and "smoke: N passed, M failed")
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const cli = join(root, 'bin', 'vaultd.js');
const dir = mkdtempSync(join(tmpdir(), 'vaultd-smoke-'));
const db = join(dir, 'vaultd.duckdb');
let passed = 0;
let failed = 0;
const check = (ok, what) => {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
};

const child = spawn(process.execPath, [cli, 'serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--demo'], {
  env: { ...process.env, VAULTD_LOG_LEVEL: 'info' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
// the JSON log lines go to stderr
let log = '';
child.stdout.resume();
const port = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`no "listening" line within 120 s:\n${log}`)), 120_000);
  child.stderr.on('data', (d) => {
    log += d;
    const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(log);
    if (m) {
      clearTimeout(timer);
      resolve(Number(m[1]));
    }
  });
  child.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening:\n${log}`)));
});
console.log(`smoke: Node ${process.version}, vaultd serving on port ${port}`);

const base = `http://127.0.0.1:${port}`;
async function get(path) {
  const res = await fetch(base + path);
  const body = await res.text();
  return { status: res.status, body };
}
const json = async (path) => JSON.parse((await get(path)).body);

const vaults = (await json('/v1/vaults')).data;
const vault = vaults.find((v) => v.group?.slug && v.metrics.tvl.usd !== null) ?? vaults[0];
const wallets = spawnSync(process.execPath, [cli, 'wallets', '--db', db, '--limit', '1'], {
  encoding: 'utf8',
  env: { ...process.env, VAULTD_LOG_LEVEL: 'warn' },
});
const wallet = wallets.stdout.trim();
check(/^0x[0-9a-f]{40}$/.test(wallet), `vaultd wallets beside the running server: ${wallet || wallets.stderr.trim()}`);
const positions = (await json(`/v1/users/${wallet}/positions`)).data;
const held = positions[0]?.vault_id ?? vault.vault_id;
const chainId = vault.chain_id;
const tokenAddress = vault.numeraire_token.address;

const routes = [
  '/health',
  '/health/chains',
  '/metrics',
  '/openapi.json',
  '/docs',
  '/',
  '/v1/vaults',
  '/v1/vaults/featured',
  `/v1/vaults/slug/${vault.group.slug}`,
  `/v1/vaults/${vault.vault_id}`,
  `/v1/vaults/${vault.vault_id}/definition`,
  `/v1/vaults/${vault.vault_id}/timeseries?granularity=day`,
  `/v1/vaults/${vault.vault_id}/allocations`,
  `/v1/users/${wallet}/positions`,
  `/v1/users/${wallet}/positions/${held}`,
  `/v1/users/${wallet}/positions/${held}/timeseries?granularity=day`,
  `/v1/users/${wallet}/activity`,
  '/v1/tvl',
  '/v1/strategies',
  `/v1/prices?chain_id=${chainId}&address=${tokenAddress}`,
  `/v1/prices/timeseries?chain_id=${chainId}&address=${tokenAddress}&granularity=day&start=2026-01-01&end=2026-02-01`,
];
for (const path of routes) {
  const r = await get(path);
  check(r.status === 200, `GET ${path} → ${r.status}${r.status === 200 ? '' : ` ${r.body.slice(0, 200)}`}`);
}

const t0 = Date.now();
child.kill('SIGTERM');
const code = await new Promise((resolve) => {
  const timer = setTimeout(() => {
    child.kill('SIGKILL');
    resolve('killed after 10 s');
  }, 10_000);
  child.once('exit', (c) => {
    clearTimeout(timer);
    resolve(c);
  });
});
check(code === 0, `SIGTERM → exit ${code} in ${Date.now() - t0} ms`);
rmSync(dir, { recursive: true, force: true });
console.log(`smoke: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
