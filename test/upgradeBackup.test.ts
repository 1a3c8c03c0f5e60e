// Issue #38 item 8: upgrades and backups, with real DuckDB files and the real bin. A file made
// with the previous release's schema (built here with its migrations, holding a demo world) is
// migrated at start after a copy of it is kept; a file from a newer release is refused in one
// line; `vaultd backup` copies a database while a server serves it and keys are written, and
// the copy, restored, serves the same bodies and ETags.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../store/migrations.js';
import { migrationBackupPath } from '../store/migrationBackup.js';
import { createStore } from '../store/store.js';
import { openStoreWithRetry } from '../store/storeHandle.js';
import { smallDemoDb, stopChildren, vaultd, vaultdAsync, vaultdSpawn, waitForListening } from './helpers/cli.js';
import { tempDir, testCommon } from './helpers/common.js';

const dir = tempDir('vaultd-upgrade-');
const demo = join(dir, 'demo.duckdb');
const children: ReturnType<typeof vaultdSpawn>[] = [];
const LATEST = Math.max(...MIGRATIONS.map((m) => m.version));
const PREVIOUS = MIGRATIONS.filter((m) => m.version < LATEST);
/** The schema's text (tables, views, macros): what a migration changes. */
const SCHEMA_SQL = `SELECT sql FROM (
  SELECT sql FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name <> 'schema_migrations'
  UNION ALL SELECT sql FROM duckdb_views() WHERE database_name = current_database() AND NOT internal
  UNION ALL SELECT macro_definition AS sql FROM duckdb_functions() WHERE database_name = current_database() AND NOT internal AND function_type = 'macro'
) ORDER BY sql`;
const schemaOf = async (store: { rows: <T>(label: string, sql: string) => Promise<T[]> }) =>
  (await store.rows<{ sql: string | null }>('test.schema', SCHEMA_SQL)).map((r) => r.sql);
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

beforeAll(() => smallDemoDb(demo));
afterAll(() => stopChildren(children));

async function serve(db: string): Promise<{ base: string; log: () => string; stop: () => Promise<void> }> {
  // limits no load here meets (the load is the point, not the 429s)
  const config = join(dir, 'unlimited.json');
  writeFileSync(config, JSON.stringify({ rate_limits: { anonymous_per_minute: 1_000_000, keyed_per_minute: 1_000_000 } }));
  const child = vaultdSpawn(['serve', '--db', db, '--port', '0', '--host', '127.0.0.1', '--no-jobs', '--config', config]);
  children.push(child);
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const port = await waitForListening(child);
  return {
    base: `http://127.0.0.1:${port}`,
    log: () => log,
    stop: () => stopChildren([child]),
  };
}

