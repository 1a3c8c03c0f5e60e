// Static facts the demo world is built from: the four chains (with block clocks) and the real
// ERC-20 numeraires per chain, each with the USD price model the simulator gives it.

export interface DemoChain {
  chain_id: number;
  slug: string;
  name: string;
  finality_blocks: number;
  /** block time in milliseconds (Arbitrum's is below a second) */
  blockMs: number;
  /** block number whose timestamp is CLOCK_ANCHOR_TS (realistic magnitude for 2024) */
  anchorBlock: number;
}

/** 2024-01-01T00:00:00Z: on the hour and a multiple of every block time, so no block spans an hour. */
export const CLOCK_ANCHOR_TS = 1_704_067_200;

export const DEMO_CHAINS: readonly DemoChain[] = [
  // mainnet: 12 s slots; 12 blocks is the usual "safe" depth for indexers that don't wait for finality
  { chain_id: 1, slug: 'ethereum', name: 'Ethereum', finality_blocks: 12, blockMs: 12_000, anchorBlock: 18_908_900 },
  // OP-stack L2s: 2 s blocks; 30 blocks = one minute behind the unsafe head
  { chain_id: 8453, slug: 'base', name: 'Base', finality_blocks: 30, blockMs: 2_000, anchorBlock: 8_850_000 },
  // ~0.25 s blocks: 60 blocks is ~15 s behind the sequencer head
  { chain_id: 42161, slug: 'arbitrum', name: 'Arbitrum One', finality_blocks: 60, blockMs: 250, anchorBlock: 166_000_000 },
  { chain_id: 10, slug: 'optimism', name: 'OP Mainnet', finality_blocks: 30, blockMs: 2_000, anchorBlock: 114_400_000 },
];

/**
 * How a token's USD price moves: stablecoins near their peg, ETH/BTC wrappers on a shared
 * ETH or BTC path, `none` = no price feed at all (the unpriced numeraire of DESIGN §7).
 */
export type PriceModel = 'usd' | 'eur' | 'eth' | 'wsteth' | 'btc' | 'none';

export interface DemoToken {
  symbol: string;
  decimals: number;
  price: PriceModel;
  /** rough USD value of one token, used only to size deposits */
  refUsd: number;
  /** lowercase address per chain id */
  addresses: Readonly<Record<number, string>>;
}

export const DEMO_TOKENS: readonly DemoToken[] = [
  {
    symbol: 'USDC',
    decimals: 6,
    price: 'usd',
    refUsd: 1,
    addresses: {
      1: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
      8453: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
      42161: '0xaf88d065e77c8cc2239327c5edb3a432268e5831',
      10: '0x0b2c639c533813f4aa9d7837caf62653d097ff85',
    },
  },
  {
    symbol: 'USDT',
    decimals: 6,
    price: 'usd',
    refUsd: 1,
    addresses: { 1: '0xdac17f958d2ee523a2206206994597c13d831ec7', 10: '0x94b008aa00579c1307b0ef2c499ad98a8ce58e58' },
  },
  {
    symbol: 'DAI',
    decimals: 18,
    price: 'usd',
    refUsd: 1,
    addresses: {
      1: '0x6b175474e89094c44da98b954eedeac495271d0f',
      42161: '0xda10009cbd5d07dd0cecc66161fc93d7c9000da1',
      10: '0xda10009cbd5d07dd0cecc66161fc93d7c9000da1',
    },
  },
  {
    symbol: 'EURC',
    decimals: 6,
    price: 'eur',
    refUsd: 1.09,
    addresses: { 1: '0x1abaea1f7c830bd89acc67ec4af516284b1bc33c', 8453: '0x60a3e35cc302bfa44cb288bc5a4f316fdb1adb42' },
  },
  {
    symbol: 'WETH',
    decimals: 18,
    price: 'eth',
    refUsd: 3200,
    addresses: {
      1: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
      8453: '0x4200000000000000000000000000000000000006',
      42161: '0x82af49447d8a07e3bd95bd0d56f35241523fbab1',
      10: '0x4200000000000000000000000000000000000006',
    },
  },
  {
    symbol: 'wstETH',
    decimals: 18,
    price: 'wsteth',
    refUsd: 3800,
    addresses: {
      1: '0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0',
      8453: '0xc1cba3fcea344f92d9239c08c0568f6f2f0ee452',
      42161: '0x5979d7b546e38e414f7e9822514be443a4800529',
      10: '0x1f32b1c2345538c0c6f582fcb022739c4a194ebb',
    },
  },
  {
    symbol: 'cbBTC',
    decimals: 8,
    price: 'btc',
    refUsd: 85_000,
    addresses: {
      1: '0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf',
      8453: '0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf',
      42161: '0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf',
    },
  },
  {
    symbol: 'WBTC',
    decimals: 8,
    price: 'btc',
    refUsd: 85_000,
    addresses: {
      1: '0x2260fac5e5542a773aa44fbcfedf7c193bc2c599',
      42161: '0x2f2a2543b76a4166549f7aab2e75bef0aefc5b0f',
      10: '0x68f180fcce6836688e9084f035309e29bf0a2095',
    },
  },
  {
    symbol: 'LBTC',
    decimals: 8,
    price: 'btc',
    refUsd: 85_000,
    addresses: { 1: '0x8236a87084f8b84306f72007f36f2618a5634494', 8453: '0xecac9c5f704e954931349da37f60e39f515c11c1' },
  },
  {
    // Bitso's Mexican-peso stablecoin (Juno MXNB Prime): no USD feed, on purpose
    symbol: 'MXNB',
    decimals: 6,
    price: 'none',
    refUsd: 0.055,
    addresses: { 8453: '0xf197ffc28c23e0309b5559e7a166f2c6164c80aa' },
  },
];

/** The priced token that loses ~3 days of prices (DESIGN §4.1's 48 h staleness rule). */
export const PRICE_GAP = { chain_id: 1, symbol: 'cbBTC', offsetDays: 150, hours: 72 } as const;

export function demoToken(symbol: string): DemoToken {
  const t = DEMO_TOKENS.find((x) => x.symbol === symbol);
  if (!t) throw new RangeError(`unknown demo token ${JSON.stringify(symbol)}`);
  return t;
}

export function demoChain(chainId: number): DemoChain | undefined {
  return DEMO_CHAINS.find((c) => c.chain_id === chainId);
}

/** The catalog entry for a numeraire (chain, address), if it is one of ours. */
export function tokenByAddress(chainId: number, address: string): DemoToken | undefined {
  const a = address.toLowerCase();
  return DEMO_TOKENS.find((t) => t.addresses[chainId] === a);
}
