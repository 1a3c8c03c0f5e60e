// The curated default registry of the demo world: real deployments of the reference manifest
// (names, chains, addresses, numeraires) plus two invented Symbiotic restaking vaults.
import type { VaultType } from '../../families/index.js';
import type { Visibility } from '../../model/rows.js';

export interface CuratedStrategy {
  id: string;
  name: string;
  short_description: string;
  description: string;
}

export interface CuratedGroup {
  key: string;
  name: string;
  is_stable: boolean;
  featured_rank: number | null;
  short_description: string;
  description: string;
}

/** When a deployment was listed: a fraction of the history from its start, or days before `now`. */
export type ListedAt = { frac: number } | { daysBeforeNow: number };

export interface CuratedDeployment {
  /** group key, or null for a deployment not associated with a logical vault */
  group: string | null;
  chain_id: number;
  /** the manifest's address; null = invented, derived from `symbol` and chain */
  address: string | null;
  vault_type: VaultType;
  token: string;
  name: string;
  symbol: string;
  strategy: string | null;
  visibility: Visibility;
  primary: boolean;
  listed: ListedAt;
}

export const CURATED_STRATEGIES: readonly CuratedStrategy[] = [
  {
    id: 'prime-lending',
    name: 'Prime Lending',
    short_description: 'Blue-chip collateral, conservative loan-to-value.',
    description: 'Lends to overcollateralized markets with blue-chip collateral and conservative LLTVs.',
  },
  {
    id: 'core-lending',
    name: 'Core Lending',
    short_description: 'Balanced risk across major lending markets.',
    description: 'Balances yield and risk across liquid collateral markets, rebalanced by the curator.',
  },
  {
    id: 'multi-strategy-stablecoin',
    name: 'Multi-strategy Stablecoin Yield',
    short_description: 'Diversified stablecoin yield across protocols and chains.',
    description: 'Allocates stablecoins across lending, liquidity and basis strategies on several chains.',
  },
  {
    id: 'multichain-lending',
    name: 'Multi-chain Stablecoin Lending',
    short_description: 'Stablecoin lending on the best-paying chain.',
    description: 'Moves stablecoin liquidity between lending venues on Ethereum and its rollups.',
  },
  {
    id: 'btc-yield',
    name: 'BTC Carry Trade Yield',
    short_description: 'BTC-denominated carry.',
    description: 'Earns BTC-denominated yield by lending BTC and running hedged carry positions.',
  },
  {
    id: 'eth-yield',
    name: 'WETH Yield',
    short_description: 'ETH-denominated yield.',
    description: 'Combines staking, lending and liquidity provision for ETH-denominated returns.',
  },
  {
    id: 'restaking',
    name: 'Restaking',
    short_description: 'Shared security rewards on staked assets.',
    description: 'Delegates restaked collateral to networks secured through Symbiotic.',
  },
];

