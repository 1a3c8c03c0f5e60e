// /v1/vaults, /featured, /slug/{slug}, /{vault_id}, /definition, /allocations (seed, DESIGN §5.2).
import { VAULT_LIST_LIMIT } from '../../engine/publish/buildSnapshot.js';
import type { VaultDetail } from '../../engine/publish/door.js';
import { parseQuery, parseVaultId } from '../params.js';
import type { Body } from '../reply.js';
import { notFound, pageOr404, ready, type RouteContext } from './context.js';

export function vaultsList(ctx: RouteContext): Body {
  const served = ready(ctx);
  const q = parseQuery('vaults.list', ctx.query);
  const items = q.include_hidden ? served.snapshot.vaultList.withHidden : served.snapshot.vaultList.visible;
  const route = '/v1/vaults';
  const filters = { include_hidden: q.include_hidden };
  let from = 0;
  if (q.next !== undefined) {
    const [listedAt, vaultId] = ctx.cursors.decode(q.next, route, filters, 'desc') as [number, string];
    // first item strictly after the cursor key in (listed_at desc, vault_id asc) order
    from = items.findIndex((d) => {
      const t = listedAtOf(served, d);
      return t < listedAt || (t === listedAt && d.vault_id > vaultId);
    });
    if (from < 0) from = items.length;
  } else if (q.limit === VAULT_LIST_LIMIT) {
    const page = served.snapshot.pages.get(q.include_hidden ? '/v1/vaults?include_hidden=true' : '/v1/vaults');
    if (page) return { kind: 'page', page };
  }
  const slice = items.slice(from, from + q.limit);
  const last = slice.at(-1);
  const more = from + q.limit < items.length;
  return {
    kind: 'json',
    data: slice,
    meta: {
      count: slice.length,
      limit: q.limit,
      next_cursor: more && last ? ctx.cursors.encode(route, filters, 'desc', [listedAtOf(served, last), last.vault_id]) : null,
      partial_errors: null,
    },
    etagKey: `${route}|${q.include_hidden}|${from}|${q.limit}`,
  };
}

function listedAtOf(served: NonNullable<RouteContext['served']>, d: VaultDetail): number {
  return served.snapshot.world.vaults.get(d.vault_id)!.listed_at;
}

export function vaultsFeatured(ctx: RouteContext): Body {
  return pageOr404(ready(ctx), '/v1/vaults/featured', 'featured vaults are not published');
}

export function vaultsSlug(ctx: RouteContext): Body {
  const slug = ctx.params.slug!;
  return pageOr404(ready(ctx), `/v1/vaults/slug/${slug}`, `no vault with slug "${slug.slice(0, 100)}"`);
}

function vaultPage(ctx: RouteContext, suffix: '' | '/definition' | '/allocations'): Body {
  const served = ready(ctx);
  const id = parseVaultId(ctx.params.vault_id!);
  return pageOr404(served, `/v1/vaults/${id}${suffix}`, `no vault "${id}"`);
}

export const vaultsGet = (ctx: RouteContext) => vaultPage(ctx, '');
export const vaultsDefinition = (ctx: RouteContext) => vaultPage(ctx, '/definition');
export const vaultsAllocations = (ctx: RouteContext) => vaultPage(ctx, '/allocations');

/** The enabled vault's id, or 404 (disabled and unknown vaults look the same). */
export function enabledVault(ctx: RouteContext, param = 'vault_id'): string {
  const id = parseVaultId(ctx.params[param]!, param);
  if (!ready(ctx).snapshot.details.has(id)) throw notFound(`no vault "${id}"`);
  return id;
}
