// Morpho vaults (v1 MetaMorpho, v2): ERC-4626 ledgers whose unit price is totalAssets /
// totalSupply; a curator, a fee (WAD) and its recipient, a timelock.
import type { VaultFamily } from '../family.js';
import { MORPHO_DEFINITION } from './definition.js';
import { morphoDemo } from './demo.js';
import { MORPHO_LEDGER } from './ledger.js';

export const MORPHO_V1: VaultFamily<'morpho_v1'> = {
  type: 'morpho_v1',
  ledger: MORPHO_LEDGER,
  publishesUnitPrice: false,
  definition: MORPHO_DEFINITION,
  demo: morphoDemo(259_200),
};

export const MORPHO_V2: VaultFamily<'morpho_v2'> = { ...MORPHO_V1, type: 'morpho_v2', demo: morphoDemo(604_800) };