export const CURATED_GROUPS: readonly CuratedGroup[] = [
  {
    key: 'gauntlet-usd-alpha',
    name: 'Gauntlet USD Alpha',
    is_stable: true,
    featured_rank: 1,
    short_description: 'Multi-strategy USDC yield on four chains.',
    description: 'Gauntlet USD Alpha allocates USDC across lending, liquidity and basis trades, deposits bridged to the Base hub.',
  },
  {
    key: 'gauntlet-usdc-prime',
    name: 'Gauntlet USDC Prime',
    is_stable: true,
    featured_rank: 2,
    short_description: 'USDC lent against blue-chip collateral.',
    description: 'A Morpho vault lending USDC to the most liquid, overcollateralized markets.',
  },
  {
    key: 'gauntlet-usdc-prime-v2',
    name: 'Gauntlet USDC Prime v2',
    is_stable: true,
    featured_rank: null,
    short_description: 'USDC Prime on Morpho Vaults v2.',
    description: 'The Prime Lending strategy on Morpho Vaults v2 adapters.',
  },
  {
    key: 'juno-mxnb-prime',
    name: 'Juno MXNB Prime',
    is_stable: true,
    featured_rank: null,
    short_description: 'Peso stablecoin lending.',
    description: 'Lends Bitso MXNB to prime markets on Base.',
  },
  {
    key: 'gauntlet-wsteth-restaking',
    name: 'Gauntlet wstETH Restaking',
    is_stable: false,
    featured_rank: null,
    short_description: 'wstETH restaked through Symbiotic.',
    description: 'Restakes wstETH through Symbiotic, delegated by Gauntlet to vetted networks.',
  },
  {
    key: 'gauntlet-lend',
    name: 'Gauntlet Lend',
    is_stable: true,
    featured_rank: 4,
    short_description: 'Stablecoin lending across chains.',
    description: 'Gauntlet Lend routes USDC to the best risk-adjusted lending markets across chains.',
  },
  {
    key: 'gauntlet-usdt-prime',
    name: 'Gauntlet USDT Prime',
    is_stable: true,
    featured_rank: null,
    short_description: 'USDT lent against blue-chip collateral.',
    description: 'Retired: USDT Prime lending on Ethereum.',
  },
  {
    key: 'gauntlet-lbtc-restaking',
    name: 'Gauntlet LBTC Restaking',
    is_stable: false,
    featured_rank: null,
    short_description: 'LBTC restaked through Symbiotic.',
    description: 'Restakes Lombard LBTC through Symbiotic.',
  },
  {
    key: 'gauntlet-btc-yield',
    name: 'Gauntlet BTC Yield',
    is_stable: false,
    featured_rank: 3,
    short_description: 'BTC carry, paid in BTC.',
    description: 'Earns BTC-denominated carry on cbBTC with hedged positions.',
  },
  {
    key: 'gauntlet-weth-prime',
    name: 'Gauntlet WETH Prime',
    is_stable: false,
    featured_rank: null,
    short_description: 'WETH lent against liquid staking collateral.',
    description: 'A Morpho vault lending WETH against liquid staking tokens.',
  },
  {
    key: 'kasteth',
    name: 'KastETH',
    is_stable: false,
    featured_rank: null,
    short_description: 'ETH yield for Kast.',
    description: 'ETH-denominated yield vault managed by Gauntlet for Kast.',
  },
  {
    key: 'gauntlet-cbbtc-balanced',
    name: 'Gauntlet cbBTC Balanced',
    is_stable: false,
    featured_rank: null,
    short_description: 'cbBTC lending, balanced risk.',
    description: 'Lends cbBTC across balanced-risk Morpho markets.',
  },
  {
    key: 'gauntlet-weth-balanced-v2',
    name: 'Gauntlet WETH Balanced v2',
    is_stable: false,
    featured_rank: null,
    short_description: 'WETH lending on Morpho Vaults v2.',
    description: 'Balanced WETH lending on Morpho Vaults v2.',
  },
];

/**
 * In priority order: the first 16 alone cover every property DESIGN §7 asks of the default
 * world (four families, hidden, disabled, no group, no strategy, unpriced, young, multi-chain
 * groups), so `--vaults 16` keeps them; the rest fill out the groups.
 */
