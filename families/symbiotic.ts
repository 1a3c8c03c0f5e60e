// Symbiotic restaking vaults: served by identity only (DESIGN §5.2) — no ERC-4626 ledger to
// index, no family fields.
import type { VaultFamily } from './types.js';

export const SYMBIOTIC: VaultFamily = {
  type: 'symbiotic',
  ledger: null,
  publishesUnitPrice: false,
  definitionFields: [],
  configDefinition: () => ({}),
  bridgesAcrossChains: false,
};
