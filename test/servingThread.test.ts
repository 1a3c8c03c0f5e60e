// No single client within its limits holds the serving thread (issue: one read model): one API
// key at its default budget hammers the dearest reads — hourly position histories of 10,000
// points, activity pages of 1,000 rows, 10,000-point vault windows, half of them gzipped, all at
// fresh offsets — while a side probe asks /health every 25 ms. The probe's p99 stays under 50 ms
// (asserted as a count: at most 1 % of probes over 50 ms). Before the read model, a replay on
// the serving thread held it 110–295 ms a request and pushed the probe's p99 to 1.2 s. On a
// machine busy with other work the probe is slow even alone: the bound is then three times the
// p99 the same probe measured just before with no heavy client (it is 50 ms on a quiet machine).
import type { ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopChildren, vaultd, vaultdSpawn, waitForListening } from './helpers/cli.js';
import { tempDir } from './helpers/common.js';

const children: ChildProcess[] = [];
let port: number;
let key: string;
let heavy: { position: string[]; vault: string[]; wallet: string[] };

/** GET over a keep-alive agent: status and the time to the whole answer (ms). */
function get(agent: Agent, path: string, headers: Record<string, string> = {}): Promise<{ status: number; ms: number; body: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, body: Buffer.concat(chunks).toString('latin1') }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  const dir = tempDir('vaultd-serving-thread-');
  const db = join(dir, 'w.duckdb');
  // a year and more of hourly history: 10,000-point windows exist
  const built = vaultd(['demo', '--db', db, '--seed', '7', '--now', '2026-06-01T00:00:00Z', '--wallets', '80']);
  expect(built.status, built.stderr).toBe(0);
  key = vaultd(['keys', 'create', 'heavy-user', '--db', db]).stdout.trim().split('\n').at(-1)!;
  const child = vaultdSpawn(['serve', '--db', db, '--port', '0', '--no-jobs']);
  children.push(child);
  port = await waitForListening(child);
  // the wallets with the longest histories and their positions; the vaults with the most hours
  const agent = new Agent({ keepAlive: true });
  const wallets = vaultd(['wallets', '--db', db, '--limit', '5']).stdout.trim().split('\n');
  const auth = { authorization: `Bearer ${key}` };
  const position: string[] = [];
  for (const w of wallets) {
    const list = JSON.parse((await get(agent, `/v1/users/${w}/positions?limit=20`, auth)).body) as { data: { vault_id: string }[] };
    for (const p of list.data) position.push(`/v1/users/${w}/positions/${p.vault_id}/timeseries?granularity=hour&limit=10000`);
  }
  const vaults = JSON.parse((await get(agent, '/v1/vaults', auth)).body) as { data: { vault_id: string }[] };
  heavy = {
    position,
    vault: vaults.data.map((v) => `/v1/vaults/${v.vault_id}/timeseries?granularity=hour&limit=10000`),
    wallet: wallets.map((w) => `/v1/users/${w}/activity?limit=1000`),
  };
  agent.destroy();
}, 300_000);
afterAll(() => stopChildren(children));

describe('the serving thread under one heavy client', () => {
  it('/health p99 < 50 ms on a side probe while one key at its default budget asks for the dearest reads', async () => {
    expect(heavy.position.length).toBeGreaterThan(3);
    const hammerAgent = new Agent({ keepAlive: true, maxSockets: 4 });
    const probeAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const probeFor = async (ms: number) => {
      const out: number[] = [];
      const end = performance.now() + ms;
      while (performance.now() < end) {
        const r = await get(probeAgent, '/health');
        expect(r.status).toBe(200);
        out.push(r.ms);
        await new Promise((done) => setTimeout(done, 25));
      }
      return out.sort((a, b) => a - b);
    };
    // the machine's own noise: the probe alone
    const alone = await probeFor(4000);
    const aloneP99 = alone[Math.floor(alone.length * 0.99)]!;
    const bound = Math.max(50, 3 * aloneP99);
    const until = performance.now() + 15_000;
    const counts = { ok: 0, limited: 0, other: 0 };
    const others: string[] = [];
    let n = 0;
    const hammer = async () => {
      while (performance.now() < until) {
        // fresh offsets: no answer is a cache hit
        const kind = n++ % 3;
        const start = `&start=${new Date(Date.parse('2025-06-01T00:00:00Z') + (n % 2000) * 3_600_000).toISOString().slice(0, 19)}Z`;
        const path =
          kind === 0
            ? heavy.position[n % heavy.position.length]! + start
            : kind === 1
              ? heavy.vault[n % heavy.vault.length]! + start
              : heavy.wallet[n % heavy.wallet.length]!;
        const r = await get(hammerAgent, path, { authorization: `Bearer ${key}`, ...(n % 2 === 0 ? { 'accept-encoding': 'gzip' } : {}) });
        if (r.status === 200) counts.ok++;
        else if (r.status === 429) {
          // a client within its limits waits as told (Retry-After)
          counts.limited++;
          await new Promise((done) => setTimeout(done, 1000 * Number(JSON.parse(r.body).error.details.retry_after_seconds)));
        } else {
          counts.other++;
          others.push(`${r.status} ${r.body.slice(0, 200)}`);
        }
      }
    };
    let probes: number[] = [];
    const probe = async () => {
      probes = await probeFor(until - performance.now());
    };
    await Promise.all([hammer(), hammer(), hammer(), hammer(), probe()]);
    hammerAgent.destroy();
    probeAgent.destroy();
    const over = probes.filter((ms) => ms > bound).length;
    process.stdout.write(
      `serving thread: ${counts.ok} heavy answers, ${counts.limited} refused (429) in 15 s; /health probes ${probes.length}, p50 ${probes[Math.floor(probes.length / 2)]!.toFixed(1)} ms, p99 ${probes[Math.floor(probes.length * 0.99)]!.toFixed(1)} ms, max ${probes.at(-1)!.toFixed(1)} ms, ${over} over ${bound.toFixed(0)} ms (the probe alone: p99 ${aloneP99.toFixed(1)} ms)\n`,
    );
    // heavy answers went out all along (on a quiet machine the key also meets its budget: 429s)
    expect(counts.ok).toBeGreaterThan(30);
    expect(others).toEqual([]);
    expect(probes.length).toBeGreaterThan(200);
    expect(over).toBeLessThanOrEqual(Math.floor(probes.length / 100));
  }, 120_000);
});
