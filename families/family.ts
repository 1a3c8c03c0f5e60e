// What vaultd knows about one vault family (a `vault_type`), behind one interface: the ledger the
// chain indexer reads, where the unit price comes from, the `/definition` fields and their wire
// schemas, what the configuration entry adds, and how the demo world simulates it.
import type { GenericSchema } from 'valibot';
import type { ConfigAddresses, Ledger } from './ledger.js';

export interface VaultFamily<T extends string = string> {
  type: T;
  /** the ledger the indexer reads; null for a family served by identity only (DESIGN §5.2: symbiotic), never indexed */
  ledger: Ledger | null;
  /** the unit price source: read on chain each hour and used as-is (DESIGN §4.1), else total_assets / total_supply */
  publishesUnitPrice: boolean;
  definition: FamilyDefinition;
  /** how the demo world simulates it; without, a demo vault of the family gets the plain defaults */
  demo?: FamilyDemo;
}

/** The wire primitives a definition's schema is made of (server/schemas/primitives.ts). */
export interface WireKit {
  address: GenericSchema<string>;
  unsignedIntegerString: GenericSchema<string>;
}

export interface FamilyDefinition {
  /** the OpenAPI component of its `/definition` body; families that share one list it alike (morpho v1 and v2) */
  component: string;
  /** the family fields of `/definition` (DESIGN §5.2), in order; a field the registry lacks is null */
  fields: readonly string[];
  /** each field's wire schema, keys in `fields` order (server/schemas/vaults.ts builds the variant) */
  wire(w: WireKit): Record<string, GenericSchema>;
  /** registry definition fields the configuration entry provides (lower-cased addresses) */
  fromConfig(entry: ConfigAddresses): Record<string, unknown>;
}

/** What the demo world's registry gives a deployment to derive its definition from. */
export interface DemoDefinitionInput {
  owner: string;
  strategy: string | null;
  /** a stable address per chain for `tag` (one fee calculator, one curator per chain) */
  perChain(tag: string): string;
  /** a stable address per deployment for `tag` (its hooks, its provisioner) */
  perVault(tag: string): string;
}

/** The demo's allocation builder (jobs/demo/buildAllocations.ts), drawing from the vault's stream. */
export interface DemoAllocationKit {
  symbol: string;
  uniform(lo: number, hi: number): number;
  /** an integer in [lo, hi] */
  int(lo: number, hi: number): number;
  /** a target asset on the vault's chain */
  asset(symbol: string, strategyType: string, extra: Record<string, unknown>): Record<string, unknown>;
  item(category: string, target: Record<string, unknown>, weight: number): void;
  /** `k` Morpho Blue lending markets of random collateral */
  markets(k: number): void;
  /** the idle numeraire (its weight was drawn first) */
  idle(): void;
  /** the group's hub on another chain, for a spoke's bridge flow; the spoke a hub returns to */
  hub: { name: string; address: string } | null;
  spoke: { name: string; address: string } | null;
}

export interface FamilyDemo {
  definition(d: DemoDefinitionInput): Record<string, unknown>;
  /** deposits and redeems mostly go through requests settled or refunded hours later (Aera's provisioner) */
  asyncRequests: boolean;
  /** deployments of one group on several chains bridge assets between them */
  bridgesAcrossChains: boolean;
  /** yearly yield range whatever the numeraire; else by numeraire, `stablecoinApy` for stablecoins */
  apy?: readonly [number, number];
  stablecoinApy?: readonly [number, number];
  allocations(a: DemoAllocationKit): void;
}
