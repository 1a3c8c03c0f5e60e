// valibot schemas of every response body (seed "Response meta", "Error envelope"; DESIGN §4.7,
// §4.8, §5.1–§5.3). Strict objects: an unexpected key fails. server/openapi.ts turns COMPONENTS
// into `components.schemas`, so the document and the tests read the same definitions.
import * as v from 'valibot';
import { ERROR_CODES, type ErrorCode } from '../../common/errors.js';
import { FeaturedCard, StrategyCard, Tvl, TvlBreakdownRow, TvlRow } from './aggregates.js';
import { Address, AmountPair, ChainId, DateTime, Double, NonNegativeInt64, RequestId, TokenRef, UsdAmount } from './primitives.js';
import {
  Allocation,
  AllocationTarget,
  DEFINITION_COMPONENTS,
  StrategyRef,
  VaultAllocations,
  VaultDefinition,
  VaultDetail,
  VaultGroupRef,
  VaultMetrics,
  VaultTimeseriesPoint,
} from './vaults.js';
import { ApyWindowProvenance, Lot, PointQuality, PositionReturns, ProvenanceSnapshot, VaultApy } from './audit.js';
import { ActivityRow, Pnl, Position, PositionMetrics, PositionTimeseriesPoint, RoiPct, RequestItem, RequestPoint } from './wallets.js';

// ---- meta (seed "Response meta"; page.ts writes the keys in this order, request_id last) ----

export const PartialResponseError = v.strictObject({ code: v.string(), message: v.string(), resource_id: v.nullable(v.string()) });

/** null when there are none, never an empty array (DESIGN §4.8). */
const PartialErrors = v.nullable(v.pipe(v.array(PartialResponseError), v.minLength(1)));

/** `as_of` only when the request asked for it (DESIGN §11.6): the instant the answer is as of. */
const TAIL = { as_of: v.optional(DateTime), refreshed_at: DateTime, request_id: RequestId };
const LIST = {
  count: NonNegativeInt64,
  limit: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))),
  next_cursor: v.nullable(v.pipe(v.string(), v.minLength(1))),
  partial_errors: PartialErrors,
};

/** Single-item responses carry only these two (seed). */
export const ItemMeta = v.strictObject(TAIL);
/** /v1/tvl: a failing external source is reported here (DESIGN §4.5). */
export const TvlMeta = v.strictObject({ partial_errors: PartialErrors, ...TAIL });
export const ListMeta = v.strictObject({ ...LIST, ...TAIL });
/** Timeseries: the effective window (DESIGN §4.3); null only when no bound was given and there is no history. */
export const WindowListMeta = v.strictObject({ ...LIST, start: v.nullable(DateTime), end: v.nullable(DateTime), ...TAIL });
/** Positions list and activity: `start`/`end` listed by the seed, always null (no window, DESIGN §4.8). */
export const WalletListMeta = v.strictObject({ ...LIST, start: v.null(), end: v.null(), ...TAIL });

// ---- errors (DESIGN §5.3) ----

const codesOf = (status: number) => (Object.keys(ERROR_CODES) as ErrorCode[]).filter((c) => ERROR_CODES[c] === status);

const errorEnvelope = (codes: readonly ErrorCode[]) =>
  v.strictObject({
    error: v.strictObject({ code: v.picklist(codes), message: v.string(), details: v.optional(v.unknown()) }),
  });

/** Any request error; the per-status envelopes below narrow `code`. Program codes reach a client as INTERNAL. */
export const ErrorResponse = errorEnvelope((Object.keys(ERROR_CODES) as ErrorCode[]).filter((c) => ERROR_CODES[c] >= 400));
export const UnauthorizedError = errorEnvelope(codesOf(401));
export const NotFoundError = errorEnvelope(codesOf(404));
export const ConflictError = errorEnvelope(codesOf(409));
export const UnprocessableError = errorEnvelope(codesOf(422));
export const RateLimitedError = errorEnvelope(codesOf(429));
export const UriTooLongError = errorEnvelope(codesOf(414));
export const NotReadyError = errorEnvelope(codesOf(503));
export const InternalError = errorEnvelope(codesOf(500));

// ---- prices and health (seed "Price", DESIGN §5.2) ----

export const Price = v.strictObject({
  address: Address,
  chain_id: ChainId,
  currency: v.literal('usd'),
  price: v.strictObject({ decimals: v.pipe(v.number(), v.integer(), v.minValue(0)), usd: Double }),
  symbol: v.string(),
  /** the price point's own time (DESIGN §4.7) */
  timestamp: DateTime,
});

export const PricePoint = v.strictObject({ price: v.strictObject({ usd: Double }), timestamp: DateTime });

export const Health = v.strictObject({
  status: v.picklist(['ok', 'degraded']),
  version: v.string(),
  uptime_seconds: NonNegativeInt64,
  /** while jobs run: the chains that are stalled or never synced (only when there are some) */
  stalled_chains: v.optional(v.array(ChainId)),
});

/** One chain with an enabled vault; `latest_timestamp` in Unix seconds; null before its first block. */
export const ChainHealth = v.strictObject({
  chain_id: ChainId,
  latest_block: v.nullable(NonNegativeInt64),
  latest_timestamp: v.nullable(NonNegativeInt64),
  lag_seconds: v.nullable(NonNegativeInt64),
  freshness: v.picklist(['fresh', 'lagging', 'stalled']),
});

