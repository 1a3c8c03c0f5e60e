// Reads and replaces the curated registry tables (chains, strategies, groups, vaults,
// tokens, external TVL sources) as one unit, inside the caller's transaction.
import type { Config } from '../common/config.js';
import type { Registry, TvlSourceRow } from '../model/rows.js';
import type { Store } from './store.js';

const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('T', ' ').replace('Z', '');

/** Replace every registry table with `registry`. Call inside a transaction. */
export async function writeRegistry(store: Store, registry: Registry): Promise<void> {
  for (const t of ['vaults', 'vault_groups', 'strategies', 'tokens', 'tvl_sources', 'chains']) {
    await store.run(`registry.clear.${t}`, `DELETE FROM ${t}`);
  }
  for (const c of registry.chains) {
    await store.run('registry.chain', 'INSERT INTO chains VALUES ($1, $2, $3, $4, from_json($5, \'["VARCHAR"]\'))', [
      c.chain_id,
      c.slug,
      c.name,
      c.finality_blocks,
      JSON.stringify(c.rpc_urls),
    ]);
  }
  for (const s of registry.strategies) {
    await store.run('registry.strategy', 'INSERT INTO strategies VALUES ($1, $2, $3, $4, $5)', [
      s.id,
      s.name,
      s.description,
      s.short_description,
      s.display_rank,
    ]);
  }
  for (const g of registry.groups) {
    await store.run('registry.group', 'INSERT INTO vault_groups VALUES ($1, $2, $3, $4, $5::DATE, $6, $7, $8)', [
      g.id,
      g.slug,
      g.name,
      g.is_stable,
      g.deployment_date,
      g.description,
      g.short_description,
      g.featured_rank,
    ]);
  }
  for (const v of registry.vaults) {
    await store.run(
      'registry.vault',
      'INSERT INTO vaults VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::TIMESTAMP, $15::JSON)',
      [
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
      ],
    );
  }
  for (const t of registry.tokens) {
    await store.run('registry.token', 'INSERT INTO tokens VALUES ($1, $2, $3, $4)', [t.chain_id, t.address, t.symbol, t.decimals]);
  }
  await insertTvlSources(store, registry.tvl_sources);
}

async function insertTvlSources(store: Store, sources: Registry['tvl_sources']): Promise<void> {
  for (const s of sources) {
    await store.run('registry.tvl_source', 'INSERT INTO tvl_sources VALUES ($1, $2, $3, $4::JSON, $5)', [
      s.id,
      s.label,
      s.kind,
      JSON.stringify(s.config),
      s.display_rank,
    ]);
  }
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
