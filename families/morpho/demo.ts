// Morpho vaults in the demo world: a Gauntlet curator, a fee by strategy, lending markets.
import type { FamilyDemo } from '../family.js';

/** `timelockSeconds`: v1 vaults wait 3 days, v2 a week. */
export function morphoDemo(timelockSeconds: number): FamilyDemo {
  return {
    definition: (d) => ({
      owner: d.owner,
      curator: d.perChain('gauntlet-curator'),
      // 1e18 = 100 %: prime vaults charge 10 %, others 15 %
      fee_wad: d.strategy === 'prime-lending' ? '100000000000000000' : '150000000000000000',
      fee_recipient: d.perChain('gauntlet-fee-recipient'),
      timelock_seconds: timelockSeconds,
    }),
    asyncRequests: false,
    bridgesAcrossChains: false,
    allocations(a) {
      a.markets(a.int(2, 4));
      a.idle();
    },
  };
}
