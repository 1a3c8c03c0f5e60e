// Reads and replaces the curated registry tables (chains, strategies, groups, vaults,
// tokens, external TVL sources) as one unit, inside the caller's transaction.
import type { Config } from '../common/config.js';
import type { Registry, TvlSourceRow } from '../model/rows.js';
import type { DuckDBValue } from './duckdbApi.js';
import type { Store } from './store.js';

const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('T', ' ').replace('Z', '');

/** Replace every registry table with `registry`. Call inside a transaction. */
export async function writeRegistry(store: Store, registry: Registry): Promise<void> {
  for (const t of ['vaults', 'vault_groups', 'strategies', 'tokens', 'tvl_sources', 'chains']) {
    await store.run(`registry.clear.${t}`, `DELETE FROM ${t}`);
  }
  await insertRows(
    store,
    'registry.chain',
    'chains',
    ['?', '?', '?', '?', `from_json(?, '["VARCHAR"]')`],
    registry.chains.map((c) => [c.chain_id, c.slug, c.name, c.finality_blocks, JSON.stringify(c.rpc_urls)]),
  );
  await insertRows(
    store,
    'registry.strategy',
    'strategies',
    ['?', '?', '?', '?', '?'],
    registry.strategies.map((s) => [s.id, s.name, s.description, s.short_description, s.display_rank]),
  );
  await insertGroups(store, registry.groups);
  await insertVaults(store, registry.vaults);
  await insertRows(
    store,
    'registry.token',
    'tokens',
    ['?', '?', '?', '?'],
    registry.tokens.map((t) => [t.chain_id, t.address, t.symbol, t.decimals]),
  );
  await insertTvlSources(store, registry.tvl_sources);
}

/** Registry rows added to a registry that has others: vaults (and their groups when new), nothing removed. */
export async function addListed(store: Store, vaults: Registry['vaults'], groups: Registry['groups']): Promise<void> {
  if (groups.length > 0) await insertGroups(store, groups);
  await insertVaults(store, vaults);
}

async function insertGroups(store: Store, groups: Registry['groups']): Promise<void> {
  await insertRows(
    store,
    'registry.group',
    'vault_groups',
    ['?', '?', '?', '?', '?::DATE', '?', '?', '?'],
    groups.map((g) => [g.id, g.slug, g.name, g.is_stable, g.deployment_date, g.description, g.short_description, g.featured_rank]),
  );
}

async function insertVaults(store: Store, vaults: Registry['vaults']): Promise<void> {
  const vaultColumns = ['?', '?', '?', '?', '?', '?', '?', '?', '?', '?', '?', '?', '?', '?::TIMESTAMP', '?::JSON'];
  await insertRows(
    store,
    'registry.vault',
    'vaults',
    vaultColumns,
    vaults.map((v) => [
      v.vault_id,
      v.chain_id,
      v.address,
      v.vault_type,
      v.name,
      v.symbol,
      v.numeraire_address,
      v.numeraire_decimals,
      v.numeraire_symbol,
      v.group_id,
      v.is_primary,
      v.strategy_id,
      v.visibility,
      iso(v.listed_at),
      JSON.stringify(v.definition),
    ]),
  );
}

/** Rows per INSERT: one statement costs ~2 ms here whatever its size, so a 1,000-vault registry took 3 s a row at a time. */
const ROWS_PER_INSERT = 200;

/**
 * Inserts `rows` into `table`, ROWS_PER_INSERT to a statement; `columns` is each column's
 * SQL with `?` where its bound value goes (a cast or a function of it).
 */
async function insertRows(store: Store, label: string, table: string, columns: readonly string[], rows: readonly DuckDBValue[][]): Promise<void> {
  for (let from = 0; from < rows.length; from += ROWS_PER_INSERT) {
    const part = rows.slice(from, from + ROWS_PER_INSERT);
    let n = 0;
    const values = part.map(() => `(${columns.map((c) => c.replace('?', () => `$${++n}`)).join(', ')})`);
    await store.run(label, `INSERT INTO ${table} VALUES ${values.join(', ')}`, part.flat());
  }
}

