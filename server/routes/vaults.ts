// /v1/vaults, /featured, /slug/{slug}, /{vault_id}, /definition, /allocations (seed, DESIGN §5.2).
import { includeKey, includes, parseQuery, parseVaultId } from '../params.js';
import type { Body } from '../reply.js';
import type { ReadModel } from '../../engine/publish/index.js';
import { asOfOnly, found, notFound, pageOr404, pinned, ready, type RouteContext, viewAt } from './context.js';

export function vaultsList(ctx: RouteContext): Body {
  const base = ready(ctx);
  const q = parseQuery('vaults.list', ctx.query);
  const view = viewAt(base, q.as_of);
  const route = '/v1/vaults';
  const filters = { include_hidden: q.include_hidden, as_of: q.as_of };
  const after = q.next === undefined ? null : (ctx.cursors.decode(q.next, route, filters, 'desc') as [number, string]);
  const model = pinned(view, q.next, ctx.cursors);
  // include=quality (DESIGN §11.3): the same page with a quality block on each item's metrics
  const inc = includes(q.include) ? q.include : null;
  const answer = inc
    ? model.vaultListWith({ includeHidden: q.include_hidden, after, limit: q.limit })
    : model.vaultList({ includeHidden: q.include_hidden, after, limit: q.limit });
  if ('page' in answer) return { kind: 'page', page: answer.page };
  return {
    kind: 'json',
    data: null,
    dataItems: answer.parts,
    meta: {
      count: answer.count,
      limit: q.limit,
      next_cursor: answer.nextKey ? ctx.bind(model).encode(route, filters, 'desc', answer.nextKey) : null,
      partial_errors: null,
    },
    etagKey: `${route}|${q.include_hidden}|${answer.offset}|${q.limit}${inc ? `|include=${includeKey(inc)}` : ''}`,
    answeredBy: model,
  };
}

export function vaultsFeatured(ctx: RouteContext): Body {
  return pageOr404(viewAt(ready(ctx), asOfOnly(ctx)).featured(), 'featured vaults are not published');
}

export function vaultsSlug(ctx: RouteContext): Body {
  const slug = ctx.params.slug!;
  return pageOr404(viewAt(ready(ctx), asOfOnly(ctx)).slug(slug), `no vault with slug "${slug.slice(0, 100)}"`);
}

function vaultPage(ctx: RouteContext, part: 'detail' | 'definition' | 'allocations', asOf: number | undefined): Body {
  const model = ready(ctx);
  const id = parseVaultId(ctx.params.vault_id!);
  return pageOr404(viewAt(model, asOf).vault(id, part), `no vault "${id}"`);
}

export function vaultsGet(ctx: RouteContext): Body {
  const q = parseQuery('vaults.get', ctx.query);
  if (!includes(q.include)) return vaultPage(ctx, 'detail', q.as_of);
  // include=provenance,quality (DESIGN §11.2, §11.3): the detail with blocks in its metrics
  const model = viewAt(ready(ctx), q.as_of);
  const id = parseVaultId(ctx.params.vault_id!);
  const detail = model.vaultDetailWith(id, q.include);
  if (!detail) throw notFound(`no vault "${id}"`);
  return { kind: 'json', data: null, dataRaw: detail, meta: null, etagKey: `/v1/vaults/${id}|include=${includeKey(q.include)}`, answeredBy: model };
}

/** /v1/vaults/{vault_id}/apy: how each APY window was computed (DESIGN §11.2). */
export function vaultsApy(ctx: RouteContext): Body {
  const model = ready(ctx);
  const id = enabledVault(ctx, model);
  const q = parseQuery('vaults.apy', ctx.query);
  const data = found(model.vaultApy(id, q.at));
  return { kind: 'json', data, meta: null, etagKey: `/v1/vaults/${id}/apy|${q.at ?? ''}` };
}
export const vaultsDefinition = (ctx: RouteContext) => vaultPage(ctx, 'definition', asOfOnly(ctx));
export const vaultsAllocations = (ctx: RouteContext) => vaultPage(ctx, 'allocations', asOfOnly(ctx));

/** The vault's id when it is enabled in `model`, or 404 (disabled, unknown and not yet listed vaults look the same). */
export function enabledVault(ctx: RouteContext, model: ReadModel, param = 'vault_id'): string {
  const id = parseVaultId(ctx.params[param]!, param);
  if (!model.hasVault(id)) throw notFound(`no vault "${id}"`);
  return id;
}
