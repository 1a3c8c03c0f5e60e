// Aera v3: multi-strategy vaults with a provisioner (deposit and redeem requests solved by
// the curator), a fee calculator and hooks; the vault publishes its unit price (DESIGN §4.1).
import type { VaultFamily } from '../family.js';
import { AERA_DEFINITION } from './definition.js';
import { AERA_DEMO } from './demo.js';
import { AERA_LEDGER } from './ledger.js';

export const AERA_V3: VaultFamily<'aera_v3'> = {
  type: 'aera_v3',
  ledger: AERA_LEDGER,
  publishesUnitPrice: true,
  definition: AERA_DEFINITION,
  demo: AERA_DEMO,
};