async function insertTvlSources(store: Store, sources: Registry['tvl_sources']): Promise<void> {
  await insertRows(
    store,
    'registry.tvl_source',
    'tvl_sources',
    ['?', '?', '?', '?::JSON', '?'],
    sources.map((s) => [s.id, s.label, s.kind, JSON.stringify(s.config), s.display_rank]),
  );
}

/** Replace only the external TVL sources (a configuration that lists them but no vault). */
export async function writeTvlSources(store: Store, sources: Registry['tvl_sources']): Promise<void> {
  await store.transaction('registry.tvl_sources', async () => {
    await store.run('registry.clear.tvl_sources', 'DELETE FROM tvl_sources');
    await insertTvlSources(store, sources);
  });
}

/** Read the whole registry back (small tables). */
export async function readRegistry(store: Store): Promise<Registry> {
  const epoch = (col: string) => `epoch(${col})::BIGINT AS ${col}`;
  const chains = await store.rows<Record<string, unknown>>('registry.read.chains', 'SELECT * FROM chains ORDER BY chain_id');
  const strategies = await store.rows('registry.read.strategies', 'SELECT * FROM strategies ORDER BY display_rank, id');
  const groups = await store.rows(
    'registry.read.groups',
    "SELECT * EXCLUDE (deployment_date), strftime(deployment_date, '%Y-%m-%d') AS deployment_date FROM vault_groups ORDER BY id",
  );
  const vaults = await store.rows<Record<string, unknown>>(
    'registry.read.vaults',
    `SELECT * EXCLUDE (listed_at, definition), ${epoch('listed_at')}, definition::VARCHAR AS definition FROM vaults ORDER BY vault_id`,
  );
  const tokens = await store.rows('registry.read.tokens', 'SELECT * FROM tokens ORDER BY chain_id, address');
  const tvlSources = await store.rows<Record<string, unknown>>(
    'registry.read.tvl_sources',
    'SELECT * EXCLUDE (config), config::VARCHAR AS config FROM tvl_sources ORDER BY display_rank, id',
  );
  const num = (x: unknown) => Number(x);
  return {
    chains: chains.map((c) => ({ ...c, chain_id: num(c.chain_id), rpc_urls: [...(c.rpc_urls as string[])] })) as never,
    strategies: strategies as never,
    groups: groups as never,
    vaults: vaults.map((v) => ({
      ...v,
      chain_id: num(v.chain_id),
      listed_at: num(v.listed_at),
      definition: JSON.parse(v.definition as string),
    })) as never,
    tokens: tokens.map((t) => ({ ...t, chain_id: num(t.chain_id) })) as never,
    tvl_sources: tvlSources.map((s) => ({ ...s, config: JSON.parse(s.config as string) })) as never,
  };
}

/** The config's external TVL sources as registry rows (their other keys become `config`). */
export function tvlSourceRows(config: Pick<Config, 'tvl_sources'>): TvlSourceRow[] {
  return config.tvl_sources.map((s, i) => {
    const { id, label, kind, ...rest } = s;
    return { id, label, kind, config: rest, display_rank: i + 1 };
  });
}

/**
 * Makes the registry's external TVL sources the config's (when it lists any): with vaults
 * configured the chain ingest's registry sync writes them too; without, this is the only
 * writer (e.g. a demo world served with a config of its own sources). Returns whether it wrote.
 */
export async function syncTvlSources(store: Store, config: Pick<Config, 'tvl_sources'>): Promise<boolean> {
  if (config.tvl_sources.length === 0) return false;
  const wanted = tvlSourceRows(config);
  const { tvl_sources: current } = await readRegistry(store);
  if (JSON.stringify(current) === JSON.stringify(wanted)) return false;
  await writeTvlSources(store, wanted);
  return true;
}

/** Whether the store holds a registry (any vault). */
export async function hasVaults(store: Store): Promise<boolean> {
  const row = await store.one<{ n: bigint }>('demo.has_data', 'SELECT count(*) AS n FROM vaults');
  return (row?.n ?? 0n) > 0n;
}
