// Maps a request path to a route name and its path parameters. Pure and allocation-light:
// the hot path calls it on every request.

export type RouteName =
  | 'health'
  | 'health.chains'
  | 'health.slo'
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
  | 'vaults.apy'
  | 'users.positions'
  | 'users.position'
  | 'users.position.timeseries'
  | 'users.position.lots'
  | 'users.activity'
  | 'users.requests'
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
  '/health/slo': 'health.slo',
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

/** The longest fixed path. */
const FIXED_MAX = Math.max(...Object.keys(FIXED).map((p) => p.length));

/** A path segment percent-decoded (only when it holds an escape: most do not), null when malformed. */
function decode(segment: string): string | null {
  if (segment.indexOf('%') < 0) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * ~0.5 µs a path with parameters (one split, segments decoded in place), so the server's memo
 * of matches by path (server/handle.ts) can leave out wallet paths: one per wallet, they only
 * missed there and kept a match each until it was cleared (promoted garbage).
 */
export function matchRoute(path: string): RouteMatch | null {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  // (a property lookup by a fresh string interns it: not for paths longer than every fixed one)
  const fixed = trimmed.length <= FIXED_MAX ? FIXED[trimmed] : undefined;
  if (fixed) return { name: fixed, params: {} };
  // '/v1/<kind>/<segments…>': at least one segment after the kind
  if (!trimmed.startsWith('/v1/')) return null;
  const slash = trimmed.indexOf('/', 4);
  if (slash < 0) return null;
  const kind = trimmed.slice(4, slash);
  if (kind !== 'vaults' && kind !== 'users') return null;
  const seg = trimmed.slice(slash + 1).split('/');
  for (let i = 0; i < seg.length; i++) {
    const d = decode(seg[i]!);
    if (d === null || d === '') return null;
    seg[i] = d;
  }
  if (kind === 'vaults') {
    if (seg[0] === 'slug' && seg.length === 2) return { name: 'vaults.slug', params: { slug: seg[1]! } };
    const vault_id = seg[0]!;
    if (seg.length === 1) return { name: 'vaults.get', params: { vault_id } };
    if (seg.length === 2) {
      const sub = ({ definition: 'vaults.definition', timeseries: 'vaults.timeseries', allocations: 'vaults.allocations', apy: 'vaults.apy' } as const)[
        seg[1] as 'definition'
      ];
      if (sub) return { name: sub, params: { vault_id } };
    }
    return null;
  }
  // users
  const wallet_address = seg[0]!;
  if (seg.length === 2 && seg[1] === 'positions') return { name: 'users.positions', params: { wallet_address } };
  if (seg.length === 2 && seg[1] === 'activity') return { name: 'users.activity', params: { wallet_address } };
  if (seg.length === 2 && seg[1] === 'requests') return { name: 'users.requests', params: { wallet_address } };
  if (seg.length === 3 && seg[1] === 'positions') return { name: 'users.position', params: { wallet_address, vault_id: seg[2]! } };
  if (seg.length === 4 && seg[1] === 'positions' && seg[3] === 'timeseries') {
    return { name: 'users.position.timeseries', params: { wallet_address, vault_id: seg[2]! } };
  }
  if (seg.length === 4 && seg[1] === 'positions' && seg[3] === 'lots') return { name: 'users.position.lots', params: { wallet_address, vault_id: seg[2]! } };
  return null;
}
