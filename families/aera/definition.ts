// The /definition family fields of Aera v3 vaults (DESIGN §5.2): hooks, the price-and-fee
// calculator, the provisioner, the fees. The config entry names the provisioner and the
// calculator (which the indexer reads); the fees are read from the calculator.
import * as v from 'valibot';
import type { FamilyDefinition } from '../family.js';

const Bps = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10_000));

export const AERA_DEFINITION: FamilyDefinition = {
  component: 'AeraV3Definition',
  fields: ['hooks', 'fee_calculator', 'provisioner', 'fees'],
  wire: (w) => ({
    hooks: v.nullable(w.address),
    fee_calculator: v.nullable(w.address),
    provisioner: v.nullable(w.address),
    fees: v.nullable(v.strictObject({ tvl_fee_bps: Bps, performance_fee_bps: Bps })),
  }),
  fromConfig: (e) => ({ provisioner: e.provisioner?.toLowerCase() ?? null, fee_calculator: e.fee_calculator?.toLowerCase() ?? null }),
};
