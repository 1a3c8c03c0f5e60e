// /v1/prices (latest, or as of `at`) and /v1/prices/timeseries (DESIGN §5.2, §6.3).
import { isoSeconds } from '../../model/format/numbers.js';
import { invalid, parseQuery } from '../params.js';
import { JSON_TYPE, type Body } from '../reply.js';
import { found, ready, type RouteContext } from './context.js';

export function prices(ctx: RouteContext): Body {
  const q = parseQuery('prices', ctx.query);
  // The price object itself, flat (DESIGN §5.2): the request id travels only in X-Request-Id.
  return { kind: 'raw', body: found(ready(ctx).price(q.chain_id, q.address, q.at)), contentType: JSON_TYPE, cache: 'public' };
}

export function pricesTimeseries(ctx: RouteContext): Body {
  const q = parseQuery('prices.timeseries', ctx.query);
  if (q.start > q.end) throw invalid('start', `must not be after end (${isoSeconds(q.start)} > ${isoSeconds(q.end)})`);
  const body = found(ready(ctx).priceWindow(q.chain_id, q.address, { granularity: q.granularity, start: q.start, end: q.end, limit: q.limit }));
  return { kind: 'raw', body, contentType: JSON_TYPE, cache: 'public' };
}
