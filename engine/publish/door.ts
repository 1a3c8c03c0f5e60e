// The server's one door into the engine (issue: one door from engine to server): everything
// server/ reads of the engine — published shapes, the window and as-of helpers its routes
// slice snapshots with, and the wallet views (replayed positions) — comes through here,
// so the boundary test can hold server/ to engine/publish.
export { type ActivityRow, activityRowAt, toActivityRow } from '../activity/activityRows.js';
export type { FeaturedCard, StrategyCard } from '../aggregates/cards.js';
export { type Granularity, type PositionPoint, defaultPositionStart, positionPoints } from '../positions/positionTimeseries.js';
export type { PartialError, TvlBreakdownRow, TvlData, TvlRow } from '../aggregates/tvl.js';
export { type PositionMetrics, positionMetrics, positionNow } from '../positions/positionMetrics.js';
export { type PositionState, isPositionOpen } from '../positions/replayPosition.js';
export { type WalletPosition, walletPositionList } from './walletViews.js';
export { ENABLED, HIDDEN, itemBytes, OPEN, SKIPPED, VALUED } from '../positions/positionItems.js';
export { walletOf } from './walletIndex.js';
export { type VaultDetail, numeraireToken } from '../metrics/vaultDetail.js';
export { type VaultMetrics, type VaultTimeseriesPoint, vaultTimeseriesPoint } from '../metrics/vaultPoint.js';
export { asOfIndex } from '../series/asOf.js';
export { gridWindow, windowPoints } from '../series/rollups.js';
export { type SeriesBuffer, type SeriesSlice, seriesBuffer, sliceSeries } from './seriesBuffers.js';
