// Aera vaults in the demo world: async requests through a provisioner, a published unit price,
// multi-strategy allocations, and deployments of one group bridging between chains.
import type { FamilyDemo } from '../family.js';

export const AERA_DEMO: FamilyDemo = {
  definition: (d) => ({
    owner: d.owner,
    hooks: d.perVault('aera-hooks'),
    fee_calculator: d.perChain('aera-price-fee-calculator'),
    provisioner: d.perVault('aera-provisioner'),
    fees: { tvl_fee_bps: d.strategy === 'btc-yield' ? 100 : 50, performance_fee_bps: 1000 },
  }),
  asyncRequests: true,
  bridgesAcrossChains: true,
  // multi-strategy stablecoin vaults pay more than single-market lending
  stablecoinApy: [0.06, 0.15],
  allocations(a) {
    const sym = a.symbol;
    a.item('lending', a.asset(`a${sym}`, 'lending', { name: `Aave v3 ${sym}`, protocol: { id: 'aave-v3', name: 'Aave v3' } }), a.uniform(0.2, 0.6));
    a.item('liquidity', a.asset(`${sym}-LP`, 'liquidity', { name: `Curve ${sym} pool`, protocol: { id: 'curve', name: 'Curve' } }), a.uniform(0.1, 0.3));
    a.markets(1);
    if (a.hub) {
      const flow = { kind: 'pending_deposit', target_vault_address: a.hub.address };
      a.item('bridge', a.asset(sym, 'bridge', { name: `${sym} bridging to ${a.hub.name}`, flow }), a.uniform(0.02, 0.1));
    } else if (a.spoke) {
      const flow = { kind: 'pending_redemption', target_vault_address: a.spoke.address };
      a.item('bridge', a.asset(sym, 'bridge', { name: `${sym} returning to ${a.spoke.name}`, flow }), a.uniform(0.01, 0.05));
    }
    a.idle();
  },
};