export const CURATED_DEPLOYMENTS: readonly CuratedDeployment[] = [
  d(
    'gauntlet-usd-alpha',
    8453,
    '0x000000000001CdB57E58Fa75Fe420a0f4D6640D5',
    'aera_v3',
    'USDC',
    'Gauntlet USD Alpha',
    'gtUSDa',
    'multi-strategy-stablecoin',
    'visible',
    true,
    { frac: 0 },
  ),
  d(
    'gauntlet-usd-alpha',
    1,
    '0x3bd9248048df95db4fbd748c6cd99c1baa40bad0',
    'aera_v3',
    'USDC',
    'Gauntlet USD Alpha',
    'gtUSDa',
    'multi-strategy-stablecoin',
    'visible',
    false,
    { frac: 0.07 },
  ),
  d(
    'gauntlet-usdc-prime',
    1,
    '0xdd0f28e19C1780eb6396170735D45153D261490d',
    'morpho_v1',
    'USDC',
    'Gauntlet USDC Prime',
    'gtUSDCp',
    'prime-lending',
    'visible',
    true,
    { frac: 0 },
  ),
  d(
    'gauntlet-usdc-prime',
    8453,
    '0xeE8F4eC5672F09119b96Ab6fB59C27E1b7e44b61',
    'morpho_v1',
    'USDC',
    'Gauntlet USDC Prime',
    'gtUSDCp',
    'prime-lending',
    'visible',
    false,
    { frac: 0 },
  ),
  d(
    'gauntlet-usdc-prime-v2',
    1,
    '0x8c106EEDAd96553e64287A5A6839c3Cc78afA3D0',
    'morpho_v2',
    'USDC',
    'Gauntlet USDC Prime v2',
    'gtUSDCp2',
    'prime-lending',
    'visible',
    true,
    { frac: 0.62 },
  ),
  // the young deployment: APY windows still warming up (DESIGN §4.2)
  d(
    'gauntlet-usdc-prime-v2',
    42161,
    '0x610D151aE40662AE148cdBaaE1Ea5904b6AFAE78',
    'morpho_v2',
    'USDC',
    'Gauntlet USDC Prime v2',
    'gtUSDCp2',
    'prime-lending',
    'visible',
    false,
    { daysBeforeNow: 45 },
  ),
  // numeraire without a USD price: TVL and USD legs stay null
  d(
    'juno-mxnb-prime',
    8453,
    '0x08cc279532f159BdB450eBc0bAf6562f585Ded58',
    'morpho_v2',
    'MXNB',
    'Juno MXNB Prime',
    'junoMXNB',
    'prime-lending',
    'visible',
    true,
    { frac: 0.76 },
  ),
  d('gauntlet-wsteth-restaking', 1, null, 'symbiotic', 'wstETH', 'Gauntlet wstETH Restaking', 'gtrwstETH', 'restaking', 'visible', true, { frac: 0.35 }),
  d('gauntlet-lend', 8453, '0x2Bb2e3c0a970E74D219bADeC5d05E2D4cf456Ac8', 'aera_v3', 'USDC', 'Gauntlet Lend', 'gtLEND', 'multichain-lending', 'visible', true, {
    frac: 0.14,
  }),
  d('gauntlet-lend', 10, '0x79A296131A8cAE82613AA16A158Ae146742Ac592', 'aera_v3', 'USDC', 'Gauntlet Lend', 'gtLEND', 'multichain-lending', 'hidden', false, {
    frac: 0.36,
  }),
  d(
    'gauntlet-usdt-prime',
    1,
    '0x8CB3649114051cA5119141a34C200D65dc0Faa73',
    'morpho_v1',
    'USDT',
    'Gauntlet USDT Prime',
    'gtUSDTp',
    'prime-lending',
    'disabled',
    true,
    { frac: 0 },
  ),
  d(null, 8453, '0x616a4E1db48e22028f6bbf20444Cd3b8e3273738', 'morpho_v1', 'USDC', 'Seamless USDC', 'smUSDC', 'core-lending', 'visible', false, { frac: 0.05 }),
  d('gauntlet-lbtc-restaking', 1, null, 'symbiotic', 'LBTC', 'Gauntlet LBTC Restaking', 'gtrLBTC', null, 'visible', true, { frac: 0.7 }),
  d('gauntlet-btc-yield', 1, '0xefF0AE5b39271b33f448cD408b51DC8aA72a672b', 'aera_v3', 'cbBTC', 'Gauntlet BTC Yield', 'gtBTC', 'btc-yield', 'visible', true, {
    frac: 0.02,
  }),
  d(
    'gauntlet-weth-prime',
    1,
    '0x2371e134e3455e0593363cBF89d3b6cf53740618',
    'morpho_v1',
    'WETH',
    'Gauntlet WETH Prime',
    'gtWETHp',
    'prime-lending',
    'visible',
    true,
    { frac: 0 },
  ),
  d('kasteth', 1, '0x6e4713B21E2879642a83d1c4dC0daCaa7ec6dB63', 'aera_v3', 'WETH', 'KastETH', 'kastETH', 'eth-yield', 'visible', true, { frac: 0.57 }),
  d(
    'gauntlet-usd-alpha',
    42161,
    '0x000000001DC8bd45d7E7829fb1c969cbe4D0D1eC',
    'aera_v3',
    'USDC',
    'Gauntlet USD Alpha',
    'gtUSDa',
    'multi-strategy-stablecoin',
    'visible',
    false,
    { frac: 0.29 },
  ),
  d(
    'gauntlet-usd-alpha',
    10,
    '0x000000001DC8bd45d7E7829fb1c969cbe4D0D1eC',
    'aera_v3',
    'USDC',
    'Gauntlet USD Alpha',
    'gtUSDa',
    'multi-strategy-stablecoin',
    'visible',
    false,
    { frac: 0.48 },
  ),
  d('gauntlet-lend', 1, '0xF008043d4a0301E7dC45A92FFf77e3af1F975Ce5', 'aera_v3', 'USDC', 'Gauntlet Lend', 'gtLEND', 'multichain-lending', 'visible', false, {
    frac: 0.21,
  }),
  d(
    'gauntlet-usdc-prime',
    42161,
    '0x7c574174DA4b2be3f705c6244B4BfA0815a8B3Ed',
    'morpho_v1',
    'USDC',
    'Gauntlet USDC Prime',
    'gtUSDCp',
    'prime-lending',
    'visible',
    false,
    { frac: 0.24 },
  ),
  d(
    'gauntlet-cbbtc-balanced',
    1,
    '0xF587f2e8AfF7D76618d3B6B4626621860FbD54e3',
    'morpho_v1',
    'cbBTC',
    'Gauntlet cbBTC Balanced',
    'gtcbBTCc',
    'core-lending',
    'visible',
    true,
    { frac: 0.01 },
  ),
  d(
    'gauntlet-cbbtc-balanced',
    8453,
    '0x6770216aC60F634483Ec073cBABC4011c94307Cb',
    'morpho_v1',
    'cbBTC',
    'Gauntlet cbBTC Balanced',
    'gtcbBTCc',
    'core-lending',
    'visible',
    false,
    { frac: 0.11 },
  ),
  d(
    'gauntlet-usdc-prime-v2',
    8453,
    '0x050cE30b927Da55177A4914EC73480238BAD56f0',
    'morpho_v2',
    'USDC',
    'Gauntlet USDC Prime v2',
    'gtUSDCp2',
    'prime-lending',
    'visible',
    false,
    { frac: 0.71 },
  ),
  d(
    'gauntlet-weth-balanced-v2',
    1,
    '0x5f342382D5F77F0f99E8f26161E689df6c7Cded3',
    'morpho_v2',
    'WETH',
    'Gauntlet WETH Balanced v2',
    'gtWETHc2',
    'core-lending',
    'visible',
    true,
    { frac: 0.55 },
  ),
  d(
    'gauntlet-weth-balanced-v2',
    8453,
    '0xFeFeC33668E22677c4762d0853d56245a800ff08',
    'morpho_v2',
    'WETH',
    'Gauntlet WETH Balanced v2',
    'gtWETHc2',
    'core-lending',
    'visible',
    false,
    { frac: 0.65 },
  ),
];

