// The vault families (issue #10: every `vault_type` switch lives here): one record per type,
// looked up by the indexer (jobs/chain), the demo simulator, the kernels (engine/series) and
// the definition builder (engine/metrics). Adding a family is one file and one line below.
import { VaultdError } from '../common/errors.js';
import { VAULT_TYPES, type VaultType } from '../model/rows.js';
import { AERA_V3 } from './aera.js';
import { MORPHO_V1, MORPHO_V2 } from './morpho.js';
import { SYMBIOTIC } from './symbiotic.js';
import type { VaultFamily } from './types.js';

export type { ConfigAddresses, Ledger, VaultFamily } from './types.js';

export const FAMILIES: Readonly<Record<VaultType, VaultFamily>> = {
  aera_v3: AERA_V3,
  morpho_v1: MORPHO_V1,
  morpho_v2: MORPHO_V2,
  symbiotic: SYMBIOTIC,
};

/** The family of a vault type; a type vaultd does not know is a program error (the config and the database check it first). */
export function familyOf(type: string): VaultFamily {
  const f = (FAMILIES as Record<string, VaultFamily | undefined>)[type];
  if (!f) throw new VaultdError('INTERNAL', `unknown vault_type "${type}" (known: ${VAULT_TYPES.join(', ')})`);
  return f;
}

/** The types whose hourly unit price is read on chain and used as-is (for SQL: `vault_type IN (…)`). */
export const PUBLISHED_PRICE_TYPES: readonly VaultType[] = VAULT_TYPES.filter((t) => FAMILIES[t].publishesUnitPrice);
