// The prices job (DESIGN §1, §2, §6.3): on `schedules.prices`, every configured USD price
// provider in config order (the first to write a token-hour wins), then every external TVL
// source. One failing provider or source never stops the others; its error is logged, counted
// and returned. Rounds never overlap; the database is opened per round.
import { oneLineError } from '../../common/oneLine.js';
import { Counter } from 'prom-client';
import type { Common } from '../../common/common.js';
import type { Config } from '../../common/config.js';
import { VaultdError, describeError, isStopped } from '../../common/errors.js';
import { createRawWriter } from '../../store/rawWriter.js';
import type { PriceRow } from '../../model/rows.js';
import type { Store } from '../../store/store.js';
import { lastPriceHours, priceHistoryStarts, priceTokens } from '../../store/prices.js';
import { syncTvlSources } from '../../store/registryStore.js';
import { PRICE_PROVIDER_ERRORS, setSetting } from '../../store/settings.js';
import { createMutex } from '../../common/mutex.js';
import { createChainlinkProvider, type ChainlinkProviderOptions } from './chainlinkProvider.js';
import { createHttpPriceProvider } from './httpPriceProvider.js';
import {
  HOUR,
  hourFloor,
  type PriceProvider,
  type PriceProviderConfig,
  type PriceRoundContext,
  type PriceToken,
  type ProviderRoundResult,
} from './priceProvider.js';
import { readTvlSource, type TvlSourceConfig } from './tvlSources.js';

export interface TvlReading {
  source_id: string;
  usd: string | null;
  error: string | null;
}

export interface PriceRoundResult {
  providers: ProviderRoundResult[];
  tvl_sources: TvlReading[];
  /** price rows added */
  rows: number;
  /** oldest hour added by any provider */
  oldest: number | null;
  ms: number;
}

export interface PriceRuntime {
  readonly chains: Config['chains'];
  readonly providers: readonly PriceProvider[];
  readonly tvlSources: readonly TvlSourceConfig[];
}

export { hasPriceWork } from './priceProvider.js';

/** Builds the providers; a provider naming a chain the config does not list fails fast. */
export function createPriceRuntime(
  common: Common,
  config: Pick<Config, 'chains' | 'registry' | 'prices' | 'tvl_sources'>,
  opts: { chainlink?: ChainlinkProviderOptions } = {},
): PriceRuntime {
  const providers = config.prices.providers.map((p, i) => createProvider(common, config, p, i, opts));
  return { chains: config.chains, providers, tvlSources: config.tvl_sources };
}

function createProvider(
  common: Common,
  config: Pick<Config, 'chains' | 'registry'>,
  p: PriceProviderConfig,
  i: number,
  opts: { chainlink?: ChainlinkProviderOptions },
): PriceProvider {
  switch (p.kind) {
    case 'chainlink': {
      const chain = config.chains.find((c) => c.chain_id === p.chain_id);
      if (!chain || chain.rpc_urls.length === 0) {
        throw new VaultdError('CONFIG_INVALID', `prices.providers.${i}.chain_id: chain ${p.chain_id} is not in "chains" with an rpc_urls entry; add it there`);
      }
      const starts = config.registry.vaults.filter((v) => v.chain_id === p.chain_id && v.start_block !== undefined).map((v) => v.start_block!);
      // null: the earliest deployment block of its aggregators, found at the first round
      const start = p.start_block ?? (starts.length > 0 ? Math.min(...starts) : null);
      return createChainlinkProvider(common, p, chain, start, opts.chainlink);
    }
    case 'http':
      return createHttpPriceProvider(p);
    case 'static':
      return createStaticProvider(p);
    case 'demo':
      // the demo world writes its simulated prices itself, hour by hour (jobs/demo)
      return { name: 'demo', round: async () => ({ rows: 0, tokens: 0, oldest: null }) };
  }
}

/** Fixed prices, one row per hour from each token's history start to the current hour. */
export function createStaticProvider(cfg: Extract<PriceProviderConfig, { kind: 'static' }>): PriceProvider {
  const name = 'static';
  return {
    name,
    async round(ctx) {
      let rows = 0;
      let oldest: number | null = null;
      const end = hourFloor(ctx.now);
      for (const p of cfg.prices) {
        const address = p.address.toLowerCase();
        const last = ctx.lastStored(p.chain_id, address);
        const from = last === null ? ctx.historyStart(p.chain_id, address) : last + HOUR;
        const batch: PriceRow[] = [];
        for (let ts = from; ts <= end; ts += HOUR) batch.push({ chain_id: p.chain_id, address, ts, usd: p.usd, source: name });
        const added = await ctx.commit(batch);
        rows += added;
        if (added > 0) oldest = Math.min(oldest ?? Infinity, from);
      }
      return { rows, tokens: cfg.prices.length, oldest };
    },
  };
}

function providerRuns(common: Common): Counter {
  const existing = common.metrics.getSingleMetric('vaultd_price_provider_runs_total');
  if (existing) return existing as Counter;
  return new Counter({
    name: 'vaultd_price_provider_runs_total',
    help: 'Price provider and external TVL source runs by source and outcome',
    labelNames: ['source', 'outcome'],
    registers: [common.metrics],
  });
}

