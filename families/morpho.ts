// Morpho vaults (v1 MetaMorpho, v2): ERC-4626 ledgers whose unit price is totalAssets /
// totalSupply; a curator, a fee (WAD) and its recipient, a timelock.
import type { VaultFamily } from './types.js';

const MORPHO_FIELDS = ['curator', 'fee_wad', 'fee_recipient', 'timelock_seconds'] as const;

export const MORPHO_V1: VaultFamily = {
  type: 'morpho_v1',
  ledger: 'morpho',
  publishesUnitPrice: false,
  definitionFields: MORPHO_FIELDS,
  configDefinition: () => ({}),
  bridgesAcrossChains: false,
};

export const MORPHO_V2: VaultFamily = { ...MORPHO_V1, type: 'morpho_v2' };
