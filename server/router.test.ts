import { describe, expect, it } from 'vitest';
import { matchRoute } from './router.js';

describe('matchRoute', () => {
  it.each([
    ['/health', 'health', {}],
    ['/health/chains', 'health.chains', {}],
    ['/v1/vaults', 'vaults.list', {}],
    ['/v1/vaults/', 'vaults.list', {}],
    ['/v1/vaults/featured', 'vaults.featured', {}],
    ['/v1/vaults/slug/gauntlet-usd-alpha', 'vaults.slug', { slug: 'gauntlet-usd-alpha' }],
    ['/v1/vaults/1:0xabc', 'vaults.get', { vault_id: '1:0xabc' }],
    ['/v1/vaults/1%3A0xabc/definition', 'vaults.definition', { vault_id: '1:0xabc' }],
    ['/v1/vaults/1:0xabc/timeseries', 'vaults.timeseries', { vault_id: '1:0xabc' }],
    ['/v1/vaults/1:0xabc/allocations', 'vaults.allocations', { vault_id: '1:0xabc' }],
    ['/v1/users/0xw/positions', 'users.positions', { wallet_address: '0xw' }],
    ['/v1/users/0xw/positions/1:0xv', 'users.position', { wallet_address: '0xw', vault_id: '1:0xv' }],
    ['/v1/users/0xw/positions/1:0xv/timeseries', 'users.position.timeseries', { wallet_address: '0xw', vault_id: '1:0xv' }],
    ['/v1/users/0xw/activity', 'users.activity', {}],
    ['/v1/tvl', 'tvl', {}],
    ['/v1/strategies', 'strategies', {}],
    ['/v1/prices', 'prices', {}],
    ['/v1/prices/timeseries', 'prices.timeseries', {}],
  ])('%s → %s', (path, name, params) => {
    const m = matchRoute(path);
    expect(m?.name).toBe(name);
    if (Object.keys(params).length) expect(m?.params).toEqual(params);
  });

  it.each([
    '/',
    '/v2/vaults',
    '/v1',
    '/v1/vaults/x/y/z',
    '/v1/users/0xw',
    '/v1/users/0xw/nope',
    '/v1/vaults/%E0%A4%A',
    '/v1/vaults//definition',
    '/v1/vaults/x/timeseries/extra',
  ])('no route: %s', (path) => expect(matchRoute(path)).toBeNull());
});
