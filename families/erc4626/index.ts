// Plain ERC-4626 vaults: no curator, no fee, no requests — deposits, withdrawals and share
// transfers, and a unit price of totalAssets / totalSupply. Not in the demo world (no demo hooks).
import type { VaultFamily } from '../family.js';
import { ERC4626_DEFINITION } from './definition.js';
import { ERC4626_LEDGER } from './ledger.js';

export const ERC4626: VaultFamily<'erc4626'> = {
  type: 'erc4626',
  ledger: ERC4626_LEDGER,
  publishesUnitPrice: false,
  definition: ERC4626_DEFINITION,
};
