import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, testCommon } from '../test/helpers/common.js';
import { activeKeyDigests, createApiKey, digestsEqual, hashSecret, listApiKeys, revokeApiKey } from './apiKeys.js';
import { MIGRATIONS, type Migration } from './migrations.js';
import { createRawWriter } from './rawWriter.js';
import { buildDemoRegistry } from '../jobs/demo/registry.js';
import { readRegistry, writeRegistry } from './registryStore.js';
import type { EventRow, Registry } from '../model/rows.js';
import { createStore, migrate, type Store } from './store.js';

const common = testCommon();
const open: Store[] = [];
async function openStore(path: string, migrations?: readonly Migration[]) {
  const s = await createStore(common, migrations ? { path, migrations } : { path });
  open.push(s);
  return s;
}
const dirs: string[] = [];
function dir(): string {
  const d = tempDir();
  dirs.push(d);
  return d;
}
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const registry: Registry = {
  chains: [{ chain_id: 1, slug: 'ethereum', name: 'Ethereum', finality_blocks: 12, rpc_urls: ['http://127.0.0.1:8545'] }],
  strategies: [{ id: 'prime', name: 'Prime Lending', description: null, short_description: 'short', display_rank: 1 }],
  groups: [
    {
      id: 'g1',
      slug: 'usdc-prime',
      name: 'USDC Prime',
      is_stable: true,
      deployment_date: '2024-05-01',
      description: 'd',
      short_description: null,
      featured_rank: 1,
    },
  ],
  vaults: [
    {
      vault_id: '1:0xdd0f28e19c1780eb6396170735d45153d261490d',
      chain_id: 1,
      address: '0xdd0f28e19c1780eb6396170735d45153d261490d',
      vault_type: 'morpho_v1',
      name: 'Gauntlet USDC Prime',
      symbol: 'gtUSDC',
      numeraire_address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
      numeraire_decimals: 6,
      numeraire_symbol: 'USDC',
      group_id: 'g1',
      is_primary: true,
      strategy_id: 'prime',
      visibility: 'visible',
      listed_at: 1_700_000_000,
      definition: { owner: '0x01', curator: '0x02', fee_wad: '100000000000000000' },
    },
  ],
  tokens: [{ chain_id: 1, address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', symbol: 'USDC', decimals: 6 }],
  tvl_sources: [{ id: 'ext', label: 'External', kind: 'static', config: { usd: '5' }, display_rank: 1 }],
};

function event(i: number): EventRow {
  return {
    chain_id: 1,
    block_number: 100 + i,
    log_index: i,
    sub_index: 0,
    block_hash: `0x${'ab'.repeat(32)}`,
    tx_hash: `0x${'cd'.repeat(32)}`,
    ts: 1_700_000_000 + i,
    vault_id: registry.vaults[0]!.vault_id,
    kind: 'deposit',
    wallet: '0x1111111111111111111111111111111111111111',
    counterparty: null,
    token: registry.tokens[0]!.address,
    assets: 10n ** 30n + BigInt(i), // beyond int64: must survive as HUGEINT
    shares: 123n,
    request_hash: null,
  };
}

describe('store', () => {
  it('migrations are idempotent: a second open applies nothing', async () => {
    const path = join(dir(), 'm.duckdb');
    const a = await openStore(path);
    expect(await a.schemaVersion()).toBe(MIGRATIONS.at(-1)!.version);
    expect(await migrate(a, MIGRATIONS)).toEqual([]);
    await a.close();
    open.pop();
    const b = await openStore(path);
    expect(await b.schemaVersion()).toBe(MIGRATIONS.at(-1)!.version);
  });

  it('a failing migration rolls back whole and keeps the version', async () => {
    const path = join(dir(), 'bad.duckdb');
    const bad = [...MIGRATIONS, { version: 99, name: 'broken', sql: 'CREATE TABLE half (x INT); SELECT * FROM no_such_table;' }];
    await expect(openStore(path, bad)).rejects.toThrow(/migrate\.99/);
    const s = await openStore(path);
    expect(await s.schemaVersion()).toBe(MIGRATIONS.at(-1)!.version);
    expect(await s.rows('probe', "SELECT * FROM duckdb_tables() WHERE table_name = 'half'")).toEqual([]);
  });

  it('migration 8: a file made before it opens with every vault row as it was, in order, and takes a vault type its CHECK refused', async () => {
    const path = join(dir(), 'v7.duckdb');
    const world = buildDemoRegistry({ seed: 3, vaults: 40, wallets: 10, days: 1, now: Date.parse('2026-06-01T00:00:00Z') / 1000 });
    const rowsOf = (s: Store) =>
      s.rows<Record<string, unknown>>('t.vaults', 'SELECT rowid AS r, * EXCLUDE (definition), definition::VARCHAR AS d FROM vaults ORDER BY rowid');
    const newType = (s: Store) =>
      s.run('t.new', "INSERT INTO vaults SELECT * REPLACE ('9:0x9' AS vault_id, 'a_family_added_later' AS vault_type) FROM vaults LIMIT 1");
    const old = await openStore(
      path,
      MIGRATIONS.filter((m) => m.version <= 7),
    );
    await old.transaction('t', () => writeRegistry(old, world));
    const before = await rowsOf(old);
    await expect(newType(old)).rejects.toThrow(/CHECK constraint/);
    await old.close();
    open.pop();

    const s = await openStore(path);
    expect(await s.schemaVersion()).toBe(MIGRATIONS.at(-1)!.version);
    expect(await rowsOf(s)).toEqual(before);
    expect((await readRegistry(s)).vaults).toEqual([...world.vaults].sort((a, b) => (a.vault_id < b.vault_id ? -1 : 1)));
    await newType(s);
    // the other constraints stand: the key, and visibility's CHECK
    await expect(newType(s)).rejects.toThrow(/[Dd]uplicate key|PRIMARY KEY|violates/);
    await expect(s.run('t.vis', "UPDATE vaults SET visibility = 'gone' WHERE vault_id = '9:0x9'")).rejects.toThrow(/CHECK constraint/);
  });

  it('registry round-trips', async () => {
    const s = await openStore(':memory:');
    await s.transaction('t', () => writeRegistry(s, registry));
    expect(await readRegistry(s)).toEqual(registry);
    // replacing is whole, not additive
    await s.transaction('t', () => writeRegistry(s, registry));
    expect((await readRegistry(s)).vaults).toHaveLength(1);
  });

  it('a registry larger than one INSERT round-trips (the demo world of 450 vaults)', async () => {
    const s = await openStore(':memory:');
    const big = buildDemoRegistry({ seed: 3, vaults: 450, wallets: 10, days: 1, now: Date.parse('2026-06-01T00:00:00Z') / 1000 });
    expect(big.vaults.length).toBeGreaterThan(400);
    await writeRegistry(s, big);
    const back = await readRegistry(s);
    const byId = <T extends { vault_id: string }>(xs: T[]) => [...xs].sort((a, b) => (a.vault_id < b.vault_id ? -1 : 1));
    expect(byId(back.vaults)).toEqual(byId(big.vaults));
    expect(back.tokens).toHaveLength(big.tokens.length);
    expect(back.groups).toHaveLength(big.groups.length);
  });

  it('raw rows round-trip through data chunks, HUGEINT exact', async () => {
    const s = await openStore(':memory:');
    const w = await createRawWriter(s, 'append');
    for (let i = 0; i < 5000; i++) w.sink.event(event(i));
    w.sink.snapshot({ vault_id: 'v', ts: 1_700_000_000, block_number: 7, total_assets: 2n ** 100n, total_supply: 5n, unit_price: null });
    w.sink.price({ chain_id: 1, address: '0xa', ts: 1_700_000_000, usd: '1.000123456789012345', source: 'test' });
    const added = await w.finish();
    expect(added).toMatchObject({ events: 5000, snapshots: 1, prices: 1 });
    const rows = await s.rows<{ assets: bigint; ts: Date; request_hash: string | null }>(
      'q',
      'SELECT assets, ts, request_hash FROM vault_events ORDER BY block_number LIMIT 2 OFFSET 4998',
    );
    expect(rows).toEqual([
      { assets: 10n ** 30n + 4998n, ts: new Date((1_700_000_000 + 4998) * 1000), request_hash: null },
      { assets: 10n ** 30n + 4999n, ts: new Date((1_700_000_000 + 4999) * 1000), request_hash: null },
    ]);
    expect(await s.one('q', 'SELECT total_assets, unit_price FROM vault_snapshots')).toEqual({ total_assets: 2n ** 100n, unit_price: null });
    expect(await s.one('q', 'SELECT usd::VARCHAR AS usd FROM prices')).toEqual({ usd: '1.000123456789012345' });
  });

  it('dedupe mode: a retried batch adds nothing twice', async () => {
    const s = await openStore(':memory:');
    const batches: [number[], number][] = [
      [[0, 1, 2], 3],
      [[1, 2, 3, 3], 1],
      [[0, 1, 2, 3], 0],
    ];
    for (const [batch, expected] of batches) {
      const w = await createRawWriter(s, 'dedupe');
      for (const i of batch) w.sink.event(event(i));
      expect((await w.finish()).events).toBe(expected);
    }
    expect(await s.one('q', 'SELECT count(*) AS n FROM vault_events')).toEqual({ n: 4n });
  });

  it('keys: stored only as SHA-256, revocable', async () => {
    const path = join(dir(), 'k.duckdb');
    const s = await openStore(path);
    const { id, secret } = await createApiKey(s, 'ci bot');
    expect(secret).toMatch(/^vk_[A-Za-z0-9_-]{43}$/);
    const stored = await s.rows<Record<string, unknown>>('q', 'SELECT * FROM api_keys');
    expect(JSON.stringify(stored, (_, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(secret);
    expect(stored[0]!.secret_sha256).toBe(hashSecret(secret));
    expect(digestsEqual(String(stored[0]!.secret_sha256), hashSecret(secret))).toBe(true);
    expect(digestsEqual(hashSecret('other'), hashSecret(secret))).toBe(false);
    await s.run('q', 'CHECKPOINT');
    expect(readFileSync(path).includes(Buffer.from(secret))).toBe(false);
    expect((await activeKeyDigests(s)).map((k) => k.id)).toEqual([id]);
    await revokeApiKey(s, id);
    expect(await activeKeyDigests(s)).toEqual([]);
    expect((await listApiKeys(s))[0]).toMatchObject({ id, name: 'ci bot', revoked_at: expect.stringMatching(/Z$/) });
    await expect(revokeApiKey(s, 'key_nope')).rejects.toThrow(/no API key with id "key_nope"/);
  });

  it("withMemoryLimit: the limit holds inside the work, and the store's own is back after it, after a commit and after a failed transaction", async () => {
    const s = await createStore(common, { path: ':memory:', memoryLimit: '1GB' });
    open.push(s);
    const limit = async () => (await s.one<{ v: string }>('q', "SELECT current_setting('memory_limit')::VARCHAR AS v"))!.v;
    const own = await limit();
    expect(own).toBe('953.6 MiB');
    expect(await s.withMemoryLimit('256MB', limit)).toBe('244.1 MiB');
    expect(await limit()).toBe(own);
    await s.run('q', 'CREATE TABLE t (x INTEGER)');
    await s.transaction('t', () => s.withMemoryLimit('256MB', () => s.run('q', 'INSERT INTO t VALUES (1)')));
    expect(await limit()).toBe(own);
    const boom = new Error('write failed');
    await expect(
      s.transaction('t', () =>
        s.withMemoryLimit('256MB', async () => {
          await s.run('q', 'INSERT INTO t VALUES (2)');
          await s.run('q', 'INSERT INTO no_such_table VALUES (3)').catch(() => undefined); // aborts the transaction
          throw boom;
        }),
      ),
    ).rejects.toBe(boom);
    expect(await limit()).toBe(own);
    expect(await s.rows('q', 'SELECT x FROM t ORDER BY x')).toEqual([{ x: 1 }]);
  });

  it('sibling: a second connection to the same file reads beside the first, with its own temp tables and transaction; closing it leaves the store open, closing the store closes it', async () => {
    const s = await openStore(join(dir(), 'w.duckdb'));
    await s.run('q', 'CREATE TABLE t AS SELECT range AS x FROM range(200000)');
    const b = await s.sibling();
    const sum = (st: Store) => st.one<{ n: number }>('q', 'SELECT sum(x)::DOUBLE AS n FROM t');
    // both connections stream at once
    const [x, y] = await Promise.all([sum(s), sum(b)]);
    expect(x).toEqual({ n: 199999 * 100000 });
    expect(y).toEqual(x);
    await b.run('q', 'CREATE TEMP TABLE only_b AS SELECT 1 AS one');
    await expect(s.run('q', 'SELECT * FROM only_b')).rejects.toThrow(/only_b/);
    // a transaction on the sibling is its own: the store does not see its rows until it commits
    await expect(
      b.transaction('t', async () => {
        await b.run('q', 'INSERT INTO t VALUES (-1)');
        expect(await s.one('q', 'SELECT count(*)::INTEGER AS n FROM t WHERE x < 0')).toEqual({ n: 0 });
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await s.one('q', 'SELECT count(*)::INTEGER AS n FROM t WHERE x < 0')).toEqual({ n: 0 });
    await b.close();
    expect(await sum(s)).toEqual(x);
    const c = await s.sibling();
    open.splice(open.indexOf(s), 1);
    await s.close();
    await expect(sum(c)).rejects.toThrow();
  });
});
