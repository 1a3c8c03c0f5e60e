// The vault families (issue #33): one folder each, one line each in FAMILY_TABLE. Everything
// that differs between vault types — the ledger the indexer reads, the unit-price source, the
// /definition fields and their wire schemas, the demo hooks — is a family's; the list of types
// (the config's picklist, the OpenAPI enum and variants, the client types) derives from the table.
import { VaultdError } from '../common/errors.js';
import { AERA_V3 } from './aera/index.js';
import { ERC4626 } from './erc4626/index.js';
import type { VaultFamily } from './family.js';
import type { Ledger } from './ledger.js';
import { MORPHO_V1, MORPHO_V2 } from './morpho/index.js';
import { SYMBIOTIC } from './symbiotic/index.js';

export type { DemoAllocationKit, DemoDefinitionInput, FamilyDefinition, FamilyDemo, VaultFamily, WireKit } from './family.js';
export type * from './ledger.js';

/** Every family, in the order the OpenAPI document and the docs list them. */
export const FAMILY_TABLE = [AERA_V3, MORPHO_V1, MORPHO_V2, SYMBIOTIC, ERC4626] as const;

export type VaultType = (typeof FAMILY_TABLE)[number]['type'];

/** The vault types vaultd knows, for the config's picklist (common/config.ts) and the wire enum. */
export const VAULT_TYPES = FAMILY_TABLE.map((f) => f.type) as [VaultType, ...VaultType[]];

const BY_TYPE: ReadonlyMap<string, VaultFamily> = new Map(FAMILY_TABLE.map((f) => [f.type, f]));

/** The family of a vault type; a type vaultd does not know is a program error (the config and the database's writers check it first). */
export function familyOf(type: string): VaultFamily {
  const f = BY_TYPE.get(type);
  if (!f) throw new VaultdError('INTERNAL', `unknown vault_type "${type}" (known: ${VAULT_TYPES.join(', ')})`);
  return f;
}

/** The types whose hourly unit price is read on chain and used as-is (for SQL: `vault_type IN (…)`). */
export const PUBLISHED_PRICE_TYPES: readonly VaultType[] = FAMILY_TABLE.filter((f) => f.publishesUnitPrice).map((f) => f.type);

/** The distinct ledgers of the table (families may share one: morpho v1 and v2). */
export const LEDGERS: readonly Ledger[] = [...new Set(FAMILY_TABLE.flatMap((f) => (f.ledger ? [f.ledger] : [])))];
