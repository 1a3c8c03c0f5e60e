// USD prices from a public coin-price HTTP API (DESIGN §6.3): the DefiLlama coins API or
// CoinGecko's. Past hours come from the history endpoint, the newest hour from the current
// one; an hour's price is the observation nearest to it within `tolerance_seconds`, kept as the
// exact digits of the response (truncated to 18 places, DECIMAL(38,18)).
import { describeError, VaultdError } from '../../common/errors.js';
import { decimalString, scaledDecimal } from '../../model/format/numbers.js';
import type { PriceRow } from '../../model/rows.js';
import { withRetry, type RetryOptions } from '../evm/retry.js';
import { classifyFetchError, displayUrl, fetchExactJson, jsonKind, JsonNumber, type ExactJson } from './exactJson.js';
import { HOUR, hourFloor, type PriceProvider, type PriceProviderConfig, type PriceRoundContext } from './priceProvider.js';

export type HttpPriceProviderConfig = Extract<PriceProviderConfig, { kind: 'http' }>;

export interface HttpPriceProviderDeps {
  fetch?: typeof fetch;
  /** retry of 429 / 5xx / connection failures (default: 5 attempts, 0.5 s doubling to 15 s) */
  retry?: RetryOptions;
  sleep?: (ms: number) => Promise<void>;
}

export const HTTP_PRICE_RETRY: RetryOptions = { attempts: 5, baseMs: 500, maxMs: 15_000 };

/** DefiLlama chain names of the common chains, used when neither `chain_names` nor the chain's slug is given. */
export const DEFILLAMA_CHAINS: Readonly<Record<number, string>> = {
  1: 'ethereum',
  10: 'optimism',
  56: 'bsc',
  100: 'xdai',
  130: 'unichain',
  137: 'polygon',
  146: 'sonic',
  250: 'fantom',
  324: 'era',
  1101: 'polygon_zkevm',
  5000: 'mantle',
  8453: 'base',
  34443: 'mode',
  42161: 'arbitrum',
  42220: 'celo',
  43114: 'avax',
  59144: 'linea',
  80094: 'berachain',
  81457: 'blast',
  534352: 'scroll',
};

/** A price observation: its time (unix s) and the raw JSON value of its price. */
export interface Observation {
  t: number;
  price: ExactJson;
}

/**
 * For each hour from `from` to `to` (both on the hour), the observation nearest to it with
 * |t − hour| ≤ `tolerance`; ties go to the earlier observation, equal times to the first given.
 * Hours with none are left out. Linear after the sort.
 */
export function nearestPerHour<T extends { t: number }>(obs: readonly T[], from: number, to: number, tolerance: number): { ts: number; obs: T }[] {
  const sorted = [...obs].sort((a, b) => a.t - b.t); // stable: equal times keep their order
  const out: { ts: number; obs: T }[] = [];
  let j = 0;
  for (let h = from; h <= to; h += HOUR) {
    while (j < sorted.length && sorted[j]!.t < h - tolerance) j++;
    let best: T | undefined;
    let bestDist = Infinity;
    for (let k = j; k < sorted.length && sorted[k]!.t <= h + tolerance; k++) {
      const d = Math.abs(sorted[k]!.t - h);
      if (d < bestDist) {
        best = sorted[k];
        bestDist = d;
      }
    }
    if (best !== undefined) out.push({ ts: h, obs: best });
  }
  return out;
}

const USD_PRICE_DECIMALS = 18;

