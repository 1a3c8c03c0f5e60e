// The server's one door into the engine (STYLE 19): the read model of a published snapshot and
// the shapes of what it answers with. server/ imports this file and nothing else of the engine
// (test/boundaries.test.ts); the page format (a body up to its request-id slot, then PAGE_SUFFIX)
// is the contract between the two.
export type { ActivityKey, ChainHead, ItemsAnswer, PointsAnswer, ReadModel, WindowAnswer, WindowQuery } from './readModel.js';
export { metaText, PAGE_SUFFIX, type ListMeta, type Page, WindowMeta } from './page.js';
export type { DeflatedItems } from './seriesBuffers.js';
export { VAULT_LIST_LIMIT, type LatestPrice } from './buildSnapshot.js';
export { type BoundedCache, createBoundedCache } from './boundedCache.js';
// the published shapes, for the OpenAPI schemas' drift checks (server/schemas/engineShapes.ts)
export type { ActivityRow } from '../activity/activityRows.js';
export type { FeaturedCard, StrategyCard } from '../aggregates/cards.js';
export type { PartialError, TvlBreakdownRow, TvlData, TvlRow } from '../aggregates/tvl.js';
export type { PositionMetrics } from '../positions/positionMetrics.js';
export type { Granularity, PositionPoint } from '../positions/positionTimeseries.js';
export type { VaultDetail } from '../metrics/vaultDetail.js';
export type { VaultMetrics, VaultTimeseriesPoint } from '../metrics/vaultPoint.js';
