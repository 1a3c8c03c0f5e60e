// createClient: one method per vaultd route (DESIGN §5.9), each returning the route's body as
// typed by the generated OpenAPI types; `withResponse` returns the body with what the answer
// said about itself; `iterate` follows `meta.next_cursor` to the end of every paged route.
import type { Flow } from './activityFlows.js';
import { CursorStaleError, VaultdClientError } from './errors.js';
import { createTransport, type Answer, type QueryValue, type RequestOptions, type TransportOptions } from './transport.js';
import type { ActivityRow, Operations } from './types.gen.js';
import { waitForSettlement, type WaitForSettlementOptions } from './waitForSettlement.js';
import { type LiveStream, openStream, type StreamOptions } from './stream.js';

export type ClientOptions = TransportOptions;

type Op = keyof Operations;
type Body<O extends Op> = Operations[O]['response'];
type Query<O extends Op> = Operations[O]['query'];
type Row<O extends Op> = Body<O> extends { data: (infer R)[] } ? R : never;

/** A date (sent as RFC 3339 UTC, whole seconds) or an ISO 8601 date or date-time string. */
export type Instant = string | Date;

export interface PageOptions {
  /** page size (each route has its own bounds and default) */
  limit?: number;
  /** `meta.next_cursor` of the previous page */
  next?: string;
}

/**
 * `as_of` (DESIGN §11.6): the answer as of a past instant — the data known then, "now" in values,
 * PnL and APY being that instant; `meta.as_of` echoes it. After the newest data the server answers
 * 422. Registry settings (hidden, disabled, featured, strategy, names) are today's.
 */
export interface AsOfOptions extends RequestOptions {
  /** a Date (sent as RFC 3339 UTC, whole seconds) or an ISO 8601 date or date-time */
  asOf?: Instant;
}

/** Opt-in blocks of a route (DESIGN §11.1); sent as a comma-separated list, left out when empty. */
export type Include<T extends string> = readonly T[];

export type CostBasisMethod = NonNullable<Query<'getPosition'>['cost_basis_method']>;

export interface VaultsOptions extends PageOptions, AsOfOptions {
  /** add hidden vaults */
  includeHidden?: boolean;
  /** `quality`: a data-quality block on each vault's metrics (DESIGN §11.3) */
  include?: Include<'quality'>;
}

export interface VaultOptions extends AsOfOptions {
  /** `provenance`: how each APY was computed; `quality`: data-quality flags (DESIGN §11.2, §11.3) */
  include?: Include<'provenance' | 'quality'>;
}

export interface ApyOptions extends RequestOptions {
  /** the provenance as of this instant (Unix seconds, a Date or ISO 8601); default the latest snapshot */
  at?: Instant | number;
}

export interface TimeseriesOptions extends PageOptions, AsOfOptions {
  start?: Instant;
  end?: Instant;
  granularity?: Query<'getVaultTimeseries'>['granularity'];
  order?: Query<'getVaultTimeseries'>['order'];
  /** `quality`: data-quality flags on each point (DESIGN §11.3) */
  include?: Include<'quality'>;
}

export interface PositionTimeseriesOptions extends TimeseriesOptions {
  /** `average` (default, DESIGN §4.4) or `fifo` (§11.4) */
  costBasisMethod?: CostBasisMethod;
}

export interface PositionOptions extends AsOfOptions {
  /** `average` (default, DESIGN §4.4) or `fifo` (§11.4); `fifo` with asOf is a 422 */
  costBasisMethod?: CostBasisMethod;
  /** `returns`: time- and money-weighted returns side by side (DESIGN §11.5); with asOf a 422 */
  include?: Include<'returns'>;
}

export interface LotsOptions extends PageOptions, RequestOptions {
  /** open lots, closed ones, or all (default) */
  state?: Query<'listPositionLots'>['state'];
}

export interface TvlOptions extends AsOfOptions {
  /** add per-chain and per-source rows */
  includeBreakdown?: boolean;
}

export interface PositionsOptions extends PageOptions, PositionOptions {
  /** add positions in hidden vaults */
  includeHidden?: boolean;
}