describe('upgrading a database file', () => {
  it("a file made with the previous release's schema is copied, then migrated at start, and serves the same world", async () => {
    const old = join(dir, 'previous-release.duckdb');
    let latestSchema: (string | null)[] = [];
    // the previous release's schema (every migration but the newest), filled with the demo world's rows
    const store = await createStore(testCommon(), { path: old, migrations: PREVIOUS });
    try {
      expect(await store.schemaVersion()).toBe(LATEST - 1);
      await store.run('test.attach', `ATTACH '${demo}' AS src (READ_ONLY)`);
      const tables = await store.rows<{ t: string }>(
        'test.tables',
        "SELECT table_name AS t FROM duckdb_tables() WHERE database_name = 'src' AND schema_name = 'main' AND table_name <> 'schema_migrations'",
      );
      expect(tables.length).toBeGreaterThan(10);
      // the tables that release had (the newest migration may add some: they stay empty)
      const had = new Set(
        (await store.rows<{ t: string }>('test.mine', 'SELECT table_name AS t FROM duckdb_tables() WHERE database_name = current_database()')).map((r) => r.t),
      );
      for (const { t } of tables) if (had.has(t)) await store.run('test.copy', `INSERT INTO main.${t} SELECT * FROM src.${t}`);
      await store.run('test.detach', 'DETACH src');
      // not today's schema (the newest migration changes it)
      const fresh = await createStore(testCommon(), { path: join(dir, 'fresh.duckdb') });
      latestSchema = await schemaOf(fresh);
      await fresh.close();
      expect(await schemaOf(store)).not.toEqual(latestSchema);
    } finally {
      await store.close();
    }
    const before = sha256(old);

    const upgraded = await serve(old);
    // the same world served from the file the current release made
    const direct = await serve(demo);
    const body = async (base: string, path: string) => ((await (await fetch(`${base}${path}`)).json()) as { data: unknown }).data;
    for (const path of ['/v1/vaults?include_hidden=true', '/v1/tvl', '/v1/strategies']) {
      expect(await body(upgraded.base, path), path).toEqual(await body(direct.base, path));
    }
    // migration 9 (DESIGN §11.8): a file from before request terms serves its requests without
    // them (no deadline, no tip: nothing expires), each otherwise as the current file has it
    const wallet = vaultd(['wallets', '--db', demo, '--limit', '1']).stdout.trim();
    type Req = { request_hash: string; status: string; deadline: string | null; solver_tip: string | null; refundable: boolean; resolved: unknown };
    const reqs = async (base: string) => (await body(base, `/v1/users/${wallet}/requests?limit=1000`)) as Req[];
    const [oldReqs, newReqs] = [await reqs(upgraded.base), await reqs(direct.base)];
    expect(oldReqs.length).toBeGreaterThan(0);
    expect(oldReqs.map((r) => r.request_hash)).toEqual(newReqs.map((r) => r.request_hash));
    expect(newReqs.some((r) => r.deadline !== null)).toBe(true);
    for (const [i, r] of oldReqs.entries()) {
      expect(r).toMatchObject({ deadline: null, solver_tip: null, refundable: false });
      expect(r.status).toBe(newReqs[i]!.status === 'expired' ? 'pending' : newReqs[i]!.status);
      expect(r.resolved).toEqual(newReqs[i]!.resolved);
    }
    const line = upgraded
      .log()
      .split('\n')
      .find((l) => l.includes('migrating the database'));
    expect(JSON.parse(line!)).toMatchObject({ level: 'warn', from: LATEST - 1, to: LATEST, backup: migrationBackupPath(old, LATEST - 1) });
    await upgraded.stop();
    await direct.stop();

    // the copy is the file as the previous release left it, byte for byte; the file itself is migrated
    const kept = migrationBackupPath(old, LATEST - 1);
    expect(sha256(kept)).toBe(before);
    const migrated = await createStore(testCommon(), { path: old });
    try {
      expect(await migrated.schemaVersion()).toBe(LATEST);
      expect(await schemaOf(migrated)).toEqual(latestSchema);
    } finally {
      await migrated.close();
    }
    // a start on the migrated file makes no new copy (nothing is pending)
    const again = await serve(old);
    expect(again.log()).not.toContain('migrating the database');
    await again.stop();
  });

  it('error: a file from a newer release is refused in one line, exit 2, and left as it was', async () => {
    const future = join(dir, 'newer-release.duckdb');
    copyFileSync(demo, future);
    const store = await createStore(testCommon(), { path: future });
    try {
      await store.run('test.future', `INSERT INTO schema_migrations VALUES (${LATEST + 5}, 'from a newer release', now()::TIMESTAMP)`);
    } finally {
      await store.close();
    }
    const before = sha256(future);
    const message = `database "${future}" has schema version ${LATEST + 5}, newer than this vaultd ${
      JSON.parse(readFileSync('package.json', 'utf8')).version
    } knows (${LATEST}): a newer release wrote it; run that release, or restore the copy kept before its upgrade (${future}.schema-v<N>.bak)`;
    for (const command of [
      ['serve', '--db', future, '--port', '0', '--host', '127.0.0.1', '--no-jobs'],
      ['wallets', '--db', future],
      ['backup', '--db', future, '--out', join(dir, 'never.duckdb')],
    ]) {
      const r = vaultd(command);
      expect(r.status, command[0]).toBe(2);
      expect(r.stderr, command[0]).toBe(`vaultd ${command[0]}: ${message}\n`);
    }
    expect(sha256(future)).toBe(before);
    expect(existsSync(join(dir, 'never.duckdb'))).toBe(false);
  });
});