/** A JSON price (number or numeric string) as the stored USD string: truncated at 18 places; negatives and non-numbers rejected. */
export function priceString(v: ExactJson): { ok: true; usd: string } | { ok: false; reason: string } {
  const text = v instanceof JsonNumber ? v.text : typeof v === 'string' ? v.trim() : null;
  if (text === null) return { ok: false, reason: `${jsonKind(v)}, not a number` };
  const d = decimalString(text, USD_PRICE_DECIMALS, 'down');
  if (!d.ok)
    return { ok: false, reason: d.reason === 'too large' ? `${text.slice(0, 40)} does not fit DECIMAL(38,18)` : `"${text.slice(0, 40)}" is not a number` };
  const mantissa = text.split(/[eE]/)[0]!;
  if (mantissa.startsWith('-') && /[1-9]/.test(mantissa)) return { ok: false, reason: `${text.slice(0, 40)} is negative` };
  return { ok: true, usd: d.value };
}

/** A JSON timestamp in seconds or milliseconds as whole unix seconds (floored), or null. */
export function unixSeconds(v: ExactJson, unit: 's' | 'ms'): number | null {
  const text = v instanceof JsonNumber ? v.text : typeof v === 'string' ? v : null;
  if (text === null) return null;
  const s = scaledDecimal(text, unit === 'ms' ? -3 : 0, 'down');
  if (s === null || 'tooLarge' in s || s.units < 0n) return null;
  const n = Number(s.units);
  return Number.isSafeInteger(n) ? n : null;
}

interface TokenPlan {
  chain_id: number;
  address: string;
  /** the API's key for the token (DefiLlama "chain:address" or coin id; CoinGecko coin id) */
  key: string;
  /** first hour wanted (the last is the round's newest hour) */
  from: number;
}

type Get = (url: string) => Promise<ExactJson>;

/** One coin-price API format: how tokens are keyed, and its history and current endpoints. */
interface PriceApi {
  /** keys per history request, and hours per history request */
  readonly historyBatch: number;
  readonly historyHours: number;
  readonly currentBatch: number;
  /** what to check when a coin is missing from an answer */
  readonly missingHint: string;
  /** observations for the hours from `a` to `b` (inclusive), by lowercase key */
  history(get: Get, keys: string[], a: number, b: number): Promise<{ url: string; obs: Map<string, Observation[]> }>;
  /** the newest observation per lowercase key (missing keys absent) */
  current(get: Get, keys: string[]): Promise<{ url: string; obs: Map<string, Observation> }>;
}

const isObject = (v: ExactJson | undefined): v is { [key: string]: ExactJson } =>
  v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonNumber);

/** Query parameters that carry no secret and help read an error. */
const SHOWN_PARAMS = ['start', 'span', 'period', 'searchWidth', 'ids', 'vs_currencies', 'include_last_updated_at', 'vs_currency', 'from', 'to'];

const DEFAULT_BASE_URL = { defillama: 'https://coins.llama.fi', coingecko: 'https://api.coingecko.com/api/v3' } as const;
const SHAPE_HINT = {
  defillama: 'check that base_url points at the DefiLlama coins API',
  coingecko: 'check that base_url points at the CoinGecko API v3',
} as const;

/** JSON of the wrong shape: not retried (the same URL would answer the same). */
function shapeError(format: keyof typeof SHAPE_HINT, url: string, what: string): VaultdError {
  const shown = displayUrl(url, SHOWN_PARAMS);
  return new VaultdError('SOURCE_FAILED', `GET ${shown} answered JSON of the wrong shape (${what}) — ${SHAPE_HINT[format]}`, {
    details: { kind: 'garbage', url: shown },
  });
}

/** Entries of an object answer, keys lowercased (APIs may echo a key in another case). */
function lowerEntries(obj: { [key: string]: ExactJson }): [string, ExactJson][] {
  return Object.entries(obj).map(([k, v]) => [k.toLowerCase(), v]);
}

const pathKey = (key: string) => encodeURIComponent(key).replace(/%3A/gi, ':');

