// The demo world as built into a real DuckDB file: deterministic content and the coverage
// DESIGN §7 promises, asserted by queries on the database.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableHashes } from './helpers/contentHash.js';
import { createStore, type Store } from '../store/store.js';
import { createDemoWorld } from '../jobs/demo/createDemoWorld.js';
import type { DemoParams } from '../jobs/demo/index.js';
import { tempDir, testCommon } from './helpers/common.js';

const common = testCommon();
const dir = tempDir('vaultd-demo-');
const NOW = Date.parse('2026-06-01T00:00:00Z') / 1000;
const params: DemoParams = { seed: 42, now: NOW, vaults: null, wallets: 600, days: 420 };

async function build(name: string, p: DemoParams): Promise<string> {
  const path = join(dir, name);
  await createDemoWorld(common, { path, params: p, force: true });
  return path;
}
async function hashesOf(path: string) {
  const s = await createStore(common, { path });
  try {
    return await tableHashes(s);
  } finally {
    await s.close();
  }
}

describe('demo world in DuckDB', () => {
  let store: Store;
  let path: string;
  beforeAll(async () => {
    path = await build('a.duckdb', params);
    store = await createStore(common, { path });
  });
  afterAll(() => store.close());

  it('determinism: same seed and now give identical content hashes of every table', async () => {
    const first = await hashesOf(path);
    const again = await hashesOf(await build('b.duckdb', params));
    expect(again).toEqual(first);
    expect(first.vault_snapshots!.rows).toBeGreaterThan(100_000);
    const other = await hashesOf(await build('c.duckdb', { ...params, seed: 43 }));
    expect(other.vault_events!.md5).not.toBe(first.vault_events!.md5);
  });

  const scalar = async (sql: string) => Number(Object.values((await store.one('q', sql))!)[0]);

  it('size: 3+ chains, 8+ groups, 16+ deployments, 4+ strategies, 500+ wallets, 400+ days, 2 TVL sources', async () => {
    expect(await scalar('SELECT count(DISTINCT chain_id) FROM vaults')).toBeGreaterThanOrEqual(3);
    expect(await scalar('SELECT count(*) FROM vault_groups')).toBeGreaterThanOrEqual(8);
    expect(await scalar('SELECT count(*) FROM vaults')).toBeGreaterThanOrEqual(16);
    expect(await scalar('SELECT count(*) FROM strategies')).toBeGreaterThanOrEqual(4);
    expect(await scalar('SELECT count(DISTINCT wallet) FROM vault_events')).toBeGreaterThanOrEqual(500);
    expect(await scalar("SELECT date_diff('day', min(ts), max(ts)) FROM vault_snapshots")).toBeGreaterThanOrEqual(400);
    expect(await scalar('SELECT count(*) FROM tvl_sources')).toBe(2);
  });

  it('coverage of the registry: types, visibility, no group, no strategy, unpriced numeraire', async () => {
    const types = await store.rows<{ t: string }>('q', 'SELECT DISTINCT vault_type AS t FROM vaults ORDER BY t');
    expect(types.map((r) => r.t)).toEqual(['aera_v3', 'morpho_v1', 'morpho_v2', 'symbiotic']);
    expect(await scalar("SELECT count(*) FROM vaults WHERE visibility = 'hidden'")).toBeGreaterThanOrEqual(1);
    expect(await scalar("SELECT count(*) FROM vaults WHERE visibility = 'disabled'")).toBeGreaterThanOrEqual(1);
    expect(await scalar('SELECT count(*) FROM vaults WHERE group_id IS NULL')).toBeGreaterThanOrEqual(1);
    expect(await scalar('SELECT count(*) FROM vaults WHERE strategy_id IS NULL')).toBeGreaterThanOrEqual(1);
    expect(
      await scalar(`SELECT count(*) FROM vaults v WHERE NOT EXISTS (
        SELECT 1 FROM prices p WHERE p.chain_id = v.chain_id AND p.address = v.numeraire_address)`),
    ).toBeGreaterThanOrEqual(1);
  });

  it('coverage of history: a vault younger than 90 days, a 48 h+ price gap', async () => {
    expect(
      await scalar(`SELECT count(*) FROM (SELECT vault_id, min(ts) AS first FROM vault_snapshots GROUP BY vault_id)
                    WHERE first > to_timestamp(${NOW})::TIMESTAMP - INTERVAL 90 DAY`),
    ).toBeGreaterThanOrEqual(1);
    expect(
      await scalar(`SELECT max(gap) FROM (SELECT epoch(ts) - epoch(lag(ts) OVER (PARTITION BY chain_id, address ORDER BY ts)) AS gap FROM prices)`),
    ).toBeGreaterThan(48 * 3600);
  });

  it('coverage of activity: async lifecycles settle, stay pending and refund both ways; transfers; exits', async () => {
    const lifecycle = (request: string, settled: string, refunded: string) =>
      store.one<Record<string, bigint>>(
        'q',
        `WITH r AS (SELECT request_hash FROM vault_events WHERE kind = '${request}'),
              t AS (SELECT request_hash, kind FROM vault_events WHERE kind IN ('${settled}', '${refunded}') AND request_hash IS NOT NULL)
         SELECT count(*) FILTER (WHERE t.kind = '${settled}') AS settled,
                count(*) FILTER (WHERE t.kind = '${refunded}') AS refunded,
                count(*) FILTER (WHERE t.kind IS NULL) AS pending
           FROM r LEFT JOIN t USING (request_hash)`,
      );
    for (const row of [
      await lifecycle('deposit_pending', 'deposit', 'deposit_refunded'),
      await lifecycle('withdraw_pending', 'withdraw', 'withdraw_refunded'),
    ]) {
      expect(row!.settled).toBeGreaterThan(0n);
      expect(row!.refunded).toBeGreaterThan(0n);
      expect(row!.pending).toBeGreaterThan(0n);
    }
    expect(await scalar("SELECT count(*) FROM vault_events WHERE kind = 'transfer_in'")).toBeGreaterThan(0);
    expect(await scalar("SELECT count(*) FROM vault_events WHERE kind = 'transfer_out'")).toBeGreaterThan(0);
    // exited: every share movement of the (wallet, vault) nets to zero and nothing is escrowed
    const exited = await scalar(`
      SELECT count(*) FROM (
        SELECT wallet, vault_id, sum(CASE
          WHEN kind IN ('deposit', 'transfer_in', 'withdraw_refunded') THEN shares
          WHEN kind IN ('transfer_out', 'withdraw_pending') THEN -shares
          WHEN kind = 'withdraw' AND request_hash IS NULL THEN -shares ELSE 0 END) AS net,
          count(*) FILTER (WHERE kind LIKE '%_pending') AS requests,
          count(*) FILTER (WHERE request_hash IS NOT NULL AND kind NOT LIKE '%_pending') AS ended
        FROM vault_events GROUP BY ALL) WHERE net = 0 AND requests = ended`);
    expect(exited).toBeGreaterThanOrEqual(3);
    expect(await scalar('SELECT count(*) FROM allocations')).toBeGreaterThan(0);
    expect(await scalar('SELECT count(*) FROM tvl_source_values WHERE error IS NOT NULL')).toBeGreaterThan(0);
  });
});
