// The /definition family fields of Morpho vaults (DESIGN §5.2): a curator, a fee (WAD, 1e18 =
// 100 %) and its recipient, a timelock. All read on chain; the config entry adds nothing.
import * as v from 'valibot';
import type { FamilyDefinition } from '../family.js';

export const MORPHO_DEFINITION: FamilyDefinition = {
  component: 'MorphoDefinition',
  fields: ['curator', 'fee_wad', 'fee_recipient', 'timelock_seconds'],
  wire: (w) => ({
    curator: v.nullable(w.address),
    /** string integer, 1e18 = 100 % */
    fee_wad: v.nullable(w.unsignedIntegerString),
    fee_recipient: v.nullable(w.address),
    timelock_seconds: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))),
  }),
  fromConfig: () => ({}),
};
