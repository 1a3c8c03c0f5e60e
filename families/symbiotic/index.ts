// Symbiotic restaking vaults: served by identity only (DESIGN §5.2) — no ERC-4626 ledger to
// index, no family fields.
import type { VaultFamily } from '../family.js';
import { SYMBIOTIC_DEMO } from './demo.js';

export const SYMBIOTIC: VaultFamily<'symbiotic'> = {
  type: 'symbiotic',
  ledger: null,
  publishesUnitPrice: false,
  definition: { component: 'SymbioticDefinition', fields: [], wire: () => ({}), fromConfig: () => ({}) },
  demo: SYMBIOTIC_DEMO,
};