describe('vaultd backup', () => {
  it('a copy taken under load (requests, key writes) is restored and serves the same bodies and ETags', async () => {
    const live = join(dir, 'live.duckdb');
    copyFileSync(demo, live);
    const keyBefore = vaultd(['keys', 'create', 'before-backup', '--db', live]).stdout.trim().split('\n').at(-1)!;
    const writer = await serve(live);
    const vaults = (await (await fetch(`${writer.base}/v1/vaults`)).json()) as { data: { vault_id: string }[] };
    const id = vaults.data[0]!.vault_id;
    const wallet = vaultd(['wallets', '--db', live, '--limit', '1']).stdout.trim();
    const paths = ['/v1/vaults', `/v1/vaults/${id}`, `/v1/vaults/${id}/timeseries?limit=100`, `/v1/users/${wallet}/positions`, '/v1/tvl'];
    const answers = async (base: string) => {
      const out: Record<string, { status: number; etag: string | null; body: string }> = {};
      for (const path of paths) {
        const res = await fetch(`${base}${path}`, { headers: { 'x-request-id': 'same', 'accept-encoding': 'identity' } });
        out[path] = { status: res.status, etag: res.headers.get('etag'), body: await res.text() };
      }
      return out;
    };
    const served = await answers(writer.base);

    // load: four clients asking in a loop, and key writes through the database, while the copy is taken
    let stop = false;
    const statuses = new Map<number, number>();
    const clients = [0, 1, 2, 3].map(async (k) => {
      for (let i = 0; !stop; i++) {
        const res = await fetch(`${writer.base}${paths[(i + k) % paths.length]}`);
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    });
    const writes = Promise.all([0, 1, 2].map((k) => vaultdAsync(['keys', 'create', `during-backup-${k}`, '--db', live])));
    const out = join(dir, 'backups', 'live-copy.duckdb');
    const backup = await vaultdAsync(['backup', '--db', live, '--out', out]);
    const written = await writes;
    stop = true;
    await Promise.all(clients);
    expect(backup.status, backup.stderr).toBe(0);
    // at most the log lines of a wait for the lock a key write held: the contention is real
    for (const l of backup.stderr.split('\n').filter(Boolean))
      expect(JSON.parse(l)).toMatchObject({ level: 'warn', msg: 'database is locked by another process; waiting' });
    expect(backup.stdout).toMatch(
      new RegExp(
        `^backup of ${live.replace(/[.]/g, '\\.')} \\(schema v${LATEST}, \\d+ hourly snapshots, \\d+ events\\) -> ${out.replace(/[.]/g, '\\.')}: [\\d.]+ MiB in \\d+ ms\\n$`,
      ),
    );
    for (const w of written) expect(w.status, w.stderr).toBe(0);
    expect([...statuses.keys()]).toEqual([200]);
    expect(statuses.get(200)!).toBeGreaterThan(paths.length);
    // a second backup to the same file is refused: a backup never overwrites one — at once, also
    // while another process holds the database (this one, here), not after waiting for it
    // (the server looks at the file now and then: wait for it as any command does)
    const holder = await openStoreWithRetry(testCommon(), { path: live, mustExist: true });
    let twice: ReturnType<typeof vaultd>;
    try {
      twice = vaultd(['backup', '--db', live, '--out', out]);
    } finally {
      await holder.close();
    }
    expect(twice.status).toBe(2);
    expect(twice.stderr).toBe(`vaultd backup: "${out}" already exists; name a new file (a backup never overwrites one)\n`);
    await writer.stop();

    // restore: the copy in place of a database file, served
    mkdirSync(join(dir, 'restored'));
    const restored = join(dir, 'restored', 'vaultd.duckdb');
    copyFileSync(out, restored);
    const again = await serve(restored);
    expect(await answers(again.base)).toEqual(served);
    // the keys it held came along
    expect((await fetch(`${again.base}/v1/tvl`, { headers: { authorization: `Bearer ${keyBefore}` } })).status).toBe(200);
    await again.stop();
  });
});
