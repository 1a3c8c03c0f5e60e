// The tables a published snapshot is built from. The store counts a write to any of them as
// "inputs changed" (store.ts), and the publish identity stamps them (publishIdentity.ts).

/** Registry and raw facts: everything ingest, prices and the demo write. */
export const RAW_AND_REGISTRY_TABLES = [
  'chains',
  'strategies',
  'vault_groups',
  'vaults',
  'tokens',
  'tvl_sources',
  'vault_snapshots',
  'vault_events',
  'prices',
  'allocations',
  'tvl_source_values',
  'request_terms',
] as const;

/** The tables a published snapshot is built from: registry and raw facts, and the per-chain ingest status. */
export const PUBLISH_INPUT_TABLES = [...RAW_AND_REGISTRY_TABLES, 'ingest_status'] as const;
