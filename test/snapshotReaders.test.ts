// Issue #11: one writer, N stateless readers behind a real load balancer. nginx (Debian's,
// installed when missing) balances over three `vaultd serve --snapshot DIR` readers of the
// directory a `vaultd serve --publish-dir DIR` writer publishes into. Paged walks run while the
// writer publishes twice (its database is replaced by another world, which it notices and
// republishes) and one reader is killed: no error response, and no walk mixes generations.
import type { ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vaultd, vaultdSpawn, waitForListening, stopChildren } from './helpers/cli.js';
import { tempDir } from './helpers/common.js';
import { ensureNginx, startNginx, type Nginx } from './helpers/nginx.js';

const nginx = ensureNginx();
if ('reason' in nginx) process.stdout.write(`snapshotReaders.test.ts skipped: ${nginx.reason}\n`);

const NOW = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
const demo = (db: string, seed: number, force = false) => {
  // the writer serves the file: replacing it under the writer is asked for explicitly
  const r = vaultd([
    'demo',
    '--db',
    db,
    '--seed',
    String(seed),
    '--now',
    NOW,
    '--wallets',
    '40',
    '--days',
    '20',
    ...(force ? ['--force', '--even-if-served'] : []),
  ]);
  if (r.status !== 0) throw new Error(`demo failed: ${r.stderr}`);
};

describe.skipIf('reason' in nginx)('stateless readers behind nginx', () => {
  let dir: string;
  const children: ChildProcess[] = [];
  let lb: Nginx | null = null;

  beforeAll(() => {
    dir = tempDir();
  });
  afterAll(async () => {
    await lb?.stop();
    await stopChildren(children);
  });

  // three demo builds, four servers and nginx: minutes on a loaded 2-core machine, not seconds
  it('serves every paged walk from one generation while the writer publishes and a reader dies', { timeout: 300_000 }, async () => {
    const db = join(dir, 'world.duckdb');
    const snap = join(dir, 'published');
    const cfg = join(dir, 'vaultd.json');
    // per-reader limits (DESIGN §5.5): every request here comes from one address
    writeFileSync(cfg, JSON.stringify({ schedules: { ingest: '* * * * * *' }, rate_limits: { anonymous_per_minute: 1_000_000 } }));
    demo(db, 7);
    const writer = vaultdSpawn(['serve', '--db', db, '--publish-dir', snap, '--port', '0', '--config', cfg]);
    children.push(writer);
    await waitForListening(writer);
    // the writer publishes after it listens; its first manifest is the event the readers need
    while (!existsSync(join(snap, 'manifest.json'))) {
      if (writer.exitCode !== null) throw new Error('the writer exited before writing a manifest');
      await new Promise((r) => setTimeout(r, 50));
    }
    const readers = [0, 1, 2].map(() => vaultdSpawn(['serve', '--snapshot', snap, '--port', '0', '--config', cfg]));
    children.push(...readers);
    const ports = await Promise.all(readers.map((r) => waitForListening(r)));
    lb = await startNginx((nginx as { bin: string }).bin, join(dir, 'nginx'), ports);

    const statuses = new Map<number, number>();
    const generationsSeen = new Set<string>();
    const mixed: string[] = [];
    let walks = 0;
    let stop = false;
    // A reader is killed between requests, not in the middle of one: no balancer can save an
    // answer whose reader dies half-way through it, and on a loaded machine that window is wide.
    // Requests wait at this gate while it is shut; `inFlight` counts those past it.
    let gate: Promise<void> | null = null;
    let inFlight = 0;
    const getJson = async (path: string) => {
      while (gate) await gate;
      inFlight++;
      try {
        const res = await fetch(`${lb!.url}${path}`);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status !== 200) throw new Error(`${path} → ${res.status}: ${await res.text()}`);
        return (await res.json()) as { data: { vault_id?: string }[]; meta: { next_cursor: string | null; refreshed_at: string } };
      } finally {
        inFlight--;
      }
    };
    const killBetweenRequests = async (child: ChildProcess) => {
      let open: () => void = () => undefined;
      gate = new Promise<void>((r) => (open = r));
      while (inFlight > 0) await new Promise((r) => setTimeout(r, 5));
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      gate = null;
      open();
    };
    const walk = async (first: string) => {
      const seen = new Set<string>();
      let page = await getJson(first);
      seen.add(page.meta.refreshed_at);
      const base = first.split('?')[0]!;
      while (page.meta.next_cursor) {
        page = await getJson(
          `${base}?${new URLSearchParams({ ...Object.fromEntries(new URLSearchParams(first.split('?')[1])), next: page.meta.next_cursor })}`,
        );
        seen.add(page.meta.refreshed_at);
      }
      for (const g of seen) generationsSeen.add(g);
      if (seen.size > 1) mixed.push(`${first}: ${[...seen].join(', ')}`);
      walks++;
    };
    let failure: unknown = null;
    const walker = async () => {
      while (!stop && !failure) {
        const list = await getJson('/v1/vaults?limit=4');
        await walk('/v1/vaults?limit=4');
        const vault = list.data[0]!.vault_id!;
        await walk(`/v1/vaults/${vault}/timeseries?granularity=hour&limit=50`);
      }
    };
    const guarded = () => walker().catch((err) => void (failure ??= err));
    const progress = async (more: number) => {
      const target = walks + more;
      while (walks < target) {
        if (failure) throw failure;
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const running = Promise.all([guarded(), guarded(), guarded()]);
    // no deadline of its own: the writer's republish is the event (the test's timeout bounds it)
    const waitForGenerations = async (n: number) => {
      while (generationsSeen.size < n) {
        if (failure) throw failure;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      await waitForGenerations(1);
      await progress(6);
      demo(db, 8, true); // the writer notices the replaced file and publishes generation 2
      await waitForGenerations(2);
      await killBetweenRequests(readers[0]!); // walks go on across it, some of them mid-way
      await progress(6);
      demo(db, 9, true); // generation 3
      await waitForGenerations(3);
      await progress(6);
    } finally {
      stop = true;
      await running;
    }
    expect(failure).toBeNull();
    expect([...statuses.keys()]).toEqual([200]);
    expect(mixed).toEqual([]);
    expect(generationsSeen.size).toBeGreaterThanOrEqual(3);
    expect(readers[0]!.signalCode).toBe('SIGKILL');
  });
});
