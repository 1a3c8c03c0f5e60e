// Issue #38 item 9: operator faults, with real processes, files and HTTP.
// - `vaultd demo --force` on a file a running server serves is refused, naming the server,
//   unless --even-if-served; a killed server's marker does not block.
// - a database replaced under a running writer: the writer takes up the new store's cursor
//   secret, so a restart accepts the cursors the writer cut after the reload.
// - a reader whose snapshot is damaged answers /health 503; a reader refuses a generation
//   that goes backwards from the same store (one log line) and takes it from another store.
// - a recompute whose writes fail (a file-size limit, a full disk) leaves the file as it was
//   and fails early when the disk is short; serve on a full disk starts read-only.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../engine/publish/buildSnapshot.js';
import { writeSnapshotDir } from '../engine/publish/snapshotFiles.js';
import type { DemoParams } from '../jobs/demo/index.js';
import { BIN, smallDemoDb, stopChildren, vaultd, vaultdSpawn, waitForListening } from './helpers/cli.js';
import { tempDir } from './helpers/common.js';
import { publishedDemo } from './helpers/publishedDemo.js';

const dir = tempDir('vaultd-faults-');
const demo = join(dir, 'demo.duckdb');
/** the default-size demo world (13 MB): its recompute writes ~11 MB more */
const full = join(dir, 'full-size.duckdb');
const children: ChildProcess[] = [];
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const UNLIMITED = join(dir, 'unlimited.json');

beforeAll(() => {
  smallDemoDb(demo);
  writeFileSync(UNLIMITED, JSON.stringify({ rate_limits: { anonymous_per_minute: 1_000_000 } }));
});
afterAll(() => stopChildren(children));

/** A child whose stderr (JSON log lines) is kept; resolves once it listens. */
async function start(args: string[]): Promise<{ child: ChildProcess; base: string; log: () => string }> {
  const child = vaultdSpawn(args);
  children.push(child);
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const port = await waitForListening(child);
  return { child, base: `http://127.0.0.1:${port}`, log: () => log };
}