/** Shapes the scale worlds (`--vaults N`) cycle through beyond the curated set. */
export interface ScaleTemplate {
  vault_type: VaultType;
  token: string;
  name: string;
  symbol: string;
  strategy: string;
  is_stable: boolean;
}

export const SCALE_TEMPLATES: readonly ScaleTemplate[] = [
  { vault_type: 'morpho_v1', token: 'USDC', name: 'Gauntlet USDC Core', symbol: 'gtUSDCc', strategy: 'core-lending', is_stable: true },
  { vault_type: 'aera_v3', token: 'USDC', name: 'Gauntlet USD Alpha', symbol: 'gtUSDa', strategy: 'multi-strategy-stablecoin', is_stable: true },
  { vault_type: 'morpho_v2', token: 'USDC', name: 'Gauntlet USDC Prime v2', symbol: 'gtUSDCp2', strategy: 'prime-lending', is_stable: true },
  { vault_type: 'morpho_v1', token: 'WETH', name: 'Gauntlet WETH Prime', symbol: 'gtWETHp', strategy: 'prime-lending', is_stable: false },
  { vault_type: 'aera_v3', token: 'USDC', name: 'Gauntlet Lend', symbol: 'gtLEND', strategy: 'multichain-lending', is_stable: true },
  { vault_type: 'morpho_v1', token: 'cbBTC', name: 'Gauntlet cbBTC Balanced', symbol: 'gtcbBTCc', strategy: 'core-lending', is_stable: false },
  { vault_type: 'morpho_v2', token: 'WETH', name: 'Gauntlet WETH Balanced v2', symbol: 'gtWETHc2', strategy: 'core-lending', is_stable: false },
  { vault_type: 'symbiotic', token: 'wstETH', name: 'Gauntlet wstETH Restaking', symbol: 'gtrwstETH', strategy: 'restaking', is_stable: false },
  { vault_type: 'aera_v3', token: 'WETH', name: 'Gauntlet ETH Yield', symbol: 'gtETHy', strategy: 'eth-yield', is_stable: false },
  { vault_type: 'morpho_v1', token: 'USDT', name: 'Gauntlet USDT Prime', symbol: 'gtUSDTp', strategy: 'prime-lending', is_stable: true },
  { vault_type: 'morpho_v1', token: 'DAI', name: 'Gauntlet DAI Core', symbol: 'gtDAIc', strategy: 'core-lending', is_stable: true },
  { vault_type: 'aera_v3', token: 'cbBTC', name: 'Gauntlet BTC Yield', symbol: 'gtBTC', strategy: 'btc-yield', is_stable: false },
  { vault_type: 'morpho_v1', token: 'EURC', name: 'Gauntlet EURC Balanced', symbol: 'gtEURCc', strategy: 'core-lending', is_stable: true },
  { vault_type: 'morpho_v2', token: 'WBTC', name: 'Gauntlet WBTC Balanced v2', symbol: 'gtWBTCc2', strategy: 'core-lending', is_stable: false },
  { vault_type: 'symbiotic', token: 'LBTC', name: 'Gauntlet LBTC Restaking', symbol: 'gtrLBTC', strategy: 'restaking', is_stable: false },
];

function d(
  group: string | null,
  chain_id: number,
  address: string | null,
  vault_type: VaultType,
  token: string,
  name: string,
  symbol: string,
  strategy: string | null,
  visibility: Visibility,
  primary: boolean,
  listed: ListedAt,
): CuratedDeployment {
  return { group, chain_id, address, vault_type, token, name, symbol, strategy, visibility, primary, listed };
}
