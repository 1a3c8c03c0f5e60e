// Symbiotic vaults in the demo world: an owner, restaked collateral, a modest yield.
import type { FamilyDemo } from '../family.js';

export const SYMBIOTIC_DEMO: FamilyDemo = {
  definition: (d) => ({ owner: d.owner }),
  asyncRequests: false,
  bridgesAcrossChains: false,
  // restaking pays the same modest range whatever the collateral
  apy: [0.02, 0.05],
  allocations(a) {
    a.item(
      'restaking',
      a.asset(a.symbol, 'restaking', { name: `Symbiotic ${a.symbol} collateral`, protocol: { id: 'symbiotic', name: 'Symbiotic' } }),
      a.uniform(0.85, 0.95),
    );
    a.idle();
  },
};