function defillamaApi(base: string, now: number, tolerance: number): PriceApi {
  const shape = (url: string, what: string) => shapeError('defillama', url, what);
  return {
    historyBatch: 20,
    historyHours: 500, // the chart endpoint caps `span`
    currentBatch: 20,
    missingHint: 'check the token address and its DefiLlama chain name (chain_names), or set its id',
    async history(get, keys, a, b) {
      const span = (b - a) / HOUR + 1;
      const params = `start=${a}&span=${span}&period=1h${tolerance > 0 ? `&searchWidth=${tolerance}` : ''}`;
      const url = `${base}/chart/${keys.map(pathKey).join(',')}?${params}`;
      const body = await get(url);
      const coins = isObject(body) ? body.coins : undefined;
      if (!isObject(coins)) throw shape(url, 'no "coins" object');
      const obs = new Map<string, Observation[]>();
      for (const [key, coin] of lowerEntries(coins)) {
        const prices = isObject(coin) ? coin.prices : undefined;
        if (!Array.isArray(prices)) throw shape(url, `"coins.${key}.prices" is not an array`);
        const list: Observation[] = [];
        for (const p of prices) {
          if (!isObject(p) || p.timestamp === undefined) continue;
          const t = unixSeconds(p.timestamp, 's');
          if (t !== null && t <= now) list.push({ t, price: p.price ?? null });
        }
        obs.set(key, list);
      }
      return { url, obs };
    },
    async current(get, keys) {
      const url = `${base}/prices/current/${keys.map(pathKey).join(',')}`;
      const body = await get(url);
      const coins = isObject(body) ? body.coins : undefined;
      if (!isObject(coins)) throw shape(url, 'no "coins" object');
      const obs = new Map<string, Observation>();
      for (const [key, coin] of lowerEntries(coins)) {
        if (!isObject(coin) || coin.timestamp === undefined) continue;
        const t = unixSeconds(coin.timestamp, 's');
        if (t !== null) obs.set(key, { t, price: coin.price ?? null });
      }
      return { url, obs };
    },
  };
}

