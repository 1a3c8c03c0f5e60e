// /v1/vaults, /featured, /slug/{slug}, /{vault_id}, /definition, /allocations (seed, DESIGN §5.2).
import { includeKey, includes, parseQuery, parseVaultId } from '../params.js';
import { type Body, type JsonBody, jsonPage } from '../reply.js';
import { type BoundedCache, createBoundedCache, type Page, type ReadModel } from '../../engine/publish/index.js';
import { asOfOnly, found, notFound, pageOr404, pinned, ready, type RouteContext, viewAt } from './context.js';

/**
 * Pages of the vault list that are not a fixed page of the snapshot (a catalogue past
 * VAULT_LIST_LIMIT vaults, another limit, a later page of a walk), per read model: made once,
 * then answered as a fixed page is (a lookup; compressed once per encoding) instead of
 * serializing up to a thousand vaults a request (3.3 ms at 1,500 vaults). By include_hidden,
 * cursor and limit: cursors are the server's own (signed, the same for the same position).
 * The latest model's only (a view of the past answers once); past LIST_PAGES_KEPT pages or
 * LIST_PAGE_BYTES, pages not asked for again go first (engine/publish/boundedCache.ts).
 */
const LIST_PAGES_KEPT = 32;
const LIST_PAGE_BYTES = 64 * 2 ** 20;
const listPages = new WeakMap<ReadModel, BoundedCache<string, Page>>();

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
  const keep = inc === null && model === base;
  const key = `${q.include_hidden}|${q.next ?? ''}|${q.limit}`;
  const kept = keep ? listPages.get(model)?.get(key) : undefined;
  if (kept) return { kind: 'page', page: kept };
  const answer = inc
    ? model.vaultListWith({ includeHidden: q.include_hidden, after, limit: q.limit })
    : model.vaultList({ includeHidden: q.include_hidden, after, limit: q.limit });
  if ('page' in answer) return { kind: 'page', page: answer.page };
  const body: JsonBody = {
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
    view: model,
  };
  if (!keep) return body;
  // the bytes and ETag the envelope would have had (server/reply.ts jsonPage), as one page
  const built = jsonPage(body, model.refreshedAt, model.id, model.asOf);
  const page: Page = { prefix: Buffer.concat([...built.head, built.page.prefix]), etag: built.page.etag };
  let pages = listPages.get(model);
  if (pages === undefined) listPages.set(model, (pages = createBoundedCache({ entries: LIST_PAGES_KEPT, bytes: LIST_PAGE_BYTES })));
  pages.set(key, page, page.prefix.length);
  return { kind: 'page', page };
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
  return { kind: 'json', data: null, dataRaw: detail, meta: null, etagKey: `/v1/vaults/${id}|include=${includeKey(q.include)}`, view: model };
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
