// The operation table of the OpenAPI document: one entry per route of server/router.ts (the
// Record type makes a new route without an operation a compile error), with what varies per route.
import type { QueryRoute } from './params.js';
import type { RouteName } from './router.js';
import type { ComponentName } from './schemas/responses.js';

export type PathParam = 'vault_id' | 'wallet_address' | 'slug';

export interface OperationSpec {
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: 'health' | 'vaults' | 'users' | 'aggregates' | 'prices' | 'meta';
  pathParams: readonly PathParam[];
  /** the QUERY_SCHEMAS entry its query parameters are generated from */
  query?: QueryRoute;
  /** query parameters documented as deprecated (DESIGN §5.2) */
  deprecatedQuery?: readonly string[];
  /** JSON body of a 200 (a component), or a non-JSON media type */
  body: ComponentName | { mediaType: string; schema: Record<string, unknown> };
  /** error statuses beyond those every /v1 route has (401, 429, 503, 500); 409 on the routes whose walks a cursor pins (DESIGN §11.6) */
  errors: readonly (404 | 409 | 422)[];
  /** false: the route declares no security requirement (seed, Authentication 4) */
  security: boolean;
  /** a route outside /v1 that a configuration can put behind a key (401) */
  keyedByConfig?: string;
  /** a 503 this route answers with its own body (not the error envelope), and when */
  unavailable?: { body: ComponentName; description: string };
}

/** What /health's `degraded` means (server/routes/health.ts), word for word here and in the README (a test holds both to it). */
export const HEALTH_DEGRADED =
  '`status` is `degraded` when no snapshot is published yet, or, while scheduled jobs run, when the published snapshot is ' +
  'older than 2 hours or a configured chain is stalled or never synced (listed in `stalled_chains`). /health answers 200 ' +
  'while the process serves its routes (`ok` or `degraded`) and 503 when it cannot (no snapshot yet).';

/** Said on every route whose answer mixes today's curation with data as of `as_of` (DESIGN §11.6). */
const AS_OF_TODAY = "With `as_of`, the cards are built from the data known at that instant, but featured, hidden, disabled and strategy settings are today's.";

const v1 = (spec: Omit<OperationSpec, 'security'> & { security?: boolean }): OperationSpec => ({ security: true, ...spec });
const plain = (spec: Omit<OperationSpec, 'security' | 'pathParams' | 'errors'>): OperationSpec => ({
  ...spec,
  pathParams: [],
  errors: [],
  security: false,
});

