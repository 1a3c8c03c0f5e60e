// /v1/prices (latest, or as of `at`) and /v1/prices/timeseries (DESIGN §5.2, §6.3).
import { isoSeconds } from '../../model/format/numbers.js';
import { priceKey, type PriceSeries } from '../../model/world.js';
import { asOfIndex } from '../../engine/publish/door.js';
import { gridWindow } from '../../engine/publish/door.js';
import { priceBody } from '../../engine/publish/buildSnapshot.js';
import { invalid, parseQuery } from '../params.js';
import { JSON_TYPE, type Body } from '../reply.js';
import { notFound, ready, type RouteContext } from './context.js';

function token(ctx: RouteContext, address: string, chainId: number) {
  const served = ready(ctx);
  const key = priceKey(chainId, address);
  const latest = served.snapshot.latestPrices.get(key);
  const series = served.snapshot.world.prices.get(key);
  if (!latest || !series) throw notFound(`no USD price for token ${address.toLowerCase()} on chain ${chainId}`);
  return { served, key, latest, series };
}

export function prices(ctx: RouteContext): Body {
  const q = parseQuery('prices', ctx.query);
  const { served, key, latest, series } = token(ctx, q.address, q.chain_id);
  // The price object itself, flat (DESIGN §5.2): the request id travels only in X-Request-Id.
  if (q.at === undefined) return { kind: 'raw', body: served.snapshot.priceBodies.get(key)!, contentType: JSON_TYPE, cache: 'public' };
  const i = asOfIndex(series.ts, series.ts.length, q.at);
  if (i < 0) throw notFound(`no USD price for token ${latest.address} on chain ${q.chain_id} at or before ${isoSeconds(q.at)}`);
  const point = { ...latest, price: { decimals: latest.price.decimals, usd: series.usd_f[i]! }, timestamp: isoSeconds(series.ts[i]!) };
  return { kind: 'raw', body: priceBody(point), contentType: JSON_TYPE, cache: 'public' };
}

export function pricesTimeseries(ctx: RouteContext): Body {
  const q = parseQuery('prices.timeseries', ctx.query);
  if (q.start > q.end) throw invalid('start', `must not be after end (${isoSeconds(q.start)} > ${isoSeconds(q.end)})`);
  const { series } = token(ctx, q.address, q.chain_id);
  const points = q.granularity === 'raw' ? rawWindow(series, q.start, q.end, q.limit) : gridPrices(series, q.granularity, q.start, q.end, q.limit);
  return { kind: 'raw', body: Buffer.from(JSON.stringify({ data: points })), contentType: JSON_TYPE, cache: 'public' };
}

type PricePoint = { price: { usd: number }; timestamp: string };

function rawWindow(s: PriceSeries, start: number, end: number, limit: number): PricePoint[] {
  const out: PricePoint[] = [];
  for (let i = Math.max(0, asOfIndex(s.ts, s.ts.length, start - 1) + 1); i < s.ts.length && s.ts[i]! <= end && out.length < limit; i++) {
    out.push({ price: { usd: s.usd_f[i]! }, timestamp: isoSeconds(s.ts[i]!) });
  }
  return out;
}

function gridPrices(s: PriceSeries, granularity: 'hour' | 'day' | 'week' | 'month', start: number, end: number, limit: number): PricePoint[] {
  const { instants, indices } = gridWindow(s.ts, s.ts.length, granularity, { start, end, order: 'asc', limit });
  return instants.map((t, k) => ({ price: { usd: s.usd_f[indices[k]!]! }, timestamp: isoSeconds(t) }));
}