/** Resolves when `log()` has a line matching `pattern` (polled; the child writes as it goes). */
async function logged(log: () => string, pattern: RegExp, what: string): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const line = log()
      .split('\n')
      .find((l) => pattern.test(l));
    if (line) return line;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never logged ${what}:\n${log().slice(-2000)}`);
}

describe('vaultd demo --force on a served file', () => {
  it('error: refused while a server serves it, naming the server; --even-if-served replaces it', async () => {
    const db = join(dir, 'served.duckdb');
    copyFileSync(demo, db);
    const server = await start(['serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--no-jobs']);
    const before = sha256(db);
    const r = vaultd(['demo', '--db', db, '--force', '--seed', '9', '--days', '5', '--wallets', '10']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `^vaultd demo: database ".*served\\.duckdb" is served by PID ${server.child.pid} \\(vaultd serve on 127\\.0\\.0\\.1:\\d+, since \\d{4}-\\d\\d-\\d\\dT[^)]+\\): replacing it would lose its API keys and leave that server on the old world; stop the server first, or add --even-if-served\\n$`,
      ),
    );
    expect(sha256(db)).toBe(before);
    expect(vaultd(['demo', '--db', db, '--even-if-served']).stderr).toBe(
      'vaultd demo: --even-if-served goes with --force (it says to replace a served file)\n',
    );
    const asked = vaultd(['demo', '--db', db, '--force', '--even-if-served', '--seed', '9', '--days', '5', '--wallets', '10']);
    expect(asked.status, asked.stderr).toBe(0);
    expect(sha256(db)).not.toBe(before);
    // a server killed outright leaves its marker; it blocks nothing
    server.child.kill('SIGKILL');
    await new Promise((r) => server.child.once('exit', r));
    expect(readdirSync(dir).some((n) => n.startsWith('served.duckdb.served-by-'))).toBe(true);
    expect(vaultd(['demo', '--db', db, '--force', '--seed', '9', '--days', '5', '--wallets', '10']).status).toBe(0);
    expect(readdirSync(dir).some((n) => n.startsWith('served.duckdb.served-by-'))).toBe(false);
  });

  it('a server stopped cleanly leaves no marker', async () => {
    const db = join(dir, 'clean.duckdb');
    copyFileSync(demo, db);
    const server = await start(['serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--no-jobs']);
    expect(readdirSync(dir).filter((n) => n.startsWith('clean.duckdb.served-by-'))).toEqual([`clean.duckdb.served-by-${server.child.pid}`]);
    await stopChildren([server.child]);
    expect(readdirSync(dir).filter((n) => n.startsWith('clean.duckdb.served-by-'))).toEqual([]);
  });
});

describe('one cursor secret per store', () => {
  it('a database replaced under a running writer: a restart accepts the cursors the writer cut after the reload', async () => {
    const db = join(dir, 'replaced.duckdb');
    copyFileSync(demo, db);
    const ticks = join(dir, 'ticks.json');
    writeFileSync(ticks, JSON.stringify({ schedules: { ingest: '* * * * * *' }, rate_limits: { anonymous_per_minute: 1_000_000 } }));
    const writer = await start(['serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--config', ticks]);
    const tvl = async (base: string) => JSON.stringify(((await (await fetch(`${base}/v1/tvl`)).json()) as { data: unknown }).data);
    const old = await tvl(writer.base);
    expect(vaultd(['demo', '--db', db, '--force', '--even-if-served', '--seed', '3', '--days', '20', '--wallets', '30']).status).toBe(0);
    await logged(writer.log, /the database file was replaced/, 'the reload');
    let served = old;
    for (let i = 0; i < 300 && served === old; i++) {
      await new Promise((r) => setTimeout(r, 100));
      served = await tvl(writer.base);
    }
    expect(served).not.toBe(old);
    const page = (await (await fetch(`${writer.base}/v1/vaults?limit=2`)).json()) as { meta: { next_cursor: string } };
    const next = `/v1/vaults?limit=2&next=${encodeURIComponent(page.meta.next_cursor)}`;
    const fromWriter = await (await fetch(`${writer.base}${next}`, { headers: { 'x-request-id': 'same' } })).text();
    await stopChildren([writer.child]);

    const restarted = await start(['serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--no-jobs', '--config', UNLIMITED]);
    const res = await fetch(`${restarted.base}${next}`, { headers: { 'x-request-id': 'same' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(fromWriter);
    await stopChildren([restarted.child]);
  });
});

describe('snapshot readers', () => {
  const params: DemoParams = { seed: 4, now: Date.parse('2026-03-01T00:00:00Z') / 1000, vaults: null, wallets: 20, days: 10 };
  let snapshot: Snapshot;
  beforeAll(async () => {
    snapshot = await publishedDemo(join(dir, 'published.duckdb'), params);
  });
  const auth = (k: number) => ({ cursor_secret: Buffer.alloc(32, k).toString('base64url'), keys: [] });
  const refreshed = async (base: string) => ((await (await fetch(`${base}/v1/vaults?limit=1`)).json()) as { meta: { refreshed_at: string } }).meta.refreshed_at;

  it('a damaged snapshot: /health 503 (a balancer sends the traffic elsewhere), /v1 503', async () => {
    const snap = join(dir, 'damaged');
    const m = await writeSnapshotDir(snap, snapshot.world, { generation: 1, refreshed_at_s: snapshot.refreshed_at_s, stamp: null }, auth(1));
    const series = join(snap, m.files.series.name);
    const bytes = readFileSync(series);
    const at = bytes.length >> 1;
    bytes[at] = bytes[at]! ^ 1;
    writeFileSync(series, bytes);
    const reader = await start(['serve', '--snapshot', snap, '--port', '0', '--host', '127.0.0.1']);
    expect(reader.log()).toMatch(/published snapshot refused/);
    const health = await fetch(`${reader.base}/health`);
    expect(health.status).toBe(503);
    expect(((await health.json()) as { status: string }).status).toBe('degraded');
    expect((await fetch(`${reader.base}/v1/vaults`)).status).toBe(503);
    await stopChildren([reader.child]);
  });

  it('a generation going backwards from the same store is refused with one log line; from another store it is served', async () => {
    const snap = join(dir, 'generations');
    const t = snapshot.refreshed_at_s;
    await writeSnapshotDir(snap, snapshot.world, { generation: 5, refreshed_at_s: t, stamp: null }, auth(1));
    const reader = await start(['serve', '--snapshot', snap, '--port', '0', '--host', '127.0.0.1', '--config', UNLIMITED]);
    const five = await refreshed(reader.base);

    // the same store's generation 1 (an old copy of the directory put back)
    await writeSnapshotDir(snap, snapshot.world, { generation: 1, refreshed_at_s: t - 7200, stamp: null }, auth(1));
    const line = await logged(reader.log, /generation went backwards/, 'the refusal');
    expect(JSON.parse(line)).toMatchObject({
      level: 'warn',
      generation: 1,
      serving: 5,
      msg: 'published generation went backwards (5 → 1) from the same store: refused, still serving 5 (restart this reader to accept it)',
    });
    // refused once: the next polls see the same manifest and say nothing more
    await new Promise((r) => setTimeout(r, 1000));
    expect(
      reader
        .log()
        .split('\n')
        .filter((l) => /generation went backwards/.test(l)),
    ).toHaveLength(1);
    expect(await refreshed(reader.base)).toBe(five);

    // another store (a replaced database) starts its generations again: served
    await writeSnapshotDir(snap, snapshot.world, { generation: 1, refreshed_at_s: t - 3600, stamp: null }, auth(2));
    await logged(reader.log, /another store publishes into the directory/, 'the new store');
    let now = five;
    for (let i = 0; i < 100 && now === five; i++) {
      await new Promise((r) => setTimeout(r, 100));
      now = await refreshed(reader.base);
    }
    expect(Date.parse(now) / 1000).toBe(t - 3600);
    await stopChildren([reader.child]);
  });
});

describe('disk space', () => {
  beforeAll(() => smallDemoDb(full, ['--seed', '7', '--now', '2026-06-01T00:00:00Z']));

  it('a recompute whose writes fail (a file-size limit) leaves the file as it was, and the next run succeeds', () => {
    const db = join(dir, 'limited.duckdb');
    copyFileSync(full, db);
    const size = statSync(db).size;
    const counts = () => vaultd(['wallets', '--db', db]).stdout;
    const wallets = counts();
    // writes past 2 MiB more than the file fail (EFBIG), as they would on a full disk
    const limitKb = Math.ceil(size / 1024) + 2048;
    const r = spawnSync('sh', ['-c', `ulimit -f ${limitKb}; exec "$0" "$@"`, process.execPath, BIN, 'recompute', '--db', db, '--full'], {
      encoding: 'utf8',
      env: { ...process.env, VAULTD_LOG_LEVEL: 'warn' },
    });
    expect(r.status).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^vaultd recompute: query "[\w.]+" failed: IO Error: Could not write file ".*": File too large$/);
    // the file is its old size again (what DuckDB left past its last block, if anything, was
    // cut: store/diskSpace.test.ts holds that part to a file grown for sure) and reads the same
    expect(statSync(db).size).toBe(size);
    expect(counts()).toBe(wallets);
    const again = vaultd(['recompute', '--db', db, '--full']);
    expect(again.status, again.stderr).toBe(0);
  });

  // a full disk for real: a small tmpfs (needs root, as CI runs; skipped elsewhere)
  const mnt = join(dir, 'small-disk');
  mkdirSync(mnt);
  const mounted = process.getuid?.() === 0 && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=20m', 'tmpfs', mnt]).status === 0;
  afterAll(() => {
    if (mounted) spawnSync('umount', ['-l', mnt]);
  });

  it.skipIf(!mounted)('a recompute the disk cannot hold fails before it writes anything: one line, exit 1, the file unchanged', () => {
    const db = join(mnt, 'short.duckdb');
    copyFileSync(full, db);
    const before = sha256(db);
    const r = vaultd(['recompute', '--db', db, '--full']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^vaultd recompute needs about [\d.]+ MB free where ".*short\.duckdb" is, and [\d.]+ MB are: free some space \(or move the database\), then run it again; nothing was written\n$/,
    );
    expect(sha256(db)).toBe(before);
    rmSync(db);
  });

  it.skipIf(!mounted)('serve on a full disk starts read-only from what is there: it serves, runs no jobs and writes nothing', async () => {
    const db = join(mnt, 'full.duckdb');
    copyFileSync(demo, db);
    // fill the disk
    spawnSync('sh', ['-c', `dd if=/dev/zero of=${join(mnt, 'filler')} bs=1M 2>/dev/null; true`]);
    expect(spawnSync('df', ['--output=avail', mnt], { encoding: 'utf8' }).stdout.trim().split('\n')[1]!.trim()).toBe('0');
    const before = sha256(db);
    const child = spawn(process.execPath, [BIN, 'serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--config', UNLIMITED], {
      env: { ...process.env, VAULTD_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let log = '';
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    const port = await waitForListening(child);
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const vaults = await fetch(`${base}/v1/vaults`);
    expect(vaults.status).toBe(200);
    expect(((await vaults.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
    const warn = log.split('\n').find((l) => l.includes('serving it read-only'));
    expect(JSON.parse(warn!)).toMatchObject({ level: 'warn', free_bytes: 0 });
    await stopChildren([child]);
    expect(sha256(db)).toBe(before);
    expect(existsSync(`${db}.snapshot`)).toBe(false);
    rmSync(join(mnt, 'filler'));
  });
});