function coingeckoApi(base: string, now: number, tolerance: number): PriceApi {
  const shape = (url: string, what: string) => shapeError('coingecko', url, what);
  return {
    historyBatch: 1,
    // hourly points only for ranges up to 90 days: 89 days of hours plus the tolerance on each side
    historyHours: 89 * 24,
    currentBatch: 50,
    missingHint: 'check the CoinGecko coin id',
    async history(get, keys, a, b) {
      const key = keys[0]!;
      const url = `${base}/coins/${encodeURIComponent(key)}/market_chart/range?vs_currency=usd&from=${a - tolerance}&to=${Math.min(b + tolerance, now)}`;
      const body = await get(url);
      const prices = isObject(body) ? body.prices : undefined;
      if (!Array.isArray(prices)) throw shape(url, 'no "prices" array');
      const list: Observation[] = [];
      for (const p of prices) {
        if (!Array.isArray(p) || p.length < 2) continue;
        const t = unixSeconds(p[0]!, 'ms');
        if (t !== null && t <= now) list.push({ t, price: p[1]! });
      }
      return { url, obs: new Map([[key.toLowerCase(), list]]) };
    },
    async current(get, keys) {
      const url = `${base}/simple/price?ids=${keys.map(encodeURIComponent).join(',')}&vs_currencies=usd&include_last_updated_at=true`;
      const body = await get(url);
      if (!isObject(body)) throw shape(url, 'not an object of coin ids');
      const obs = new Map<string, Observation>();
      for (const [key, coin] of lowerEntries(body)) {
        if (!isObject(coin) || coin.last_updated_at === undefined) continue;
        const t = unixSeconds(coin.last_updated_at, 's');
        if (t !== null) obs.set(key, { t, price: coin.usd ?? null });
      }
      return { url, obs };
    },
  };
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function createHttpPriceProvider(config: HttpPriceProviderConfig, deps: HttpPriceProviderDeps = {}): PriceProvider {
  const name = `http:${config.format}`;
  const retry = deps.retry ?? HTTP_PRICE_RETRY;
  const tolerance = config.tolerance_seconds;
  const base = (config.base_url ?? DEFAULT_BASE_URL[config.format]).replace(/\/+$/, '');

  /** The tokens to price this round with their keys and hour ranges; tokens without a key are logged and skipped. */
  function plan(ctx: PriceRoundContext): TokenPlan[] {
    const to = hourFloor(ctx.now);
    const floor = hourFloor(ctx.now - config.backfill_days * 86_400);
    const wanted: readonly { chain_id: number; address: string; id?: string | undefined }[] = config.tokens ?? ctx.tokens;
    const seen = new Set<string>();
    const plans: TokenPlan[] = [];
    const unkeyed: string[] = [];
    for (const t of wanted) {
      const address = t.address.toLowerCase();
      const id = `${t.chain_id}:${address}`;
      if (seen.has(id)) continue;
      seen.add(id);
      let key: string | undefined = t.id;
      if (key === undefined && config.format === 'defillama') {
        const chain = config.chain_names[String(t.chain_id)] ?? ctx.chains.find((c) => c.chain_id === t.chain_id)?.slug ?? DEFILLAMA_CHAINS[t.chain_id];
        if (chain !== undefined) key = `${chain}:${address}`;
      }
      if (key === undefined) {
        unkeyed.push(id);
        continue;
      }
      const last = ctx.lastStored(t.chain_id, address);
      const start = Math.ceil(ctx.historyStart(t.chain_id, address) / HOUR) * HOUR;
      const from = Math.max(last === null ? -Infinity : last + HOUR, start, floor);
      if (from <= to) plans.push({ chain_id: t.chain_id, address, key, from });
    }
    if (unkeyed.length > 0) {
      const why = config.format === 'coingecko' ? 'no CoinGecko id (set tokens[].id)' : 'no DefiLlama chain name (set chain_names or tokens[].id)';
      ctx.logger.warn({ provider: name, tokens: unkeyed }, `${name}: ${unkeyed.length} token(s) skipped: ${why}`);
    }
    return plans;
  }

  return {
    name,
    async round(ctx) {
      const api = (config.format === 'coingecko' ? coingeckoApi : defillamaApi)(base, ctx.now, tolerance);
      const newest = hourFloor(ctx.now);
      const plans = plan(ctx);

      const get: Get = (url) =>
        withRetry(
          () =>
            fetchExactJson(url, {
              headers: config.headers,
              timeoutMs: config.timeout_ms,
              showParams: SHOWN_PARAMS,
              ...(deps.fetch ? { fetch: deps.fetch } : {}),
              ...(ctx.signal ? { signal: ctx.signal } : {}),
            }),
          retry,
          {
            classify: classifyFetchError,
            ...(deps.sleep ? { sleep: deps.sleep } : {}),
            onRetry: (fault, attempt, delayMs) =>
              ctx.logger.warn(
                { provider: name, url: displayUrl(url, SHOWN_PARAMS), fault: fault.kind, attempt, delayMs },
                `${name}: retrying after ${fault.kind}`,
              ),
          },
        );

      const failures: { token: string; error: string }[] = [];
      const failed = new Set<TokenPlan>();
      const fail = (plans: readonly TokenPlan[], error: string) => {
        for (const p of plans) {
          failed.add(p);
          failures.push({ token: p.key, error });
        }
      };
      /** A failed request as one line (ours name the URL and what to check). */
      const explain = (err: unknown): string => (err instanceof VaultdError ? err.message : `${name}: request failed (${describeError(err)})`);

      let added = 0;
      let oldest: number | null = null;
      const priced = new Set<string>();
      const rejected: { token: string; ts: number; reason: string }[] = [];

      const rowsFor = (p: TokenPlan, obs: readonly Observation[], a: number, b: number): PriceRow[] => {
        const rows: PriceRow[] = [];
        for (const { ts, obs: o } of nearestPerHour(obs, a, b, tolerance)) {
          const price = priceString(o.price);
          if (price.ok) rows.push({ chain_id: p.chain_id, address: p.address, ts, usd: price.usd, source: name });
          else rejected.push({ token: p.key, ts, reason: price.reason });
        }
        return rows;
      };
      const commit = async (rows: PriceRow[]) => {
        if (rows.length === 0) return;
        const n = await ctx.commit(rows);
        added += n;
        for (const r of rows) priced.add(`${r.chain_id}:${r.address}`);
        // the batch's oldest hour stands for the oldest added (a row another provider wrote
        // first is not added): at worst the engine reloads a little more of the series
        if (n > 0) for (const r of rows) if (oldest === null || r.ts < oldest) oldest = r.ts;
        // a backfill's progress, one line per committed chunk
        ctx.logger.info({ provider: name, rows: n, through: rows[rows.length - 1]!.ts }, 'prices chunk committed');
      };

      // 1. Past hours from history, oldest chunk first and committed chunk by chunk, so a
      //    failure leaves no hole below a stored hour: the next round resumes where this stopped.
      const byFrom = new Map<number, TokenPlan[]>();
      for (const p of plans) if (p.from < newest) byFrom.set(p.from, [...(byFrom.get(p.from) ?? []), p]);
      for (const [from, group] of [...byFrom].sort((x, y) => x[0] - y[0])) {
        for (const batch of chunk(group, api.historyBatch)) {
          for (let a = from; a < newest; a += api.historyHours * HOUR) {
            ctx.signal?.throwIfAborted();
            const b = Math.min(a + (api.historyHours - 1) * HOUR, newest - HOUR);
            let res: Awaited<ReturnType<PriceApi['history']>>;
            try {
              res = await api.history(get, [...new Set(batch.map((p) => p.key))], a, b);
            } catch (err) {
              fail(batch, explain(err));
              break;
            }
            // a coin missing from a history answer just has no data there; the current
            // endpoint reports a coin the API does not know
            const rows: PriceRow[] = [];
            for (const p of batch) rows.push(...rowsFor(p, res.obs.get(p.key.toLowerCase()) ?? [], a, b));
            await commit(rows);
          }
        }
      }

      // 2. The newest hour from the current endpoint (skipped for tokens whose history failed,
      //    which would otherwise be stored above the hole).
      for (const batch of chunk(
        plans.filter((p) => !failed.has(p)),
        api.currentBatch,
      )) {
        ctx.signal?.throwIfAborted();
        let res: Awaited<ReturnType<PriceApi['current']>>;
        try {
          res = await api.current(get, [...new Set(batch.map((p) => p.key))]);
        } catch (err) {
          fail(batch, explain(err));
          continue;
        }
        const rows: PriceRow[] = [];
        for (const p of batch) {
          const o = res.obs.get(p.key.toLowerCase());
          if (o === undefined) fail([p], `GET ${displayUrl(res.url, SHOWN_PARAMS)} has no price for "${p.key}" — ${api.missingHint}`);
          else rows.push(...rowsFor(p, [o], newest, newest));
        }
        await commit(rows);
      }

      if (rejected.length > 0) {
        ctx.logger.warn(
          { provider: name, count: rejected.length, examples: rejected.slice(0, 5) },
          `${name}: ${rejected.length} price(s) rejected (not stored)`,
        );
      }
      if (failures.length > 0) {
        const messages = [...new Set(failures.map((f) => f.error))];
        const shown = messages.slice(0, 3).join('; ') + (messages.length > 3 ? `; and ${messages.length - 3} more` : '');
        throw new VaultdError('SOURCE_FAILED', `${name}: ${failures.length} of ${plans.length} token(s) not priced: ${shown}`, {
          details: { failures, rows: added, tokens: priced.size, oldest },
        });
      }
      return { rows: added, tokens: priced.size, oldest };
    },
  };
}
