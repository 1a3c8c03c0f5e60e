// The /definition family field of a plain ERC-4626 vault (DESIGN §5.2): its asset, read on chain.
import * as v from 'valibot';
import type { FamilyDefinition } from '../family.js';

export const ERC4626_DEFINITION: FamilyDefinition = {
  component: 'Erc4626Definition',
  fields: ['asset'],
  wire: (w) => ({ asset: v.nullable(w.address) }),
  fromConfig: () => ({}),
};