export interface ActivityOptions extends PageOptions, AsOfOptions {
  /** only this vault's rows (`{chainId}:{address}`); a hidden vault's rows come without includeHidden */
  vaultId?: string;
  /** default `desc` (newest first) */
  order?: Query<'listActivity'>['order'];
  /** add hidden vaults' rows to the wallet-wide log */
  includeHidden?: boolean;
}

export interface RequestsOptions extends PageOptions, AsOfOptions {
  /** one state only (`pending`, `settled`, `refunded`, `expired`); default all */
  status?: Query<'listRequests'>['status'];
  /** only this vault's requests; a hidden vault's come without includeHidden */
  vaultId?: string;
  /** add hidden vaults' requests */
  includeHidden?: boolean;
}

export interface PriceOptions extends RequestOptions {
  chainId: number;
  address: string;
  /** the price as of this instant; default the latest */
  at?: Instant;
}

export interface PriceTimeseriesOptions extends RequestOptions {
  chainId: number;
  address: string;
  start: Instant;
  end: Instant;
  granularity?: Query<'getPriceTimeseries'>['granularity'];
  limit?: number;
}

/** Every route, answering the body together with its ResponseInfo. */
export interface VaultdApiWithResponse {
  /** GET /health: `{status, version, uptime_seconds}` (no envelope) */
  health(options?: RequestOptions): Promise<Answer<Body<'getHealth'>>>;
  /** GET /health/chains: per-chain indexer freshness (no envelope) */
  chains(options?: RequestOptions): Promise<Answer<Body<'listChainHealth'>>>;
  /** GET /health/slo: service level objectives beside the live figures of 5 min, 1 h and 24 h (no envelope) */
  slo(options?: RequestOptions): Promise<Answer<Body<'getSlo'>>>;
  /** GET /v1/vaults: curated vaults, most recently listed first */
  vaults(options?: VaultsOptions): Promise<Answer<Body<'listVaults'>>>;
  /** GET /v1/vaults/featured: featured cards in curated order */
  featured(options?: AsOfOptions): Promise<Answer<Body<'listFeaturedVaults'>>>;
  /** GET /v1/vaults/slug/{slug}: every deployment of a logical vault */
  vaultsBySlug(slug: string, options?: AsOfOptions): Promise<Answer<Body<'listVaultsBySlug'>>>;
  /** GET /v1/vaults/{vault_id}: one deployment with its current metrics */
  vault(vaultId: string, options?: VaultOptions): Promise<Answer<Body<'getVault'>>>;
  /** GET /v1/vaults/{vault_id}/apy: how each APY window was computed (provenance) */
  apy(vaultId: string, options?: ApyOptions): Promise<Answer<Body<'getVaultApy'>>>;
  /** GET /v1/vaults/{vault_id}/definition: identity plus the family's fields */
  definition(vaultId: string, options?: AsOfOptions): Promise<Answer<Body<'getVaultDefinition'>>>;
  /** GET /v1/vaults/{vault_id}/allocations */
  allocations(vaultId: string, options?: AsOfOptions): Promise<Answer<Body<'getVaultAllocations'>>>;
  /** GET /v1/vaults/{vault_id}/timeseries: one page of metric history */
  timeseries(vaultId: string, options?: TimeseriesOptions): Promise<Answer<Body<'getVaultTimeseries'>>>;
  /** GET /v1/strategies: strategy cards in curated order */
  strategies(options?: AsOfOptions): Promise<Answer<Body<'listStrategies'>>>;
  /** GET /v1/tvl: aggregate TVL */
  tvl(options?: TvlOptions): Promise<Answer<Body<'getTvl'>>>;
  /** GET /v1/users/{wallet}/positions: one page of a wallet's open positions */
  positions(wallet: string, options?: PositionsOptions): Promise<Answer<Body<'listPositions'>>>;
  /** GET /v1/users/{wallet}/positions/{vault_id} */
  position(wallet: string, vaultId: string, options?: PositionOptions): Promise<Answer<Body<'getPosition'>>>;
  /** GET /v1/users/{wallet}/positions/{vault_id}/timeseries: one page of a position's history */
  positionTimeseries(wallet: string, vaultId: string, options?: PositionTimeseriesOptions): Promise<Answer<Body<'getPositionTimeseries'>>>;
  /** GET /v1/users/{wallet}/positions/{vault_id}/lots: one page of the position's FIFO lots */
  lots(wallet: string, vaultId: string, options?: LotsOptions): Promise<Answer<Body<'listPositionLots'>>>;
  /** GET /v1/users/{wallet}/activity: one page of the wallet's activity log */
  activity(wallet: string, options?: ActivityOptions): Promise<Answer<Body<'listActivity'>>>;
  /** GET /v1/users/{wallet}/requests: one page of the wallet's async requests and their state (DESIGN §11.8), newest first */
  requests(wallet: string, options?: RequestsOptions): Promise<Answer<Body<'listRequests'>>>;
  /** GET /v1/prices: the flat price object (no envelope) */
  price(options: PriceOptions): Promise<Answer<Body<'getPrice'>>>;
  /** GET /v1/prices/timeseries: `{data}`, ascending, no meta */
  priceTimeseries(options: PriceTimeseriesOptions): Promise<Answer<Body<'getPriceTimeseries'>>>;
}

