// Versioned schema of the one DuckDB file (DESIGN §3). Append a migration; never edit one
// that has shipped. Large raw tables carry no PRIMARY KEY on purpose: loading is 7x slower
// with one (DESIGN §8), so the loader deduplicates through a staging table and an anti-join.

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'registry, raw and derived tables',
    sql: `
CREATE TABLE settings (
  key VARCHAR PRIMARY KEY,
  value VARCHAR NOT NULL
);

-- registry (curated; from the config file or the demo) --------------------------------
CREATE TABLE chains (
  chain_id BIGINT PRIMARY KEY,
  slug VARCHAR NOT NULL UNIQUE,
  name VARCHAR NOT NULL,
  finality_blocks INTEGER NOT NULL,
  rpc_urls VARCHAR[] NOT NULL
);
CREATE TABLE strategies (
  id VARCHAR PRIMARY KEY,
  name VARCHAR NOT NULL,
  description VARCHAR,
  short_description VARCHAR,
  display_rank INTEGER NOT NULL
);
CREATE TABLE vault_groups (
  id VARCHAR PRIMARY KEY,
  slug VARCHAR NOT NULL UNIQUE,
  name VARCHAR NOT NULL,
  is_stable BOOLEAN NOT NULL,
  deployment_date DATE,
  description VARCHAR,
  short_description VARCHAR,
  featured_rank INTEGER
);
CREATE TABLE vaults (
  vault_id VARCHAR PRIMARY KEY,
  chain_id BIGINT NOT NULL,
  address VARCHAR NOT NULL,
  vault_type VARCHAR NOT NULL CHECK (vault_type IN ('aera_v3', 'morpho_v1', 'morpho_v2', 'symbiotic')),
  name VARCHAR NOT NULL,
  symbol VARCHAR NOT NULL,
  numeraire_address VARCHAR NOT NULL,
  numeraire_decimals INTEGER NOT NULL,
  numeraire_symbol VARCHAR NOT NULL,
  group_id VARCHAR,
  is_primary BOOLEAN NOT NULL,
  strategy_id VARCHAR,
  visibility VARCHAR NOT NULL CHECK (visibility IN ('visible', 'hidden', 'disabled')),
  listed_at TIMESTAMP NOT NULL,
  definition JSON NOT NULL
);
CREATE TABLE tokens (
  chain_id BIGINT NOT NULL,
  address VARCHAR NOT NULL,
  symbol VARCHAR NOT NULL,
  decimals INTEGER NOT NULL,
  PRIMARY KEY (chain_id, address)
);
CREATE TABLE tvl_sources (
  id VARCHAR PRIMARY KEY,
  label VARCHAR NOT NULL,
  kind VARCHAR NOT NULL,
  config JSON NOT NULL,
  display_rank INTEGER NOT NULL
);
CREATE TABLE api_keys (
  id VARCHAR PRIMARY KEY,
  name VARCHAR NOT NULL,
  secret_sha256 VARCHAR NOT NULL UNIQUE,
  tier VARCHAR NOT NULL,
  created_at TIMESTAMP NOT NULL,
  revoked_at TIMESTAMP
);

-- raw (ingested; append-only, deduplicated by the loader) --------------------------------
CREATE TABLE vault_snapshots (
  vault_id VARCHAR NOT NULL,
  ts TIMESTAMP NOT NULL,
  block_number BIGINT NOT NULL,
  total_assets HUGEINT NOT NULL,
  total_supply HUGEINT NOT NULL,
  unit_price HUGEINT
);
CREATE TABLE vault_events (
  chain_id BIGINT NOT NULL,
  block_number BIGINT NOT NULL,
  log_index INTEGER NOT NULL,
  sub_index INTEGER NOT NULL,
  block_hash VARCHAR NOT NULL,
  tx_hash VARCHAR NOT NULL,
  ts TIMESTAMP NOT NULL,
  vault_id VARCHAR NOT NULL,
  kind VARCHAR NOT NULL,
  wallet VARCHAR NOT NULL,
  counterparty VARCHAR,
  token VARCHAR NOT NULL,
  assets HUGEINT NOT NULL,
  shares HUGEINT NOT NULL,
  request_hash VARCHAR
);
CREATE TABLE prices (
  chain_id BIGINT NOT NULL,
  address VARCHAR NOT NULL,
  ts TIMESTAMP NOT NULL,
  usd DECIMAL(38, 18) NOT NULL,
  source VARCHAR NOT NULL
);
CREATE TABLE allocations (
  vault_id VARCHAR NOT NULL,
  as_of TIMESTAMP NOT NULL,
  position INTEGER NOT NULL,
  category VARCHAR NOT NULL,
  target JSON NOT NULL,
  allocation DOUBLE NOT NULL,
  amount DOUBLE NOT NULL,
  amount_usd DOUBLE
);
CREATE TABLE tvl_source_values (
  source_id VARCHAR NOT NULL,
  ts TIMESTAMP NOT NULL,
  usd DECIMAL(38, 6),
  error VARCHAR
);
CREATE TABLE ingest_checkpoints (
  chain_id BIGINT NOT NULL,
  stream VARCHAR NOT NULL,
  block_number BIGINT NOT NULL,
  block_hash VARCHAR,
  updated_at TIMESTAMP NOT NULL,
  PRIMARY KEY (chain_id, stream)
);
CREATE TABLE block_hashes (
  chain_id BIGINT NOT NULL,
  block_number BIGINT NOT NULL,
  block_hash VARCHAR NOT NULL,
  ts TIMESTAMP NOT NULL,
  PRIMARY KEY (chain_id, block_number)
);

-- derived (recomputed; the published snapshot is built from these) ----------------------
CREATE TABLE vault_metrics_hourly (
  vault_id VARCHAR NOT NULL,
  ts TIMESTAMP NOT NULL,
  unit_price VARCHAR NOT NULL,
  tvl_native VARCHAR NOT NULL,
  tvl_usd VARCHAR,
  total_supply VARCHAR NOT NULL,
  apy_7d DOUBLE,
  apy_30d DOUBLE,
  apy_90d DOUBLE
);
CREATE TABLE positions (
  position_id BIGINT NOT NULL,
  wallet VARCHAR NOT NULL,
  vault_id VARCHAR NOT NULL,
  shares_owned VARCHAR NOT NULL,
  cost_basis_native VARCHAR NOT NULL,
  cost_basis_usd VARCHAR,
  realized_native VARCHAR NOT NULL,
  realized_usd VARCHAR,
  pending_deposit_assets VARCHAR NOT NULL,
  pending_redeem_shares VARCHAR NOT NULL,
  updated_at TIMESTAMP NOT NULL
);
CREATE TABLE activity (
  wallet VARCHAR NOT NULL,
  vault_id VARCHAR NOT NULL,
  row_id VARCHAR NOT NULL,
  type VARCHAR NOT NULL,
  block_timestamp BIGINT NOT NULL,
  chain_id BIGINT NOT NULL,
  block_number BIGINT NOT NULL,
  log_index INTEGER NOT NULL,
  sub_index INTEGER NOT NULL,
  block_hash VARCHAR NOT NULL,
  tx_hash VARCHAR NOT NULL,
  request_hash VARCHAR,
  shares_delta VARCHAR NOT NULL,
  assets_delta VARCHAR NOT NULL
);
`,
  },
  {
    version: 2,
    name: 'chain ingest: decoded provisioner requests, per-chain ingest status',
    sql: `
-- Aera Provisioner requests as decoded by the chain indexer: a *Solved/*Refunded carries only
-- the hash, and its request may lie in an earlier block range (DESIGN §6.1). Small table.
CREATE TABLE chain_requests (
  chain_id BIGINT NOT NULL,
  provisioner VARCHAR NOT NULL,
  request_hash VARCHAR NOT NULL,
  kind VARCHAR NOT NULL CHECK (kind IN ('deposit', 'redeem')),
  vault_id VARCHAR NOT NULL,
  user_address VARCHAR NOT NULL,
  receiver VARCHAR NOT NULL,
  token VARCHAR NOT NULL,
  tokens HUGEINT NOT NULL,
  units HUGEINT NOT NULL,
  block_number BIGINT NOT NULL,
  log_index INTEGER NOT NULL
);
-- One row per chain, written after every ingest round (/health/chains reads it, DESIGN §9).
CREATE TABLE ingest_status (
  chain_id BIGINT PRIMARY KEY,
  status VARCHAR NOT NULL CHECK (status IN ('ok', 'stalled')),
  consecutive_failures INTEGER NOT NULL,
  last_error VARCHAR,
  head_block BIGINT,
  checkpoint_block BIGINT,
  checkpoint_ts TIMESTAMP,
  updated_at TIMESTAMP NOT NULL
);
`,
  },
  {
    version: 3,
    name: 'price feeds: per-aggregator scan state',
    sql: `
-- A Chainlink-style feed's scan state (jobs/prices/chainlinkProvider.ts): the block scanned to
-- (and its hash, to notice a reorg), the newest answer seen and the newest hour written. It is
-- written in the same transaction as the feed's price rows.
CREATE TABLE price_feeds (
  chain_id BIGINT NOT NULL,
  aggregator VARCHAR NOT NULL,
  token_chain_id BIGINT NOT NULL,
  token VARCHAR NOT NULL,
  decimals INTEGER NOT NULL,
  block_number BIGINT NOT NULL,
  block_hash VARCHAR,
  answer HUGEINT,
  answer_updated_at BIGINT,
  last_hour BIGINT NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  PRIMARY KEY (chain_id, aggregator)
);
`,
  },
  {
    version: 5,
    name: 'activity: a view over vault_events and the computed deltas',
    sql: `
-- A recompute writes only what it computes of an activity row — the signed deltas (DESIGN §4.6)
-- as base units — and the view joins the rest from vault_events, formatting the deltas as the
-- API's decimal strings when read (vaultd_units = model/format/numbers.ts formatUnits; a test
-- holds them equal). The table it replaces repeated every raw column (2 M rows of hashes and
-- addresses) at each recompute.
DROP TABLE activity;
CREATE TABLE activity_deltas (
  chain_id BIGINT NOT NULL,
  block_number BIGINT NOT NULL,
  log_index INTEGER NOT NULL,
  sub_index INTEGER NOT NULL,
  decimals INTEGER NOT NULL,
  -- NULL only for a delta outside HUGEINT (absurd raw values): never a wrapped number
  shares_delta HUGEINT,
  assets_delta HUGEINT
);
CREATE MACRO vaultd_units_digits(x, d) AS lpad(abs(x)::VARCHAR, greatest(length(abs(x)::VARCHAR), d + 1)::INTEGER, '0');
CREATE MACRO vaultd_units_frac(x, d) AS rtrim(right(vaultd_units_digits(x, d), d::INTEGER), '0');
CREATE MACRO vaultd_units(x, d) AS CASE WHEN x IS NULL THEN NULL ELSE
  (CASE WHEN x < 0 THEN '-' ELSE '' END)
  || left(vaultd_units_digits(x, d), (length(vaultd_units_digits(x, d)) - d)::INTEGER)
  || CASE WHEN vaultd_units_frac(x, d) = '' THEN '' ELSE '.' || vaultd_units_frac(x, d) END END;
CREATE VIEW activity AS
SELECT e.wallet, e.vault_id,
       e.chain_id::VARCHAR || ':' || e.block_number::VARCHAR || ':' || e.log_index::VARCHAR || ':' || e.sub_index::VARCHAR AS row_id,
       e.kind AS type, epoch(e.ts)::BIGINT AS block_timestamp, e.chain_id, e.block_number, e.log_index, e.sub_index,
       e.block_hash, e.tx_hash,
       CASE WHEN e.kind IN ('transfer_in', 'transfer_out') THEN NULL ELSE e.request_hash END AS request_hash,
       vaultd_units(d.shares_delta, 18) AS shares_delta, vaultd_units(d.assets_delta, d.decimals) AS assets_delta
  FROM activity_deltas d
  JOIN vault_events e USING (chain_id, block_number, log_index, sub_index);
`,
  },
  {
    version: 6,
    name: 'vault_metrics_hourly: exact numeric columns',
    sql: `
-- The hourly metrics as numbers instead of decimal strings, so a recompute appends the series'
-- 128-bit words as they are (engine/persist/metricsWriter.ts) instead of formatting 17 M rows
-- of text. Amounts are exact DECIMALs: unit price, TVL in token units and supply at 18
-- decimals, USD TVL at 6 (half-even, DESIGN §4.7); APYs stay doubles (§4.2). A DECIMAL(38, s)
-- holds |x| < 10^38: a value past that, or a TVL with non-zero digits past the 18th fractional
-- one (numeraires above 18 decimals), has no representation and is NULL — never rounded. The
-- table is derived: its rows are dropped here and the next recompute writes them all (with
-- the table empty, \`vaultd recompute\` without --full writes every hour).
DROP TABLE vault_metrics_hourly;
CREATE TABLE vault_metrics_hourly (
  vault_id VARCHAR NOT NULL,
  ts TIMESTAMP NOT NULL,
  unit_price DECIMAL(38, 18),
  tvl_native DECIMAL(38, 18),
  tvl_usd DECIMAL(38, 6),
  total_supply DECIMAL(38, 18),
  apy_7d DOUBLE,
  apy_30d DOUBLE,
  apy_90d DOUBLE
);
`,
  },
  {
    version: 7,
    name: 'activity: vaultd_units formats the most negative HUGEINT',
    sql: `
-- abs(-2^127) is past HUGEINT, so migration 5's macro failed the whole activity query on a
-- delta of exactly -2^127 (a value the writer stores). The digits come from the text instead.
CREATE OR REPLACE MACRO vaultd_units_digits(x, d) AS lpad(ltrim(x::VARCHAR, '-'), greatest(length(ltrim(x::VARCHAR, '-')), d + 1)::INTEGER, '0');
`,
  },
  {
    version: 8,
    name: 'vaults: the vault types are the families (no CHECK)',
    sql: `
-- Migration 1 listed the vault types in a CHECK, so a file could never hold a family added
-- later. The types are the family table's (families/index.ts), checked where rows enter (the
-- config's picklist, the demo's typed registry): the table is rebuilt without that CHECK,
-- rows, order and every other constraint as they were. DuckDB cannot drop a CHECK in place.
CREATE TABLE vaults_v8 (
  vault_id VARCHAR PRIMARY KEY,
  chain_id BIGINT NOT NULL,
  address VARCHAR NOT NULL,
  vault_type VARCHAR NOT NULL,
  name VARCHAR NOT NULL,
  symbol VARCHAR NOT NULL,
  numeraire_address VARCHAR NOT NULL,
  numeraire_decimals INTEGER NOT NULL,
  numeraire_symbol VARCHAR NOT NULL,
  group_id VARCHAR,
  is_primary BOOLEAN NOT NULL,
  strategy_id VARCHAR,
  visibility VARCHAR NOT NULL CHECK (visibility IN ('visible', 'hidden', 'disabled')),
  listed_at TIMESTAMP NOT NULL,
  definition JSON NOT NULL
);
INSERT INTO vaults_v8 SELECT * FROM vaults ORDER BY rowid;
DROP TABLE vaults;
ALTER TABLE vaults_v8 RENAME TO vaults;
`,
  },
  {
    version: 9,
    name: "request_terms: async requests' deadline and solver tip",
    sql: `
-- The terms of an async request (DESIGN §11.8), read from the Provisioner's *Requested event or
-- made by the demo: until when it may be solved and what the solver takes (base units of the
-- request's token). A new raw table rather than new vault_events columns: the events keep their
-- shape (and a file built before this has every event it had); a request without terms — every
-- request of such a file — has no deadline, so it never expires.
CREATE TABLE request_terms (
  chain_id BIGINT NOT NULL,
  vault_id VARCHAR NOT NULL,
  request_hash VARCHAR NOT NULL,
  block_number BIGINT NOT NULL,
  deadline TIMESTAMP,
  solver_tip HUGEINT
);
`,
  },
];
