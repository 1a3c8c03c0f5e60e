// The saved inputs' stamp (store/publishIdentity.ts, store/fileState.ts): which statements count
// as input writes, and that a saved stamp is used only on a file in the state it was saved
// with, by a store that has written no input before asking — else the rows are hashed again.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DuckDBInstance } from './duckdbApi.js';
import { tempDir, testCommon } from '../test/helpers/common.js';
import { fileState, writtenTable } from './fileState.js';
import { inputStamp, stampFile, stampSource } from './publishIdentity.js';
import { setSetting } from './settings.js';
import { createStore, type Store } from './store.js';

const common = testCommon();
const open: Store[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
async function openStore(path: string): Promise<Store> {
  const s = await createStore(common, { path });
  open.push(s);
  return s;
}
async function closeStore(s: Store): Promise<void> {
  open.splice(open.indexOf(s), 1);
  await s.close();
}
const addPrice = (s: Store, usd: string) =>
  s.run('test.price', `INSERT INTO prices VALUES (1, '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', now()::TIMESTAMP, ${usd}, 'test')`);

/** Stamp a fresh open of `path`, then close it: the stamp and where it came from. */
async function stampOnce(path: string, before?: (s: Store) => Promise<void>, after?: (s: Store) => Promise<void>) {
  const s = await openStore(path);
  await before?.(s);
  const stamp = await inputStamp(s);
  const from = stampSource(s);
  await after?.(s);
  await closeStore(s);
  return { stamp, from };
}

describe('writtenTable', () => {
  it.each([
    ['SELECT * FROM prices', null],
    ['  -- a comment\n  select 1', null],
    ["SET memory_limit = '1GB'", null],
    ['CHECKPOINT', null],
    ['BEGIN TRANSACTION', null],
    ['WITH x AS (SELECT 1) SELECT * FROM x', null],
    ['CREATE OR REPLACE TEMP TABLE vaultd_dict_wallets AS SELECT 1', null],
    ['CREATE TEMPORARY TABLE t (x INT)', null],
    ['INSERT INTO prices VALUES (1)', 'prices'],
    ['insert or replace into "main"."Settings" VALUES (1)', 'settings'],
    ['UPDATE vault_events SET kind = 1', 'vault_events'],
    ['DELETE FROM vault_metrics_hourly WHERE ts > 1', 'vault_metrics_hourly'],
    ['TRUNCATE vault_snapshots', 'vault_snapshots'],
    ["COPY prices FROM 'x.csv'", 'prices'],
    ['ALTER TABLE vaults ADD COLUMN x INT', 'vaults'],
    ['DROP TABLE IF EXISTS vaultd_dict_wallets', 'vaultd_dict_wallets'],
    ['CREATE TABLE IF NOT EXISTS chains (x INT)', 'chains'],
    ['CREATE OR REPLACE TABLE tokens AS SELECT 1', 'tokens'],
    ['CREATE UNIQUE INDEX i ON vaults (vault_id)', 'vaults'],
    ['WITH x AS (SELECT 1) INSERT INTO prices SELECT * FROM x', '*'],
    ['INSERT INTO settings VALUES (1); DELETE FROM prices', '*'],
    ['MERGE INTO prices USING x ON true', '*'],
    ['ATTACH other.duckdb', '*'],
    ['SELECT 1;', null],
  ])('%s', (sql, table) => {
    expect(writtenTable(sql)).toBe(table);
  });
});

describe('saved inputs stamp', () => {
  it('is used while the file is as saved; an input written in a session, before or after the stamp, or by another program, makes the next start hash the rows', async () => {
    const path = join(tempDir(), 'w.duckdb');
    await closeStore(await openStore(path));
    expect(fileState(path)).toMatch(/^\d+:\d+:\d+:\d+:\d+:[0-9a-f]{64}$/);

    const first = await stampOnce(path);
    expect(first.from).toBe('rows');
    expect(existsSync(stampFile(path))).toBe(true);
    expect(await stampOnce(path)).toEqual({ stamp: first.stamp, from: 'saved' });

    // settings are not an input: written after the stamp, the stamp is saved with the new file state
    const withSetting = await stampOnce(path, undefined, (s) => setSetting(s, 'x', 'y'));
    expect(withSetting).toEqual({ stamp: first.stamp, from: 'saved' });
    expect(await stampOnce(path)).toEqual({ stamp: first.stamp, from: 'saved' });

    // an input written after the stamp: nothing saved, the next start hashes (and sees the change)
    await stampOnce(path, undefined, (s) => addPrice(s, '1.5'));
    expect(existsSync(stampFile(path))).toBe(false);
    const second = await stampOnce(path);
    expect(second.from).toBe('rows');
    expect(second.stamp).not.toBe(first.stamp);
    expect(await stampOnce(path)).toEqual({ stamp: second.stamp, from: 'saved' });

    // an input written before the stamp in the same session: hashed, and saved for the next
    const third = await stampOnce(path, (s) => addPrice(s, '2.5'));
    expect(third.from).toBe('rows');
    expect(third.stamp).not.toBe(second.stamp);
    expect(await stampOnce(path)).toEqual({ stamp: third.stamp, from: 'saved' });

    // another program changes an input (same file, same inode): the state moved, so the rows are hashed
    const instance = await DuckDBInstance.create(path);
    const c = await instance.connect();
    await c.run('UPDATE prices SET usd = usd + 1');
    c.closeSync();
    instance.closeSync();
    const fourth = await stampOnce(path);
    expect(fourth.from).toBe('rows');
    expect(fourth.stamp).not.toBe(third.stamp);

    // a saved stamp of another file state, or a damaged one, is not used
    writeFileSync(stampFile(path), JSON.stringify({ format: 1, state: 'other', inputs: 'x' }));
    expect(await stampOnce(path)).toEqual({ stamp: fourth.stamp, from: 'rows' });
    writeFileSync(stampFile(path), '{"format":1,');
    expect(await stampOnce(path)).toEqual({ stamp: fourth.stamp, from: 'rows' });
    expect(await stampOnce(path)).toEqual({ stamp: fourth.stamp, from: 'saved' });
  });

  it('appenders on input tables count as input writes; on other tables they do not', async () => {
    const path = join(tempDir(), 'a.duckdb');
    const created = await openStore(path);
    expect(created.inputWrites()).toBeGreaterThan(0); // the migrations created the input tables
    await closeStore(created);
    const s = await openStore(path);
    expect(s.inputWrites()).toBe(0);
    (await s.appender('api_keys')).closeSync();
    expect(s.inputWrites()).toBe(0);
    (await s.appender('vault_snapshots')).closeSync();
    expect(s.inputWrites()).toBe(1);
  });

  it('nothing is saved for a database in memory', async () => {
    const s = await createStore(common, { path: ':memory:' });
    open.push(s);
    expect(s.openedState).toBeNull();
    await inputStamp(s);
    expect(stampSource(s)).toBe('rows');
  });
});
