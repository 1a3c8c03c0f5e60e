// `vaultd serve` through its runtime (runtime/createRuntime.ts), end to end: a demo world whose
// end is behind real time grows — a round of the demo source appends the hours due, and the
// refresh after it publishes them — and the job metrics count that round as job "demo".
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/common.js';
import { stopChildren, vaultd, vaultdSpawn, waitForListening } from './helpers/cli.js';

const dir = tempDir('vaultd-serve-runtime-');
const children: ReturnType<typeof vaultdSpawn>[] = [];
afterAll(() => stopChildren(children));

const HOUR = 3600;

describe('serve: the runtime runs the demo source', () => {
  it('hours due are appended and published by the refresh after the round; the round counts as job "demo"', async () => {
    const db = join(dir, 'behind.duckdb');
    const end = Math.floor(Date.now() / 1000 / HOUR) * HOUR - 3 * HOUR;
    const made = vaultd(['demo', '--db', db, '--days', '10', '--wallets', '20', '--now', new Date(end * 1000).toISOString()]);
    expect(made.status, made.stderr).toBe(0);
    const cfg = join(dir, 'ticks.json');
    writeFileSync(cfg, JSON.stringify({ schedules: { ingest: '* * * * * *' } }));
    const child = vaultdSpawn(['serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--config', cfg]);
    children.push(child);
    const port = await waitForListening(child);
    const get = async (path: string) => (await fetch(`http://127.0.0.1:${port}${path}`)).json() as Promise<any>;
    const asOf = async (): Promise<number> => (await get('/v1/vaults')).data[0].metrics.as_of;
    // the world as built ends 3 h ago; a scheduled round appends those hours and a refresh publishes them
    let now = await asOf();
    expect(now === end || now >= end + 3 * HOUR).toBe(true);
    for (let i = 0; i < 150 && now === end; i++) {
      await new Promise((r) => setTimeout(r, 100));
      now = await asOf();
    }
    expect(now).toBeGreaterThanOrEqual(end + 3 * HOUR);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^vaultd_job_runs_total\{job="demo",outcome="ok"\} [1-9]/m);
    expect(metrics).not.toContain('job="ingest"');
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 120_000);
});
