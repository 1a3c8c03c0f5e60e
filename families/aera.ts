// Aera v3: multi-strategy vaults with a provisioner (deposit and redeem requests solved by
// the curator), a fee calculator and hooks; the vault publishes its unit price (DESIGN §4.1).
import type { VaultFamily } from './types.js';

export const AERA_V3: VaultFamily = {
  type: 'aera_v3',
  ledger: 'aera',
  publishesUnitPrice: true,
  definitionFields: ['hooks', 'fee_calculator', 'provisioner', 'fees'],
  configDefinition: (e) => ({ provisioner: e.provisioner?.toLowerCase() ?? null, fee_calculator: e.fee_calculator?.toLowerCase() ?? null }),
  bridgesAcrossChains: true,
};
