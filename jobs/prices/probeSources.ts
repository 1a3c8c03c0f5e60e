// Every configured price provider and external TVL source asked for one value (`vaultd config
// check --probe`), through the same code a round runs, but writing nothing and retrying
// nothing: a Chainlink feed's latestRoundData, an HTTP provider's current price of its first
// token, a TVL source's reading.
import type { Hex } from 'viem';
import type { Common } from '../../common/common.js';
import type { Config } from '../../common/config.js';
import { VaultdError } from '../../common/errors.js';
import { formatUnits, isoSeconds } from '../../model/format/numbers.js';
import type { PriceRow } from '../../model/rows.js';
import { createChainRpc } from '../evm/chainRpc.js';
import { classifyRpcError } from '../evm/rpcErrors.js';
import { aggregatorAbi } from './chainlinkProvider.js';
import { createHttpPriceProvider } from './httpPriceProvider.js';
import { HOUR, hourFloor, type PriceRoundContext, type PriceToken } from './priceProvider.js';
import { readTvlSource } from './tvlSources.js';

export interface SourceProbe {
  /** the configuration key asked: "prices.providers.0", "prices.providers.0.feeds.1", "tvl_sources.2" */
  name: string;
  ok: boolean;
  detail: string;
  ms: number;
}

const NO_RETRY = { attempts: 1, baseMs: 0, maxMs: 0 };

type ProbeConfig = Pick<Config, 'chains' | 'registry' | 'prices' | 'tvl_sources'>;

export async function probePriceProviders(common: Common, config: ProbeConfig, opts: { timeoutMs?: number; now?: number } = {}): Promise<SourceProbe[]> {
  const out: SourceProbe[] = [];
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  for (const [i, p] of config.prices.providers.entries()) {
    const label = `prices.providers.${i}`;
    if (p.kind === 'demo') {
      out.push({ name: label, ok: true, detail: "demo: the demo world's simulated prices (nothing to ask)", ms: 0 });
      continue;
    }
    if (p.kind === 'static') {
      out.push({ name: label, ok: true, detail: `static: ${p.prices.length} fixed price(s), e.g. ${p.prices[0]?.usd ?? '-'} USD`, ms: 0 });
      continue;
    }
    if (p.kind === 'chainlink') {
      const chain = config.chains.find((c) => c.chain_id === p.chain_id);
      if (!chain || chain.rpc_urls.length === 0) {
        out.push({ name: label, ok: false, detail: `chainlink: chain ${p.chain_id} is not in "chains" with an rpc_urls entry; add it there`, ms: 0 });
        continue;
      }
      const rpc = createChainRpc(common, chain, { timeoutMs: opts.timeoutMs ?? 10_000, batch: false, retry: NO_RETRY });
      for (const [j, feed] of p.feeds.entries()) {
        const t0 = performance.now();
        const name = `${label}.feeds.${j}`;
        const what = `chainlink:${p.chain_id} ${feed.aggregator}`;
        try {
          const address = feed.aggregator as Hex;
          const [decimals, round] = await Promise.all([
            rpc.client.readContract({ address, abi: aggregatorAbi, functionName: 'decimals' }),
            rpc.client.readContract({ address, abi: aggregatorAbi, functionName: 'latestRoundData' }),
          ]);
          const age = now - Number(round[3]);
          const stale = age > p.max_age_seconds;
          out.push({
            name,
            ok: !stale,
            detail: `${what}: ${formatUnits(round[1], decimals)} USD for ${feed.token}, updated ${isoSeconds(Number(round[3]))}${stale ? ` — older than max_age_seconds (${p.max_age_seconds}): hours would go unpriced` : ''}`,
            ms: Math.round(performance.now() - t0),
          });
        } catch (err) {
          out.push({
            name,
            ok: false,
            detail: `${what}: latestRoundData failed (${classifyRpcError(err).message}) — check the aggregator address and the chain`,
            ms: Math.round(performance.now() - t0),
          });
        }
      }
      continue;
    }
    // http: the provider's own round for its first token's current hour, its rows kept here
    const tokens = registryTokens(config);
    const first = p.tokens?.[0] ?? tokens[0];
    if (first === undefined) {
      out.push({ name: label, ok: true, detail: `http:${p.format}: no token to price (no "tokens" and no registry vaults)`, ms: 0 });
      continue;
    }
    // one token, and any observation within the hour counts (a round wants it within
    // tolerance_seconds of the hour, which a probe at :45 would miss)
    const token = { chain_id: first.chain_id, address: first.address, ...('id' in first && first.id ? { id: first.id } : {}) };
    const one = { ...p, tokens: [token], tolerance_seconds: HOUR };
    const rows: PriceRow[] = [];
    const newest = hourFloor(now);
    const ctx: PriceRoundContext = {
      common,
      logger: common.logger,
      now,
      chains: config.chains,
      tokens,
      lastStored: () => newest - HOUR,
      historyStart: () => newest,
      commit: async (batch) => {
        rows.push(...batch);
        return 0;
      },
      read: () => Promise.reject(new VaultdError('INTERNAL', 'a probe reads no store')),
    };
    const t0 = performance.now();
    try {
      await createHttpPriceProvider(one, { retry: NO_RETRY }).round(ctx);
      const row = rows[0];
      out.push({
        name: label,
        ok: row !== undefined,
        detail: `http:${p.format}: ${row ? `${row.usd} USD for` : 'no price for'} ${first.chain_id}:${first.address.toLowerCase()}`,
        ms: Math.round(performance.now() - t0),
      });
    } catch (err) {
      out.push({ name: label, ok: false, detail: err instanceof VaultdError ? err.message : String(err), ms: Math.round(performance.now() - t0) });
    }
  }
  return out;
}

export async function probeTvlSources(config: Pick<Config, 'tvl_sources'>, opts: { now?: number } = {}): Promise<SourceProbe[]> {
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  return Promise.all(
    config.tvl_sources.map(async (s, i) => {
      const t0 = performance.now();
      const r = await readTvlSource(s, { now });
      return {
        name: `tvl_sources.${i}`,
        ok: r.error === null,
        detail: `${s.kind} "${s.id}": ${r.error ?? `${r.usd} USD`}`,
        ms: Math.round(performance.now() - t0),
      };
    }),
  );
}

/** The registry's numeraires: what an HTTP provider prices when it lists no tokens. */
function registryTokens(config: Pick<Config, 'registry'>): PriceToken[] {
  const seen = new Map<string, PriceToken>();
  for (const v of config.registry.vaults) {
    const address = v.numeraire_token.address.toLowerCase();
    seen.set(`${v.chain_id}:${address}`, { chain_id: v.chain_id, address, symbol: v.numeraire_token.symbol });
  }
  return [...seen.values()];
}
