// vaultd/client: a dependency-free, typed client of the vaultd HTTP API for Node ≥ 18 and
// browsers (DESIGN §5.9). Everything public is listed here by name; nothing else is exported.
export { createClient } from './createClient.js';
export type {
  ActivityOptions,
  RequestsOptions,
  ApyOptions,
  AsOfOptions,
  ClientOptions,
  CostBasisMethod,
  Include,
  Instant,
  LotsOptions,
  PageOptions,
  PositionOptions,
  PositionsOptions,
  PositionTimeseriesOptions,
  PriceOptions,
  PriceTimeseriesOptions,
  TimeseriesOptions,
  TvlOptions,
  VaultdApi,
  VaultdApiWithResponse,
  VaultdClient,
  VaultdIterators,
  VaultOptions,
  VaultsOptions,
} from './createClient.js';
export type { Answer, FetchLike, RateLimit, RequestOptions, ResponseInfo, RetryOptions } from './transport.js';
export { AmountError, CursorStaleError, isVaultdClientError, VaultdApiError, VaultdClientError } from './errors.js';
export type { ApiErrorCode, ClientErrorCode, LocalErrorCode } from './errors.js';
export { fromBaseUnits, toBaseUnits } from './units.js';
export { activityFlows } from './activityFlows.js';
export type { Flow, FlowKind, FlowRow, FlowStatus } from './activityFlows.js';
export { compareActivity } from './activityOrder.js';
export { positionHistory } from './positionHistory.js';
export type { PositionHistory, PositionHistoryPoint, PositionState, SkipReason } from './positionHistory.js';
export { waitForSettlement } from './waitForSettlement.js';
export type { WaitForSettlementOptions } from './waitForSettlement.js';
export type { LiveStream, StreamEvent, StreamKind, StreamMessage, StreamOptions, StreamTopic } from './stream.js';
export { CLIENT_VERSION } from './version.js';
export type * from './types.gen.js';
