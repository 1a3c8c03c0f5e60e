// Chains for people: a name for every chain id (the API's own names from /v1/tvl's breakdown
// first, then a small built-in table of well-known chains), the slug the featured cards use,
// a colour and letters for the mark, and links to the chain's block explorer. A chain nobody
// knows shows its id and links nowhere. Pure: the mark itself is drawn in dom.ts.

export interface ChainInfo {
  id: number;
  name: string;
  /** the slug of featured cards' `chains` */
  slug: string;
  /** block explorer origin, without a trailing slash; null: no link */
  explorer: string | null;
  /** mark colour and the letters on it */
  color: string;
  letters: string;
}

/** Well-known EVM chains (chain id → name, block explorer). */
export const KNOWN_CHAINS: readonly ChainInfo[] = [
  { id: 1, name: 'Ethereum', slug: 'ethereum', explorer: 'https://etherscan.io', color: '#4c5fd5', letters: 'E' },
  { id: 10, name: 'OP Mainnet', slug: 'optimism', explorer: 'https://optimistic.etherscan.io', color: '#d0021b', letters: 'OP' },
  { id: 56, name: 'BNB Chain', slug: 'bsc', explorer: 'https://bscscan.com', color: '#8a6500', letters: 'B' },
  { id: 100, name: 'Gnosis', slug: 'gnosis', explorer: 'https://gnosisscan.io', color: '#04795b', letters: 'G' },
  { id: 130, name: 'Unichain', slug: 'unichain', explorer: 'https://uniscan.xyz', color: '#c8007a', letters: 'U' },
  { id: 137, name: 'Polygon', slug: 'polygon', explorer: 'https://polygonscan.com', color: '#7b3fe4', letters: 'P' },
  { id: 146, name: 'Sonic', slug: 'sonic', explorer: 'https://sonicscan.org', color: '#1f2937', letters: 'S' },
  { id: 999, name: 'HyperEVM', slug: 'hyperevm', explorer: 'https://hyperevmscan.io', color: '#0b7a6f', letters: 'H' },
  { id: 5000, name: 'Mantle', slug: 'mantle', explorer: 'https://mantlescan.xyz', color: '#1f2937', letters: 'M' },
  { id: 8453, name: 'Base', slug: 'base', explorer: 'https://basescan.org', color: '#0052ff', letters: 'B' },
  { id: 42161, name: 'Arbitrum One', slug: 'arbitrum', explorer: 'https://arbiscan.io', color: '#1b6fb5', letters: 'A' },
  { id: 43114, name: 'Avalanche', slug: 'avalanche', explorer: 'https://snowtrace.io', color: '#c62828', letters: 'AV' },
  { id: 59144, name: 'Linea', slug: 'linea', explorer: 'https://lineascan.build', color: '#1f2937', letters: 'L' },
  { id: 80094, name: 'Berachain', slug: 'berachain', explorer: 'https://berascan.com', color: '#8a4b00', letters: 'BE' },
  { id: 534352, name: 'Scroll', slug: 'scroll', explorer: 'https://scrollscan.com', color: '#8a5a00', letters: 'S' },
];

export interface Chains {
  /** the chain's entry; an unknown id gets `Chain <id>`, a grey mark and no explorer */
  info(id: number): ChainInfo;
  name(id: number): string;
  /** a featured card's slug → the chain; unknown slugs keep their slug as the name */
  bySlug(slug: string): ChainInfo;
  /** a block explorer page of an address or a transaction; null when the chain has no known explorer */
  link(id: number, kind: 'address' | 'tx', value: string): string | null;
}

/**
 * The chain table, with names the API gave (`learned`: chain id → name, e.g. from
 * `/v1/tvl?include_breakdown=true` rows `chain:<id>`) taking precedence over built-in ones.
 */
export function createChains(learned: Readonly<Record<number, string>> = {}): Chains {
  const byId = new Map(KNOWN_CHAINS.map((c) => [c.id, c]));
  const slugs = new Map(KNOWN_CHAINS.map((c) => [c.slug, c]));
  const info = (id: number): ChainInfo => {
    const known = byId.get(id);
    const name = learned[id] ?? known?.name ?? `Chain ${id}`;
    return known ? { ...known, name } : { id, name, slug: String(id), explorer: null, color: '#4b5563', letters: '?' };
  };
  return {
    info,
    name: (id) => info(id).name,
    bySlug(slug) {
      const known = slugs.get(slug);
      return known ? info(known.id) : { id: 0, name: slug, slug, explorer: null, color: '#4b5563', letters: '?' };
    },
    link(id, kind, value) {
      const base = info(id).explorer;
      return base === null ? null : `${base}/${kind}/${value}`;
    },
  };
}

/** Chain names of a /v1/tvl breakdown: rows whose id is `chain:<id>`. */
export function chainNamesOf(breakdown: readonly { id: string; label: string }[] | null | undefined): Record<number, string> {
  const out: Record<number, string> = {};
  for (const row of breakdown ?? []) {
    const m = /^chain:(\d+)$/.exec(row.id);
    if (m) out[Number(m[1])] = row.label;
  }
  return out;
}
