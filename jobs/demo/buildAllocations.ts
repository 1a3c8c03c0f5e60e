// A vault's current allocations (DESIGN §5.2) for the demo: 2–5 targets per family (its demo
// hooks, families/*/demo.ts) whose amounts split the vault's TVL; Aera spokes show their bridge
// flow toward the group's hub.
import { familyOf } from '../../families/index.js';
import type { AllocationRow, VaultRow } from '../../model/rows.js';
import { createRng, deriveAddress } from './prng.js';

interface Item {
  category: string;
  target: Record<string, unknown>;
  weight: number;
}

const COLLATERAL: Record<string, readonly string[]> = {
  usd: ['wstETH', 'cbBTC', 'WBTC', 'weETH', 'sUSDe', 'PT-sUSDe'],
  eth: ['wstETH', 'weETH', 'rETH', 'cbETH', 'ezETH'],
  btc: ['LBTC', 'tBTC', 'solvBTC', 'PT-LBTC'],
};

/**
 * `tvl` is the vault's total assets at `asOf` in human units (a float is fine here: the seed
 * makes allocation amounts JSON numbers); `usd` the numeraire's spot price, or null if unpriced.
 * `hub` is the group's primary deployment when it is another chain's (Aera bridge flows).
 */
export function buildAllocations(
  seed: number,
  vault: VaultRow,
  asOf: number,
  tvl: number,
  usd: number | null,
  hub: VaultRow | null,
  spoke: VaultRow | null,
): AllocationRow[] {
  // its own stream per (vault, hour): never drawn from the vault's path stream
  const rng = createRng(seed, `alloc:${vault.vault_id}`, Math.floor(asOf / 3600));
  const sym = vault.numeraire_symbol;
  const family = /BTC/.test(sym) ? 'btc' : /ETH/.test(sym) ? 'eth' : 'usd';
  const asset = (symbol: string, strategy_type: string, extra: Record<string, unknown>): Record<string, unknown> => ({
    address: deriveAddress(0, `alloc-target:${strategy_type}:${symbol}`, vault.chain_id),
    chain_id: vault.chain_id,
    kind: 'asset',
    strategy_type,
    symbol,
    ...extra,
  });
  const idle: Item = {
    category: 'idle',
    target: { address: vault.numeraire_address, chain_id: vault.chain_id, kind: 'asset', strategy_type: 'idle', symbol: sym, name: `Idle ${sym}` },
    weight: rng.uniform(0.02, 0.08),
  };
  const items: Item[] = [];
  const markets = (k: number): void => {
    const pool = [...(COLLATERAL[family] ?? COLLATERAL.usd!)];
    for (let i = 0; i < k && pool.length > 0; i++) {
      const c = pool.splice(rng.int(0, pool.length - 1), 1)[0]!;
      const lltv = rng.pick(['77', '86', '91.5', '94.5']);
      items.push({
        category: 'lending',
        target: asset(`${c}/${sym}`, 'morpho_market', {
          name: `Morpho Blue ${c}/${sym} ${lltv}%`,
          protocol: { id: 'morpho-blue', name: 'Morpho Blue' },
        }),
        weight: rng.uniform(0.15, 1),
      });
    }
  };

  // the family says what its assets sit in; without demo hooks, all of it idle
  const demo = familyOf(vault.vault_type).demo;
  if (!demo) items.push(idle);
  else {
    demo.allocations({
      symbol: sym,
      uniform: (lo, hi) => rng.uniform(lo, hi),
      int: (lo, hi) => rng.int(lo, hi),
      asset,
      item: (category, target, weight) => items.push({ category, target, weight }),
      markets,
      idle: () => items.push(idle),
      hub,
      spoke,
    });
  }

  const total = items.reduce((s, x) => s + x.weight, 0);
  return items.map((x, i) => {
    const allocation = x.weight / total;
    const amount = tvl * allocation;
    return {
      vault_id: vault.vault_id,
      as_of: asOf,
      position: i,
      category: x.category,
      target: x.target,
      allocation,
      amount,
      amount_usd: usd === null ? null : amount * usd,
    };
  });
}