/** Every route, answering its body. */
export type VaultdApi = {
  [K in keyof VaultdApiWithResponse]: VaultdApiWithResponse[K] extends (...args: infer A) => Promise<Answer<infer T>> ? (...args: A) => Promise<T> : never;
};

/**
 * Rows of every paged route, following `meta.next_cursor` to the last page (`limit` is the page size).
 * A cursor pins its walk to the data of its first page (DESIGN §11.6); when a chain reorganization
 * removed rows of that data (409 CURSOR_STALE), the walk starts again once from its first page —
 * rows yielded before are yielded again, as of the new first page — and a second 409 is thrown
 * (a CursorStaleError).
 */
export interface VaultdIterators {
  vaults(options?: VaultsOptions): AsyncGenerator<Row<'listVaults'>, void, undefined>;
  timeseries(vaultId: string, options?: TimeseriesOptions): AsyncGenerator<Row<'getVaultTimeseries'>, void, undefined>;
  positions(wallet: string, options?: PositionsOptions): AsyncGenerator<Row<'listPositions'>, void, undefined>;
  positionTimeseries(wallet: string, vaultId: string, options?: PositionTimeseriesOptions): AsyncGenerator<Row<'getPositionTimeseries'>, void, undefined>;
  lots(wallet: string, vaultId: string, options?: LotsOptions): AsyncGenerator<Row<'listPositionLots'>, void, undefined>;
  activity(wallet: string, options?: ActivityOptions): AsyncGenerator<Row<'listActivity'>, void, undefined>;
  requests(wallet: string, options?: RequestsOptions): AsyncGenerator<Row<'listRequests'>, void, undefined>;
}

export interface VaultdClient extends VaultdApi {
  readonly baseUrl: string;
  readonly withResponse: VaultdApiWithResponse;
  readonly iterate: VaultdIterators;
  /** Poll the wallet's activity until the request settles or is refunded; see waitForSettlement. */
  waitForSettlement(options: WaitForSettlementOptions): Promise<Flow<ActivityRow>>;
  /**
   * The live feed (DESIGN §11.7): iterate it (`for await (const e of client.stream({topics}))`)
   * or listen (`.on('message' | 'resync' | 'error', …)`); it reconnects and resumes by itself.
   */
  stream(options: StreamOptions): LiveStream;
}

