// /v1/vaults, /featured, /slug/{slug}, /{vault_id}, /definition, /allocations (seed, DESIGN §5.2).
import { includeKey, includes, parseQuery, parseVaultId } from '../params.js';
import type { Body } from '../reply.js';
import { found, notFound, pageOr404, ready, type RouteContext } from './context.js';

export function vaultsList(ctx: RouteContext): Body {
  const model = ready(ctx);
  const q = parseQuery('vaults.list', ctx.query);
  const route = '/v1/vaults';
  const filters = { include_hidden: q.include_hidden };
  const after = q.next === undefined ? null : (ctx.cursors.decode(q.next, route, filters, 'desc') as [number, string]);
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
      next_cursor: answer.nextKey ? ctx.cursors.encode(route, filters, 'desc', answer.nextKey) : null,
      partial_errors: null,
    },
    etagKey: `${route}|${q.include_hidden}|${answer.offset}|${q.limit}${inc ? `|include=${includeKey(inc)}` : ''}`,
  };
}

export function vaultsFeatured(ctx: RouteContext): Body {
  return pageOr404(ready(ctx).featured(), 'featured vaults are not published');
}

export function vaultsSlug(ctx: RouteContext): Body {
  const slug = ctx.params.slug!;
  return pageOr404(ready(ctx).slug(slug), `no vault with slug "${slug.slice(0, 100)}"`);
}

function vaultPage(ctx: RouteContext, part: 'detail' | 'definition' | 'allocations'): Body {
  const model = ready(ctx);
  const id = parseVaultId(ctx.params.vault_id!);
  return pageOr404(model.vault(id, part), `no vault "${id}"`);
}

export function vaultsGet(ctx: RouteContext): Body {
  const q = parseQuery('vaults.get', ctx.query);
  if (!includes(q.include)) return vaultPage(ctx, 'detail');
  // include=provenance,quality (DESIGN §11.2, §11.3): the detail with blocks in its metrics
  const model = ready(ctx);
  const id = parseVaultId(ctx.params.vault_id!);
  const detail = model.vaultDetailWith(id, q.include);
  if (!detail) throw notFound(`no vault "${id}"`);
  return { kind: 'json', data: null, dataRaw: detail, meta: null, etagKey: `/v1/vaults/${id}|include=${includeKey(q.include)}` };
}

/** /v1/vaults/{vault_id}/apy: how each APY window was computed (DESIGN §11.2). */
export function vaultsApy(ctx: RouteContext): Body {
  const model = ready(ctx);
  const id = enabledVault(ctx);
  const q = parseQuery('vaults.apy', ctx.query);
  const data = found(model.vaultApy(id, q.at));
  return { kind: 'json', data, meta: null, etagKey: `/v1/vaults/${id}/apy|${q.at ?? ''}` };
}
export const vaultsDefinition = (ctx: RouteContext) => vaultPage(ctx, 'definition');
export const vaultsAllocations = (ctx: RouteContext) => vaultPage(ctx, 'allocations');

/** The enabled vault's id, or 404 (disabled and unknown vaults look the same). */
export function enabledVault(ctx: RouteContext, param = 'vault_id'): string {
  const id = parseVaultId(ctx.params[param]!, param);
  if (!ready(ctx).hasVault(id)) throw notFound(`no vault "${id}"`);
  return id;
}
