// Route name → handler.
import type { RouteName } from '../router.js';
import { strategies, tvl } from './aggregates.js';
import type { RouteHandler } from './context.js';
import { docs, health, healthChains, healthSlo, metrics, openapi } from './health.js';
import { prices, pricesTimeseries } from './prices.js';
import { positionTimeseries, vaultTimeseries } from './timeseries.js';
import { activity, positionGet, positionLots, positionsList, requests } from './users.js';
import { vaultsAllocations, vaultsApy, vaultsDefinition, vaultsFeatured, vaultsGet, vaultsList, vaultsSlug } from './vaults.js';

export type { RouteContext } from './context.js';

const HANDLERS: Record<RouteName, RouteHandler> = {
  health,
  'health.chains': healthChains,
  'health.slo': healthSlo,
  metrics,
  openapi,
  docs,
  'vaults.list': vaultsList,
  'vaults.featured': vaultsFeatured,
  'vaults.slug': vaultsSlug,
  'vaults.get': vaultsGet,
  'vaults.definition': vaultsDefinition,
  'vaults.timeseries': vaultTimeseries,
  'vaults.allocations': vaultsAllocations,
  'vaults.apy': vaultsApy,
  'users.positions': positionsList,
  'users.position': positionGet,
  'users.position.timeseries': positionTimeseries,
  'users.position.lots': positionLots,
  'users.activity': activity,
  'users.requests': requests,
  tvl,
  strategies,
  prices,
  'prices.timeseries': pricesTimeseries,
};

export function routeHandler(name: RouteName): RouteHandler {
  return HANDLERS[name];
}