// The paths of the generated document: a route moved on the server is a compile error here.
// (the live feed is client.stream, not a request: client/stream.ts)
type Used = Exclude<Op, 'getMetrics' | 'getOpenApi' | 'getDocs' | 'openStream' | 'openStreamSse'>;
const PATHS: { [O in Used]: Operations[O]['path'] } = {
  getHealth: '/health',
  getSlo: '/health/slo',
  listChainHealth: '/health/chains',
  listVaults: '/v1/vaults',
  listFeaturedVaults: '/v1/vaults/featured',
  listVaultsBySlug: '/v1/vaults/slug/{slug}',
  getVault: '/v1/vaults/{vault_id}',
  getVaultDefinition: '/v1/vaults/{vault_id}/definition',
  getVaultTimeseries: '/v1/vaults/{vault_id}/timeseries',
  getVaultAllocations: '/v1/vaults/{vault_id}/allocations',
  getVaultApy: '/v1/vaults/{vault_id}/apy',
  listPositionLots: '/v1/users/{wallet_address}/positions/{vault_id}/lots',
  listPositions: '/v1/users/{wallet_address}/positions',
  getPosition: '/v1/users/{wallet_address}/positions/{vault_id}',
  getPositionTimeseries: '/v1/users/{wallet_address}/positions/{vault_id}/timeseries',
  listActivity: '/v1/users/{wallet_address}/activity',
  listRequests: '/v1/users/{wallet_address}/requests',
  getTvl: '/v1/tvl',
  listStrategies: '/v1/strategies',
  getPrice: '/v1/prices',
  getPriceTimeseries: '/v1/prices/timeseries',
};

function instant(value: Instant | undefined): string | undefined {
  if (value === undefined) return undefined;
  return value instanceof Date ? value.toISOString().replace(/\.\d{3}Z$/, 'Z') : value;
}

/** An include list as the wire has it; undefined (not sent) when empty. */
function includeText(values: readonly string[] | undefined): string | undefined {
  return values && values.length > 0 ? values.join(',') : undefined;
}

function request(options: RequestOptions | undefined): RequestOptions {
  return { signal: options?.signal, requestId: options?.requestId };
}

