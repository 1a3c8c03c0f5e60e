// What vaultd knows about one vault family (a `vault_type`), in one place.
import type { VaultType } from '../model/rows.js';

/** How the chain indexer reads a family's contracts (ABIs, events, hourly reads). */
export type Ledger = 'morpho' | 'aera';

/** The configuration entry's optional family addresses (common/config.ts `registry.vaults[]`). */
export interface ConfigAddresses {
  provisioner?: string | null;
  fee_calculator?: string | null;
}

export interface VaultFamily {
  type: VaultType;
  /**
   * The ERC-4626-style ledger the indexer reads: Morpho vaults (Deposit/Withdraw, totalAssets
   * and totalSupply), Aera v3 (provisioner requests, a published unit price); null for a
   * family served by identity only (DESIGN §5.2: symbiotic), never indexed.
   */
  ledger: Ledger | null;
  /** whether the on-chain unit price is read each hour and used as-is (DESIGN §4.1) */
  publishesUnitPrice: boolean;
  /** the family fields of `/definition` (DESIGN §5.2), in order; a field the registry lacks is null */
  definitionFields: readonly string[];
  /** registry definition fields the configuration entry provides (lower-cased addresses) */
  configDefinition(entry: ConfigAddresses): Record<string, unknown>;
  /** whether deployments of one group on several chains bridge assets between them (demo world) */
  bridgesAcrossChains: boolean;
}
