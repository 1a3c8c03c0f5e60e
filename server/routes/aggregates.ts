// /v1/tvl (with the deprecated include_sources alias) and /v1/strategies (DESIGN §5.2).
import { parseQuery } from '../params.js';
import type { Body } from '../reply.js';
import { asOfOnly, pageOr404, ready, type RouteContext, viewAt } from './context.js';

export function tvl(ctx: RouteContext): Body {
  const base = ready(ctx);
  const q = parseQuery('tvl', ctx.query);
  const model = viewAt(base, q.as_of);
  const breakdown = q.include_breakdown ?? q.include_sources ?? false;
  const body = pageOr404(model.tvl(breakdown), 'TVL is not published');
  if (q.include_sources === undefined || q.include_breakdown !== undefined) return body;
  // The deprecated alias works, and says so (RFC 8594 Deprecation, RFC 8288 Link).
  const { data, partialErrors } = model.tvlData(breakdown);
  return {
    kind: 'json',
    data,
    meta: { partial_errors: partialErrors.length > 0 ? partialErrors : null },
    etagKey: `/v1/tvl|include_sources=${breakdown}`,
    answeredBy: model,
    headers: [
      ['Deprecation', 'true'],
      ['Link', `</v1/tvl?include_breakdown=${breakdown}>; rel="successor-version"`],
    ],
  };
}

export function strategies(ctx: RouteContext): Body {
  return pageOr404(viewAt(ready(ctx), asOfOnly(ctx)).strategies(), 'strategies are not published');
}