export function createClient(options: ClientOptions): VaultdClient {
  const transport = createTransport(options);

  function call<O extends Used>(op: O, params: Operations[O]['pathParams'], query: Query<O>, options: RequestOptions | undefined): Promise<Answer<Body<O>>> {
    const path = (PATHS[op] as string).replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent((params as Record<string, string>)[name]!));
    return transport.get<Body<O>>(path, query as Record<string, QueryValue>, request(options));
  }

  const timeseriesQuery = (o: TimeseriesOptions = {}): Query<'getVaultTimeseries'> => ({
    start: instant(o.start),
    end: instant(o.end),
    next: o.next,
    limit: o.limit,
    order: o.order,
    granularity: o.granularity,
    include: includeText(o.include),
    as_of: instant(o.asOf),
  });

  const withResponse: VaultdApiWithResponse = {
    health: (o) => call('getHealth', {}, {}, o),
    slo: (o) => call('getSlo', {}, {}, o),
    chains: (o) => call('listChainHealth', {}, {}, o),
    vaults: (o = {}) =>
      call('listVaults', {}, { next: o.next, limit: o.limit, include_hidden: o.includeHidden, include: includeText(o.include), as_of: instant(o.asOf) }, o),
    featured: (o = {}) => call('listFeaturedVaults', {}, { as_of: instant(o.asOf) }, o),
    vaultsBySlug: (slug, o = {}) => call('listVaultsBySlug', { slug }, { as_of: instant(o.asOf) }, o),
    vault: (vault_id, o = {}) => call('getVault', { vault_id }, { include: includeText(o.include), as_of: instant(o.asOf) }, o),
    apy: (vault_id, o = {}) => call('getVaultApy', { vault_id }, { at: typeof o.at === 'number' ? String(o.at) : instant(o.at) }, o),
    definition: (vault_id, o = {}) => call('getVaultDefinition', { vault_id }, { as_of: instant(o.asOf) }, o),
    allocations: (vault_id, o = {}) => call('getVaultAllocations', { vault_id }, { as_of: instant(o.asOf) }, o),
    timeseries: (vault_id, o) => call('getVaultTimeseries', { vault_id }, timeseriesQuery(o), o),
    strategies: (o = {}) => call('listStrategies', {}, { as_of: instant(o.asOf) }, o),
    tvl: (o = {}) => call('getTvl', {}, { include_breakdown: o.includeBreakdown, as_of: instant(o.asOf) }, o),
    positions: (wallet_address, o = {}) =>
      call(
        'listPositions',
        { wallet_address },
        {
          next: o.next,
          limit: o.limit,
          include_hidden: o.includeHidden,
          include: includeText(o.include),
          cost_basis_method: o.costBasisMethod,
          as_of: instant(o.asOf),
        },
        o,
      ),
    position: (wallet_address, vault_id, o = {}) =>
      call('getPosition', { wallet_address, vault_id }, { include: includeText(o.include), cost_basis_method: o.costBasisMethod, as_of: instant(o.asOf) }, o),
    positionTimeseries: (wallet_address, vault_id, o = {}) =>
      call('getPositionTimeseries', { wallet_address, vault_id }, { ...timeseriesQuery(o), cost_basis_method: o.costBasisMethod }, o),
    lots: (wallet_address, vault_id, o = {}) => call('listPositionLots', { wallet_address, vault_id }, { next: o.next, limit: o.limit, state: o.state }, o),
    activity: (wallet_address, o = {}) =>
      call(
        'listActivity',
        { wallet_address },
        { next: o.next, limit: o.limit, order: o.order, vault_id: o.vaultId, include_hidden: o.includeHidden, as_of: instant(o.asOf) },
        o,
      ),
    requests: (wallet_address, o = {}) =>
      call(
        'listRequests',
        { wallet_address },
        { next: o.next, limit: o.limit, status: o.status, vault_id: o.vaultId, include_hidden: o.includeHidden, as_of: instant(o.asOf) },
        o,
      ),
    price: (o) => call('getPrice', {}, { chain_id: o.chainId, address: o.address, at: instant(o.at) }, o),
    priceTimeseries: (o) =>
      call(
        'getPriceTimeseries',
        {},
        { chain_id: o.chainId, address: o.address, start: instant(o.start)!, end: instant(o.end)!, granularity: o.granularity, limit: o.limit },
        o,
      ),
  };

  const api = Object.fromEntries(
    Object.entries(withResponse).map(([name, fn]) => [
      name,
      (...args: unknown[]) => (fn as (...a: unknown[]) => Promise<Answer<unknown>>)(...args).then((a) => a.body),
    ]),
  ) as VaultdApi;

  async function* pages<T>(load: (next: string | undefined) => Promise<{ data: T[]; meta: { next_cursor: string | null } }>, first: string | undefined) {
    let next = first;
    let restarted = false;
    do {
      let page: Awaited<ReturnType<typeof load>>;
      try {
        page = await load(next);
      } catch (e) {
        // the walk's pinned data lost rows to a reorg: start again, once, from the first page
        if (!(e instanceof CursorStaleError) || restarted) throw e;
        restarted = true;
        next = undefined;
        page = await load(next);
      }
      yield* page.data;
      const cursor = page.meta.next_cursor ?? undefined;
      // a server that hands back the cursor it was given would loop forever
      if (cursor !== undefined && cursor === next)
        throw new VaultdClientError('UNEXPECTED_RESPONSE', `the page after cursor "${cursor}" has the same next_cursor`);
      next = cursor;
    } while (next !== undefined);
  }

  const iterate: VaultdIterators = {
    vaults: (o = {}) => pages((next) => api.vaults({ ...o, next }), o.next),
    timeseries: (id, o = {}) => pages((next) => api.timeseries(id, { ...o, next }), o.next),
    positions: (wallet, o = {}) => pages((next) => api.positions(wallet, { ...o, next }), o.next),
    positionTimeseries: (wallet, id, o = {}) => pages((next) => api.positionTimeseries(wallet, id, { ...o, next }), o.next),
    lots: (wallet, id, o = {}) => pages((next) => api.lots(wallet, id, { ...o, next }), o.next),
    activity: (wallet, o = {}) => pages((next) => api.activity(wallet, { ...o, next }), o.next),
    requests: (wallet, o = {}) => pages((next) => api.requests(wallet, { ...o, next }), o.next),
  };

  const client: VaultdClient = {
    ...api,
    baseUrl: transport.baseUrl,
    withResponse,
    iterate,
    waitForSettlement: (o) => waitForSettlement(client, o),
    stream: (o) => openStream(transport.baseUrl, options.apiKey, o),
  };
  return client;
}
