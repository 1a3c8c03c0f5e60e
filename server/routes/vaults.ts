// /v1/vaults, /featured, /slug/{slug}, /{vault_id}, /definition, /allocations (seed, DESIGN §5.2).
import { parseQuery, parseVaultId } from '../params.js';
import type { Body } from '../reply.js';
import type { ReadModel } from '../../engine/publish/index.js';
import { asOfOnly, notFound, pageOr404, pinned, ready, type RouteContext, viewAt } from './context.js';

export function vaultsList(ctx: RouteContext): Body {
  const base = ready(ctx);
  const q = parseQuery('vaults.list', ctx.query);
  const view = viewAt(base, q.as_of);
  const route = '/v1/vaults';
  const filters = { include_hidden: q.include_hidden, as_of: q.as_of };
  const after = q.next === undefined ? null : (ctx.cursors.decode(q.next, route, filters, 'desc') as [number, string]);
  const model = pinned(view, q.next, ctx.cursors);
  const answer = model.vaultList({ includeHidden: q.include_hidden, after, limit: q.limit });
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
    etagKey: `${route}|${q.include_hidden}|${answer.offset}|${q.limit}`,
  };
}

export function vaultsFeatured(ctx: RouteContext): Body {
  return pageOr404(viewAt(ready(ctx), asOfOnly(ctx)).featured(), 'featured vaults are not published');
}

export function vaultsSlug(ctx: RouteContext): Body {
  const slug = ctx.params.slug!;
  return pageOr404(viewAt(ready(ctx), asOfOnly(ctx)).slug(slug), `no vault with slug "${slug.slice(0, 100)}"`);
}

function vaultPage(ctx: RouteContext, part: 'detail' | 'definition' | 'allocations'): Body {
  const model = ready(ctx);
  const id = parseVaultId(ctx.params.vault_id!);
  return pageOr404(viewAt(model, asOfOnly(ctx)).vault(id, part), `no vault "${id}"`);
}

export const vaultsGet = (ctx: RouteContext) => vaultPage(ctx, 'detail');
export const vaultsDefinition = (ctx: RouteContext) => vaultPage(ctx, 'definition');
export const vaultsAllocations = (ctx: RouteContext) => vaultPage(ctx, 'allocations');

/** The vault's id when it is enabled in `model`, or 404 (disabled, unknown and not yet listed vaults look the same). */
export function enabledVault(ctx: RouteContext, model: ReadModel, param = 'vault_id'): string {
  const id = parseVaultId(ctx.params[param]!, param);
  if (!model.hasVault(id)) throw notFound(`no vault "${id}"`);
  return id;
}
