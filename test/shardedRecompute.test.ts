// Issue #39 item 4, through the real bin on real DuckDB files: a full recompute cut into n
// shards (n = 1, 2, 7) and merged publishes byte for byte what `vaultd publish` does; the merge
// refuses a missing shard, shards of another n, of another raw state or with an altered file
// (exit 2, nothing published); `vaultd export` writes every raw table exactly (EXCEPT ALL both
// ways against the database), shards read from it merge to the same bytes and an altered
// export is refused; `vaultd snapshot verify` passes a published directory and names the file
// a flipped byte altered.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallDemoDb, vaultd } from './helpers/cli.js';
import { tempDir } from './helpers/common.js';

let dir: string;
let db: string;
/** `vaultd publish` of db: what every merge must equal */
let published: string;

beforeAll(() => {
  dir = tempDir('vaultd-shards-');
  db = join(dir, 'w.duckdb');
  smallDemoDb(db);
  published = join(dir, 'published');
  const pub = vaultd(['publish', '--db', db, '--out', published]);
  expect(pub.status, pub.stderr).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every shard of n into `out` (from the database, or from an export with `from`). */
function runShards(n: number, out: string, source: string[] = ['--db', db]): void {
  for (let i = 0; i < n; i++) {
    const r = vaultd(['recompute', '--full', '--shard', `${i}/${n}`, '--out', out, ...source]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^shard ${i}/${n}: \\d+ vaults, \\d+ positions`, 'm'));
  }
}

/** The manifest without the time it was written (not part of a snapshot's identity). */
const manifestOf = (d: string) => {
  const { written_at: _, ...m } = JSON.parse(readFileSync(join(d, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  return m;
};

/** `a` and `b` hold the same snapshot: the same files, byte for byte, and the same manifest. */
function expectSameSnapshot(a: string, b: string): void {
  const files = readdirSync(a).filter((f) => f !== 'manifest.json');
  expect(files.length).toBe(8);
  expect(readdirSync(b).sort()).toEqual(readdirSync(a).sort());
  for (const f of files) expect(readFileSync(join(b, f)).equals(readFileSync(join(a, f))), f).toBe(true);
  expect(manifestOf(b)).toEqual(manifestOf(a));
}

const shardManifests = (d: string) =>
  readdirSync(d)
    .filter((f) => f.endsWith('.manifest.json'))
    .map((f) => JSON.parse(readFileSync(join(d, f), 'utf8')) as { shard: number; of: number; vaults: number; positions: number });

describe('sharded recompute', () => {
  it.each([1, 2, 7])('n = %i: the shards split vaults and positions, and their merge publishes the bytes `vaultd publish` does', (n) => {
    const shards = join(dir, `shards-${n}`);
    runShards(n, shards);
    const ms = shardManifests(shards);
    expect(ms.map((m) => m.shard).sort((x, y) => x - y)).toEqual([...Array(n).keys()]);
    const world = JSON.parse(readFileSync(join(published, readdirSync(published).find((f) => f.startsWith('world-'))!), 'utf8')) as {
      series: unknown[];
      wallets: { positions: number };
    };
    // a partition: every vault and every position in exactly one shard (the merge checks which)
    expect(ms.reduce((s, m) => s + m.vaults, 0)).toBe(world.series.length);
    expect(ms.reduce((s, m) => s + m.positions, 0)).toBe(world.wallets.positions);
    if (n > 1) expect(ms.every((m) => m.positions < world.wallets.positions)).toBe(true);

    const out = join(dir, `merged-${n}`);
    const merged = vaultd(['recompute', '--merge', shards, '--db', db, '--out', out]);
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(new RegExp(`^merged ${n} shards; published generation 1 `, 'm'));
    expectSameSnapshot(published, out);
  });

  it('error: a missing shard, shards of two counts, of another raw state or with an altered file are refused (exit 2, nothing published)', () => {
    const base = join(dir, 'shards-refusals');
    runShards(2, base);
    const refused = (shards: string, pattern: RegExp) => {
      const out = join(dir, `refused-${Math.random().toString(36).slice(2)}`);
      const r = vaultd(['recompute', '--merge', shards, '--db', db, '--out', out]);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(pattern);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(out)).toBe(false);
    };
    const copy = (name: string) => {
      const d = join(dir, name);
      cpSync(base, d, { recursive: true });
      return d;
    };

    const missing = copy('missing');
    rmSync(join(missing, 'shard-0001-of-0002.manifest.json'));
    refused(
      missing,
      /^vaultd recompute: shard 1\/2 is missing \(no shard-0001-of-0002\.manifest\.json in ".+"\): run `vaultd recompute --full --shard 1\/2 --out .+`, then merge again$/m,
    );

    // a shard of a 3-way run among the 2-way run's
    const counts = copy('counts');
    runShards(3, join(dir, 'three'));
    for (const f of readdirSync(join(dir, 'three')).filter((x) => x.startsWith('shard-0002-of-0003'))) cpSync(join(dir, 'three', f), join(counts, f));
    refused(counts, /shards of different counts in ".+": shard 0\/2 and shard 2\/3; keep one run's shards/);

    // shard 1 computed from another raw state (a world with one more day)
    const other = join(dir, 'other.duckdb');
    smallDemoDb(other, ['--seed', '7', '--now', '2026-06-02T00:00:00Z', '--wallets', '30', '--days', '15']);
    const mixed = copy('mixed');
    for (const f of readdirSync(mixed).filter((x) => x.startsWith('shard-0001-of-0002'))) rmSync(join(mixed, f));
    const r = vaultd(['recompute', '--full', '--shard', '1/2', '--out', mixed, '--db', other]);
    expect(r.status, r.stderr).toBe(0);
    refused(mixed, /shard 1\/2 was computed from other raw data \(or another build\) than shard 0\/2 \(.+\): run every shard again on the same data/);
    // every shard of the other state, merged against this database
    const otherShards = join(dir, 'other-shards');
    runShards(2, otherShards, ['--db', other]);
    refused(otherShards, /the shards in ".+" were computed from other raw data \(or another build\) than the database ".+" holds \(shards: \d+ snapshot rows/);

    // one byte of a shard's Parquet file flipped
    const altered = copy('altered');
    const file = join(altered, 'shard-0000-of-0002.positions.parquet');
    const bytes = readFileSync(file);
    bytes[bytes.length >> 1]! ^= 0xff;
    writeFileSync(file, bytes);
    refused(altered, /shard-0000-of-0002\.positions\.parquet of shard 0\/2 is altered/);

    // flags that mean nothing
    const bad = vaultd(['recompute', '--shard', '0/2', '--out', base, '--db', db]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe('vaultd recompute: --shard needs --full (a shard is a part of a full recompute)\n');
    const range = vaultd(['recompute', '--full', '--shard', '2/2', '--out', base, '--db', db]);
    expect(range.status).toBe(2);
    expect(range.stderr).toMatch(/^vaultd recompute: --shard "2\/2": expected i\/n with 1 ≤ n ≤ 9999 and 0 ≤ i < n/);
  });

  it('export: every raw table exactly (EXCEPT ALL both ways), and shards read from it merge to the same bytes', async () => {
    const raw = join(dir, 'raw');
    const r = vaultd(['export', '--db', db, '--out', raw]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^exported 14 tables \(\d+ snapshot rows, \d+ events\) to /);
    const manifest = JSON.parse(readFileSync(join(raw, 'export.json'), 'utf8')) as { tables: Record<string, { name: string; rows: number }> };
    expect(Object.keys(manifest.tables)).toHaveLength(14);

    const instance = await DuckDBInstance.create(':memory:');
    const c = await instance.connect();
    try {
      await c.run(`ATTACH '${db}' AS src (READ_ONLY)`);
      let compared = 0;
      for (const [table, f] of Object.entries(manifest.tables)) {
        // the file's rows in the database's types (HUGEINT columns travel as exact text)
        await c.run(`CREATE OR REPLACE TABLE t AS SELECT * FROM src.main.${table} LIMIT 0`);
        await c.run(`INSERT INTO t BY NAME SELECT * FROM read_parquet('${join(raw, f.name)}')`);
        const where = table === 'settings' ? " WHERE key = 'prices.provider_errors'" : '';
        const q = async (sql: string) => Number((await c.runAndReadAll(sql)).getRowObjectsJS()[0]!.n);
        expect(await q('SELECT count(*) AS n FROM t'), table).toBe(f.rows);
        expect(await q(`SELECT count(*) AS n FROM src.main.${table}${where}`), table).toBe(f.rows);
        expect(await q(`SELECT count(*) AS n FROM (SELECT * FROM src.main.${table}${where} EXCEPT ALL SELECT * FROM t)`), table).toBe(0);
        expect(await q(`SELECT count(*) AS n FROM (SELECT * FROM t EXCEPT ALL SELECT * FROM src.main.${table}${where})`), table).toBe(0);
        compared += f.rows;
      }
      expect(compared).toBeGreaterThan(10_000);
    } finally {
      c.closeSync();
      instance.closeSync();
    }

    // an export whose file changed after it was written is refused before anything is computed
    const tampered = join(dir, 'raw-tampered');
    cpSync(raw, tampered, { recursive: true });
    const events = join(tampered, 'vault_events.parquet');
    const bytes = readFileSync(events);
    bytes[bytes.length >> 1]! ^= 0xff;
    writeFileSync(events, bytes);
    const refused = vaultd(['recompute', '--full', '--shard', '0/2', '--from', tampered, '--out', join(dir, 'never')]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe(`vaultd recompute: --from "${tampered}": vault_events.parquet is altered; export the database again\n`);
    expect(existsSync(join(dir, 'never'))).toBe(false);

    const shards = join(dir, 'from-export');
    runShards(2, shards, ['--from', raw]);
    const out = join(dir, 'merged-from-export');
    const merged = vaultd(['recompute', '--merge', shards, '--db', db, '--out', out]);
    expect(merged.status, merged.stderr).toBe(0);
    expectSameSnapshot(published, out);
  });

  it('snapshot verify: 0 and a summary for a good directory; 1 naming the file a flipped byte altered; 2 without a snapshot', () => {
    const good = vaultd(['snapshot', 'verify', published]);
    expect(good.status, good.stderr).toBe(0);
    expect(good.stdout).toMatch(/^snapshot .+ ok: generation 1 \(refreshed_at [^)]+\), 8 files, \d+ bytes checked \(size, SHA-256, CRC-32\) in \d+ ms\n$/);

    for (const role of ['series', 'world']) {
      const copy = join(dir, `corrupt-${role}`);
      cpSync(published, copy, { recursive: true });
      const name = readdirSync(copy).find((f) => f.startsWith(`${role}-`))!;
      const bytes = readFileSync(join(copy, name));
      bytes[bytes.length >> 1]! ^= 0x01;
      writeFileSync(join(copy, name), bytes);
      const bad = vaultd(['snapshot', 'verify', copy]);
      expect(bad.status, role).toBe(1);
      expect(bad.stderr).toBe(`vaultd snapshot verify: ${join(copy, name)} (${role}) does not match its SHA-256 (altered)\n`);
    }
    const empty = vaultd(['snapshot', 'verify', join(dir, 'no-such-dir')]);
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/holds no snapshot \(no manifest\.json\)/);
  });
});