export { syncTvlSources } from '../../store/registryStore.js';

/**
 * One round of every provider and TVL source against an open store. A stop (`signal`) ends it
 * before the next provider or feed range; what was committed stays.
 */
export async function runPriceRound(
  common: Common,
  store: Store,
  runtime: PriceRuntime,
  now = Date.now() / 1000,
  signal?: AbortSignal,
): Promise<PriceRoundResult> {
  const started = performance.now();
  const logger = common.logger.child({ component: 'prices' });
  const runs = providerRuns(common);
  const lock = createMutex();
  const last = new Map<string, number>();
  const key = (chainId: number, address: string) => `${chainId}:${address}`;
  for (const r of await lastPriceHours(store)) {
    last.set(key(r.chain_id, r.address), r.last);
  }
  const starts = new Map<string, number>();
  for (const r of await priceHistoryStarts(store)) {
    starts.set(key(r.chain_id, r.address), r.first);
  }
  const tokens: PriceToken[] = (await priceTokens(store)).map((t) => ({ ...t }));

  const ctx: PriceRoundContext = {
    common,
    logger,
    now,
    signal,
    chains: runtime.chains,
    tokens,
    lastStored: (chainId, address) => last.get(key(chainId, address.toLowerCase())) ?? null,
    historyStart: (chainId, address) => hourFloor(starts.get(key(chainId, address.toLowerCase())) ?? now),
    read: (work) => lock.run(() => work(store)),
    commit: (rows, also) =>
      lock.run(async () => {
        const writer = await createRawWriter(store, 'dedupe');
        for (const r of rows) writer.sink.price(r);
        const added = await store.transaction('prices.commit', async () => {
          const n = await writer.finish();
          if (also) await also(store);
          return n.prices;
        });
        for (const r of rows) {
          const k = key(r.chain_id, r.address);
          if (r.ts > (last.get(k) ?? -Infinity)) last.set(k, r.ts);
        }
        return added;
      }),
  };

  const providers: ProviderRoundResult[] = [];
  for (const p of runtime.providers) {
    signal?.throwIfAborted();
    try {
      const r = await p.round(ctx);
      providers.push({ provider: p.name, ...r, status: 'ok' });
      runs.inc({ source: p.name, outcome: 'ok' });
      if (r.rows > 0) logger.info({ provider: p.name, rows: r.rows, tokens: r.tokens }, 'prices stored');
    } catch (err) {
      if (isStopped(err)) throw err;
      const error = describeError(err);
      providers.push({ provider: p.name, rows: 0, tokens: 0, oldest: null, status: 'failed', error });
      runs.inc({ source: p.name, outcome: 'error' });
      logger.error({ provider: p.name, error }, 'price provider failed; the others went on');
    }
  }

  const failed = providers.filter((p) => p.status === 'failed').map((p) => ({ provider: p.provider, error: oneLineError(p.error ?? 'failed') }));
  await lock.run(() => setSetting(store, PRICE_PROVIDER_ERRORS, JSON.stringify(failed)));
  signal?.throwIfAborted();
  await lock.run(() => syncTvlSources(store, { tvl_sources: [...runtime.tvlSources] }));
  const readings = await Promise.all(runtime.tvlSources.map((s) => readTvlSource(s, { now, signal })));
  signal?.throwIfAborted();
  if (readings.length > 0) {
    const writer = await createRawWriter(store, 'dedupe');
    for (const r of readings) writer.sink.tvlSourceValue(r);
    await lock.run(() => store.transaction('tvl_sources.commit', () => writer.finish()));
  }
  for (const r of readings) {
    runs.inc({ source: `tvl:${r.source_id}`, outcome: r.error === null ? 'ok' : 'error' });
    if (r.error !== null) logger.warn({ source_id: r.source_id, error: r.error }, 'external TVL source failed; its last good value stays');
  }

  const rows = providers.reduce((n, p) => n + p.rows, 0);
  const olds = providers.map((p) => p.oldest).filter((t): t is number => t !== null);
  const result: PriceRoundResult = {
    providers,
    tvl_sources: readings.map((r) => ({ source_id: r.source_id, usd: r.usd, error: r.error })),
    rows,
    oldest: olds.length > 0 ? Math.min(...olds) : null,
    ms: Math.round(performance.now() - started),
  };
  logger.info(
    { rows, providers: providers.length, failed: providers.filter((p) => p.status === 'failed').length, tvl_sources: readings.length, ms: result.ms },
    'prices round done',
  );
  return result;
}

/** One line per provider and source, for `vaultd ingest`. */
export function formatPriceSummary(r: PriceRoundResult): string[] {
  const lines = r.providers.map(
    (p) => `prices ${p.provider}: ${p.rows} rows for ${p.tokens} tokens — ${p.status === 'ok' ? 'ok' : `failed: ${oneLineError(p.error ?? 'unknown error')}`}`,
  );
  for (const t of r.tvl_sources) lines.push(`tvl source ${t.source_id}: ${t.error === null ? `${t.usd} USD — ok` : `failed: ${oneLineError(t.error)}`}`);
  return lines;
}