export const OPERATIONS: Record<RouteName, OperationSpec> = {
  health: plain({
    path: '/health',
    operationId: 'getHealth',
    tag: 'health',
    summary: 'Liveness: version and uptime',
    description: `${HEALTH_DEGRADED} Not enveloped.`,
    body: 'Health',
    unavailable: { body: 'Health', description: '`degraded`: no snapshot is published yet, so every /v1 route answers 503 NOT_READY.' },
  }),
  'health.chains': plain({
    path: '/health/chains',
    operationId: 'listChainHealth',
    tag: 'health',
    summary: 'Per-chain indexer freshness',
    description: 'One entry per chain that has an enabled vault. Not enveloped.',
    body: 'ChainHealthList',
  }),
  'health.slo': plain({
    path: '/health/slo',
    operationId: 'getSlo',
    tag: 'health',
    summary: 'Service level: objectives beside live figures',
    description:
      'The configured objectives (`slo.*`) beside the figures of the last 5 minutes, hour and 24 hours, kept in per-minute buckets since the process started: requests and those answered with a 5xx, the non-5xx ratio, the error budget left (1 untouched, 0 spent) and its burn rate, the time to build a response per route group (p50/p99: the upper bound of the histogram bucket they fall in, buckets √2 apart), and per chain the data lag (now minus its newest indexed block time, sampled at most every 10 s). Not enveloped; never cached.',
    body: 'SloReport',
  }),
  metrics: plain({
    path: '/metrics',
    operationId: 'getMetrics',
    tag: 'meta',
    summary: 'Prometheus metrics',
    description: 'Public unless the server sets `server.metrics_public: false`; then a valid API key is required.',
    keyedByConfig: 'UNAUTHORIZED: this server sets `server.metrics_public: false` and the request carries no valid key.',
    body: { mediaType: 'text/plain', schema: { type: 'string' } },
  }),
  openapi: plain({
    path: '/openapi.json',
    operationId: 'getOpenApi',
    tag: 'meta',
    summary: 'This OpenAPI 3.1 document',
    body: { mediaType: 'application/json', schema: { type: 'object' } },
  }),
  docs: plain({
    path: '/docs',
    operationId: 'getDocs',
    tag: 'meta',
    summary: 'A rendering of this document',
    body: { mediaType: 'text/html', schema: { type: 'string' } },
  }),
  'vaults.list': v1({
    path: '/v1/vaults',
    operationId: 'listVaults',
    tag: 'vaults',
    summary: 'List curated vaults',
    description:
      'Most-recent-first by listing time, ties by vault_id. Visible vaults; `include_hidden=true` adds hidden ones. `include=quality` adds `metrics.quality` and `metrics.stale_reason` to each vault.',
    pathParams: [],
    query: 'vaults.list',
    body: 'VaultListResponse',
    errors: [409, 422],
    security: false,
  }),
  'vaults.featured': v1({
    path: '/v1/vaults/featured',
    operationId: 'listFeaturedVaults',
    tag: 'vaults',
    summary: 'Featured vault cards, in curated order',
    description: AS_OF_TODAY,
    pathParams: [],
    query: 'as_of',
    body: 'FeaturedVaultListResponse',
    errors: [422],
  }),
  'vaults.slug': v1({
    path: '/v1/vaults/slug/{slug}',
    operationId: 'listVaultsBySlug',
    tag: 'vaults',
    summary: 'Every enabled deployment of one logical vault',
    description: `A disabled or unknown slug is 404, and so is one whose deployments were all listed after \`as_of\`. ${AS_OF_TODAY}`,
    pathParams: ['slug'],
    query: 'as_of',
    body: 'VaultListResponse',
    errors: [404, 422],
  }),
  'vaults.get': v1({
    path: '/v1/vaults/{vault_id}',
    operationId: 'getVault',
    tag: 'vaults',
    summary: 'One deployment with its current metrics',
    description:
      '`include=provenance` adds `metrics.apy_provenance` (how each APY was computed); `include=quality` adds `metrics.quality` and `metrics.stale_reason`. Without `include` the body is unchanged.',
    pathParams: ['vault_id'],
    query: 'vaults.get',
    body: 'VaultResponse',
    errors: [404, 422],
  }),
  'vaults.definition': v1({
    path: '/v1/vaults/{vault_id}/definition',
    operationId: 'getVaultDefinition',
    tag: 'vaults',
    summary: 'Identity merged with the per-family definition fields',
    pathParams: ['vault_id'],
    query: 'as_of',
    body: 'VaultDefinitionResponse',
    errors: [404, 422],
  }),
  'vaults.timeseries': v1({
    path: '/v1/vaults/{vault_id}/timeseries',
    operationId: 'getVaultTimeseries',
    tag: 'vaults',
    summary: 'Metric history',
    description: 'Grid points carry the as-of snapshot (never an average). `start` after `end` is 422. `include=quality` adds `quality` to each point.',
    pathParams: ['vault_id'],
    query: 'vaults.timeseries',
    body: 'VaultTimeseriesResponse',
    errors: [404, 409, 422],
  }),
  'vaults.apy': v1({
    path: '/v1/vaults/{vault_id}/apy',
    operationId: 'getVaultApy',
    tag: 'vaults',
    summary: 'How each APY window was computed (provenance)',
    description:
      'For each window (7, 30, 90 days): the start and end snapshots (time, block, unit price), elapsed time, points and the reason when null. `at` (Unix seconds or ISO 8601, default the latest snapshot) picks the end; apy = (end.unit_price / start.unit_price)^(365/days) − 1.',
    pathParams: ['vault_id'],
    query: 'vaults.apy',
    body: 'VaultApyResponse',
    errors: [404, 422],
  }),
  'vaults.allocations': v1({
    path: '/v1/vaults/{vault_id}/allocations',
    operationId: 'getVaultAllocations',
    tag: 'vaults',
    summary: 'Current allocations',
    description: 'With `as_of`: the allocations known at that instant where their history is kept.',
    pathParams: ['vault_id'],
    query: 'as_of',
    body: 'VaultAllocationsResponse',
    errors: [404, 422],
  }),
  'users.positions': v1({
    path: '/v1/users/{wallet_address}/positions',
    operationId: 'listPositions',
    tag: 'users',
    summary: 'Every open position of a wallet',
    description:
      'A position that cannot be valued is reported in `meta.partial_errors`. An unknown wallet gets an empty list. `cost_basis_method=fifo` values cost basis and realized PnL by FIFO lots; `include=returns` adds time- and money-weighted returns.',
    pathParams: ['wallet_address'],
    query: 'users.positions',
    body: 'PositionListResponse',
    errors: [409, 422],
  }),
  'users.position': v1({
    path: '/v1/users/{wallet_address}/positions/{vault_id}',
    operationId: 'getPosition',
    tag: 'users',
    summary: 'One position, current snapshot',
    description: 'A fully exited position, or a wallet that never touched the vault, is 404. `cost_basis_method=fifo` and `include=returns` as on the list.',
    pathParams: ['wallet_address', 'vault_id'],
    query: 'users.position',
    body: 'PositionResponse',
    errors: [404, 422],
  }),
  'users.position.timeseries': v1({
    path: '/v1/users/{wallet_address}/positions/{vault_id}/timeseries',
    operationId: 'getPositionTimeseries',
    tag: 'users',
    summary: 'Position history',
    description:
      "The vault timeseries parameters, with `cost_basis_method` and `include=quality`. Default start: the first grid instant at or after the position's first row.",
    pathParams: ['wallet_address', 'vault_id'],
    query: 'users.position.timeseries',
    body: 'PositionTimeseriesResponse',
    errors: [404, 409, 422],
  }),
  'users.position.lots': v1({
    path: '/v1/users/{wallet_address}/positions/{vault_id}/lots',
    operationId: 'listPositionLots',
    tag: 'users',
    summary: 'FIFO lots of a position, in acquisition order',
    description:
      'Every acquisition (deposit, settled async deposit at its request-time cost, transfer in at market value) and the disposals that consumed it, exact to the base unit. An exited position keeps its closed lots; a wallet that never touched the vault is 404.',
    pathParams: ['wallet_address', 'vault_id'],
    query: 'users.position.lots',
    body: 'LotListResponse',
    errors: [404, 422],
  }),
  'users.activity': v1({
    path: '/v1/users/{wallet_address}/activity',
    operationId: 'listActivity',
    tag: 'users',
    summary: "One page of the wallet's immutable activity log",
    description:
      "Wallet-wide order (block_timestamp, chain_id, block_number, log_index); `vault_id` filters to one vault. Hidden vaults' rows need `include_hidden=true`, except when `vault_id` names the hidden vault (its rows come without it).",
    pathParams: ['wallet_address'],
    query: 'users.activity',
    body: 'ActivityResponse',
    errors: [409, 422],
  }),
  'users.requests': v1({
    path: '/v1/users/{wallet_address}/requests',
    operationId: 'listRequests',
    tag: 'users',
    summary: "The wallet's async deposit and redeem requests, newest first",
    description:
      "Each request with its state: `pending` until settled or refunded, `expired` (and `refundable`) once unresolved past its deadline; `status` filters (default `all`), `vault_id` names one vault. `amount` is the deposit's assets or the redeem's shares; `deadline` and `solver_tip` come from the Provisioner's request event (null where unknown). `age_seconds` runs from the request to its resolution, or to the data time (`as_of`) while unresolved. Hidden vaults follow the activity route's rule.",
    pathParams: ['wallet_address'],
    query: 'users.requests',
    body: 'RequestListResponse',
    errors: [422],
  }),
  tvl: v1({
    path: '/v1/tvl',
    operationId: 'getTvl',
    tag: 'aggregates',
    summary: 'Aggregate TVL',
    description: '`breakdown` is present only with `include_breakdown=true`. `include_sources` is its deprecated alias.',
    pathParams: [],
    query: 'tvl',
    deprecatedQuery: ['include_sources'],
    body: 'TvlResponse',
    errors: [422],
  }),
  strategies: v1({
    path: '/v1/strategies',
    operationId: 'listStrategies',
    tag: 'aggregates',
    summary: 'Strategy cards, in curated display order',
    description: AS_OF_TODAY,
    pathParams: [],
    query: 'as_of',
    body: 'StrategyListResponse',
    errors: [422],
  }),
  prices: v1({
    path: '/v1/prices',
    operationId: 'getPrice',
    tag: 'prices',
    summary: 'Latest USD price of a token, or the point-in-time price with `at`',
    description:
      'The price object itself, flat, with no `{data, meta}` envelope (the request id is in `X-Request-Id`). An unknown token, or `at` before its first price, is 404.',
    pathParams: [],
    query: 'prices',
    body: 'PriceResponse',
    errors: [404, 422],
  }),
  'prices.timeseries': v1({
    path: '/v1/prices/timeseries',
    operationId: 'getPriceTimeseries',
    tag: 'prices',
    summary: 'USD price history, ascending',
    description: 'The body has no meta.',
    pathParams: [],
    query: 'prices.timeseries',
    body: 'PriceTimeseriesResponse',
    errors: [404, 422],
  }),
};
