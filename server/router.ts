// Maps a request path to a route name and its path parameters. Pure and allocation-light:
// the hot path calls it on every request.

export type RouteName =
  | 'health'
  | 'health.chains'
  | 'metrics'
  | 'openapi'
  | 'docs'
  | 'vaults.list'
  | 'vaults.featured'
  | 'vaults.slug'
  | 'vaults.get'
  | 'vaults.definition'
  | 'vaults.timeseries'
  | 'vaults.allocations'
  | 'users.positions'
  | 'users.position'
  | 'users.position.timeseries'
  | 'users.activity'
  | 'tvl'
  | 'strategies'
  | 'prices'
  | 'prices.timeseries';

export interface RouteMatch {
  name: RouteName;
  /** decoded path parameters: slug, vault_id, wallet_address */
  params: Record<string, string>;
}

const FIXED: Record<string, RouteName> = {
  '/health': 'health',
  '/health/chains': 'health.chains',
  '/metrics': 'metrics',
  '/openapi.json': 'openapi',
  '/docs': 'docs',
  '/v1/vaults': 'vaults.list',
  '/v1/vaults/featured': 'vaults.featured',
  '/v1/tvl': 'tvl',
  '/v1/strategies': 'strategies',
  '/v1/prices': 'prices',
  '/v1/prices/timeseries': 'prices.timeseries',
};

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

export function matchRoute(path: string): RouteMatch | null {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const fixed = FIXED[trimmed];
  if (fixed) return { name: fixed, params: {} };
  const parts = trimmed.split('/');
  // parts[0] is '' (leading slash)
  if (parts[1] !== 'v1' || parts.length < 4) return null;
  const raw = parts.slice(3).map(decode);
  if (raw.some((p) => p === null || p === '')) return null;
  const seg = raw as string[];
  if (parts[2] === 'vaults') {
    if (seg[0] === 'slug' && seg.length === 2) return { name: 'vaults.slug', params: { slug: seg[1]! } };
    const vault_id = seg[0]!;
    if (seg.length === 1) return { name: 'vaults.get', params: { vault_id } };
    if (seg.length === 2) {
      const sub = ({ definition: 'vaults.definition', timeseries: 'vaults.timeseries', allocations: 'vaults.allocations' } as const)[
        seg[1] as 'definition'
      ];
      if (sub) return { name: sub, params: { vault_id } };
    }
    return null;
  }
  if (parts[2] === 'users') {
    const wallet_address = seg[0]!;
    if (seg.length === 2 && seg[1] === 'positions') return { name: 'users.positions', params: { wallet_address } };
    if (seg.length === 2 && seg[1] === 'activity') return { name: 'users.activity', params: { wallet_address } };
    if (seg.length === 3 && seg[1] === 'positions') return { name: 'users.position', params: { wallet_address, vault_id: seg[2]! } };
    if (seg.length === 4 && seg[1] === 'positions' && seg[3] === 'timeseries') {
      return { name: 'users.position.timeseries', params: { wallet_address, vault_id: seg[2]! } };
    }
  }
  return null;
}