// ---- envelopes per route ----

const item = <T extends v.GenericSchema>(data: T) => v.strictObject({ data, meta: ItemMeta });
const list = <T extends v.GenericSchema, M extends v.GenericSchema>(row: T, meta: M) => v.strictObject({ data: v.array(row), meta });

export const VaultListResponse = list(VaultDetail, ListMeta);
export const FeaturedVaultListResponse = list(FeaturedCard, ListMeta);
export const VaultResponse = item(VaultDetail);
export const VaultDefinitionResponse = item(VaultDefinition);
export const VaultTimeseriesResponse = list(VaultTimeseriesPoint, WindowListMeta);
export const VaultAllocationsResponse = item(VaultAllocations);
export const PositionListResponse = list(Position, WalletListMeta);
export const PositionResponse = item(Position);
export const PositionTimeseriesResponse = list(PositionTimeseriesPoint, WindowListMeta);
export const ActivityResponse = list(ActivityRow, WalletListMeta);
export const TvlResponse = v.strictObject({ data: Tvl, meta: TvlMeta });
export const StrategyListResponse = list(StrategyCard, ListMeta);
/** flat: the latest price object itself, no envelope (DESIGN §5.2; the real client reads `res.price.usd`) */
export const PriceResponse = Price;
/** No meta (seed), ascending (DESIGN §5.2). */
export const PriceTimeseriesResponse = v.strictObject({ data: v.array(PricePoint) });
export const ChainHealthList = v.array(ChainHealth);

/** /health/slo (DESIGN §11.9): objectives beside the live figures of three windows. */
const Quantiles = v.strictObject({ requests: v.pipe(v.number(), v.integer(), v.minValue(0)), p50: v.nullable(v.number()), p99: v.nullable(v.number()) });
export const SloWindow = v.strictObject({
  requests: v.pipe(v.number(), v.integer(), v.minValue(0)),
  errors_5xx: v.pipe(v.number(), v.integer(), v.minValue(0)),
  non_5xx_ratio: v.nullable(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
  error_budget_left: v.number(),
  burn_rate: v.pipe(v.number(), v.minValue(0)),
  latency_ms: v.strictObject({ health: Quantiles, vaults: Quantiles, users: Quantiles, aggregates: Quantiles, prices: Quantiles, other: Quantiles }),
  chains: v.array(
    v.strictObject({
      chain_id: ChainId,
      samples: v.pipe(v.number(), v.integer(), v.minValue(0)),
      lag_seconds: v.strictObject({ p50: v.nullable(v.number()), p99: v.nullable(v.number()), max: v.nullable(v.number()) }),
    }),
  ),
});
export const SloReport = v.strictObject({
  objectives: v.strictObject({ freshness_seconds: v.number(), latency_p99_ms: v.number(), availability: v.number() }),
  publish_age_seconds: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))),
  windows: v.strictObject({ '5m': SloWindow, '1h': SloWindow, '24h': SloWindow }),
});
export const VaultApyResponse = item(VaultApy);
export const LotListResponse = list(Lot, ListMeta);
export const RequestListResponse = list(RequestItem, WalletListMeta);

/**
 * Every named schema, in the order of `components.schemas`. A schema object listed here is
 * emitted once and referenced (`$ref`) wherever it is reused.
 */
export const COMPONENTS = {
  AmountPair,
  UsdAmount,
  TokenRef,
  StrategyRef,
  VaultGroupRef,
  VaultMetrics,
  VaultDetail,
  VaultTimeseriesPoint,
  ...DEFINITION_COMPONENTS,
  VaultDefinition,
  AllocationTarget,
  Allocation,
  VaultAllocations,
  Pnl,
  RoiPct,
  PositionMetrics,
  Position,
  PositionTimeseriesPoint,
  ProvenanceSnapshot,
  ApyWindowProvenance,
  VaultApy,
  PointQuality,
  PositionReturns,
  Lot,
  ActivityRow,
  TvlRow,
  TvlBreakdownRow,
  Tvl,
  StrategyCard,
  FeaturedCard,
  Price,
  PricePoint,
  Health,
  ChainHealth,
  PartialResponseError,
  ItemMeta,
  TvlMeta,
  ListMeta,
  WindowListMeta,
  WalletListMeta,
  ErrorResponse,
  UnauthorizedError,
  NotFoundError,
  ConflictError,
  UnprocessableError,
  RateLimitedError,
  UriTooLongError,
  NotReadyError,
  InternalError,
  VaultListResponse,
  FeaturedVaultListResponse,
  VaultResponse,
  VaultDefinitionResponse,
  VaultTimeseriesResponse,
  VaultAllocationsResponse,
  PositionListResponse,
  PositionResponse,
  PositionTimeseriesResponse,
  ActivityResponse,
  TvlResponse,
  StrategyListResponse,
  PriceResponse,
  PriceTimeseriesResponse,
  ChainHealthList,
  VaultApyResponse,
  LotListResponse,
  RequestPoint,
  RequestItem,
  RequestListResponse,
  SloWindow,
  SloReport,
} satisfies Record<string, v.GenericSchema>;

export type ComponentName = keyof typeof COMPONENTS;
