// /v1/tvl (with the deprecated include_sources alias) and /v1/strategies (DESIGN §5.2).
import { parseQuery } from '../params.js';
import type { Body } from '../reply.js';
import { pageOr404, ready, type RouteContext } from './context.js';

export function tvl(ctx: RouteContext): Body {
  const served = ready(ctx);
  const q = parseQuery('tvl', ctx.query);
  const breakdown = q.include_breakdown ?? q.include_sources ?? false;
  const body = pageOr404(served, breakdown ? '/v1/tvl?include_breakdown=true' : '/v1/tvl', 'TVL is not published');
  if (q.include_sources === undefined || q.include_breakdown !== undefined) return body;
  // The deprecated alias works, and says so (RFC 8594 Deprecation, RFC 8288 Link).
  return {
    kind: 'json',
    data: breakdown ? { ...served.snapshot.tvl.data } : withoutBreakdown(served.snapshot.tvl.data),
    meta: { partial_errors: served.snapshot.tvl.partial_errors.length > 0 ? served.snapshot.tvl.partial_errors : null },
    etagKey: `/v1/tvl|include_sources=${breakdown}`,
    headers: [
      ['Deprecation', 'true'],
      ['Link', `</v1/tvl?include_breakdown=${breakdown}>; rel="successor-version"`],
    ],
  };
}

function withoutBreakdown<T extends { breakdown: unknown }>(data: T): Omit<T, 'breakdown'> {
  const { breakdown: _omitted, ...rest } = data;
  return rest;
}

export function strategies(ctx: RouteContext): Body {
  return pageOr404(ready(ctx), '/v1/strategies', 'strategies are not published');
}
