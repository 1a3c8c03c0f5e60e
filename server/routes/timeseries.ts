// /v1/vaults/{vault_id}/timeseries and /v1/users/{wallet}/positions/{vault_id}/timeseries
// (DESIGN §4.3, §4.8): windows the read model slices from its serialized series, identity or
// as prepared deflate chunks when the client takes gzip (a window of any length costs a copy).
import { isoSeconds } from '../../model/format/numbers.js';
import { includes, invalid, parseQuery, parseVaultId, parseWallet, type QueryOf } from '../params.js';
import { type PointsAnswer, type ReadModel, type WindowAnswer, WindowMeta } from '../../engine/publish/index.js';
import type { Body, JsonBody } from '../reply.js';
import { notFound, pinned, ready, type RouteContext, viewAt, whenWalletReady } from './context.js';
import { enabledVault } from './vaults.js';

type SeriesQuery = QueryOf<'vaults.timeseries'> | QueryOf<'users.position.timeseries'>;

/** The window's checks and cursor, shared by both timeseries routes. */
function window(ctx: RouteContext, route: string, q: SeriesQuery) {
  if (q.start !== undefined && q.end !== undefined && q.start > q.end) {
    throw invalid('start', `must not be after end (${isoSeconds(q.start)} > ${isoSeconds(q.end)})`);
  }
  // the cursor context: the row-selecting parameters as given
  const filters = { start: q.start ?? '', end: q.end ?? '', granularity: q.granularity, as_of: q.as_of };
  const after = q.next === undefined ? undefined : (ctx.cursors.decode(q.next, route, filters, q.order) as number);
  return { filters, query: { granularity: q.granularity, start: q.start, end: q.end, order: q.order, limit: q.limit, after } };
}

/** A window's ETag seed: its route, bounds, shape and opt-in options (`extra`). */
const windowEtag = (route: string, startS: number, endS: number, q: SeriesQuery, after: number | undefined, extra: string) =>
  `${route}|${startS}|${endS}|${q.granularity}|${q.order}|${after}|${q.limit}${extra}`;

/** A window's JSON body, shared by both routes: its points (and deflated pieces), bounds and next cursor. */
function windowBody(a: WindowAnswer | PointsAnswer, q: SeriesQuery, next: (key: number) => string, etagKey: string, view: ReadModel): JsonBody {
  return {
    kind: 'json',
    data: null,
    dataItems: a.parts,
    ...(a.deflated ? { deflated: a.deflated } : {}),
    meta: new WindowMeta(a.count, q.limit, a.nextKey !== null ? next(a.nextKey) : null, a.start, a.end),
    etagKey,
    view,
  };
}

export function vaultTimeseries(ctx: RouteContext): Body {
  const base = ready(ctx);
  const id = enabledVault(ctx, base);
  const q = parseQuery('vaults.timeseries', ctx.query);
  const view = viewAt(base, q.as_of);
  // the words of a vault not listed in the newest data: as of an instant, the answer of the data known then
  if (!view.hasVault(id)) throw notFound(`no vault "${id}"`);
  const route = `/v1/vaults/${id}/timeseries`;
  const w = window(ctx, route, q);
  const model = pinned(view, q.next, ctx.cursors);
  // include=quality (DESIGN §11.3): points with a quality block, formatted for this request
  const quality = includes(q.include) && q.include.quality;
  const extra = quality ? '|include=quality' : '';
  const answer = quality ? model.vaultWindowWith(id, w.query) : model.vaultWindow(id, w.query);
  const next = (key: number) => ctx.bind(model).encode(route, w.filters, q.order, key);
  const body = (a: WindowAnswer): JsonBody => windowBody(a, q, next, windowEtag(route, a.startS, a.endS, q, w.query.after, extra), model);
  if (!(answer instanceof Promise)) return body(answer);
  // a cold window: its blocks are built on the pool first (a 304 does not wait for them)
  answer.catch(() => undefined);
  const bounds = model.vaultBounds(id, w.query);
  return {
    kind: 'pending',
    etagKey: windowEtag(route, bounds.startS, bounds.endS, q, w.query.after, extra),
    view: model,
    load: () => answer.then(body),
  };
}

export function positionTimeseries(ctx: RouteContext): Body {
  const base = ready(ctx);
  const wallet = parseWallet(ctx.params.wallet_address!);
  const id = parseVaultId(ctx.params.vault_id!);
  const q = parseQuery('users.position.timeseries', ctx.query);
  const view = viewAt(base, q.as_of);
  const model = pinned(view, q.next, ctx.cursors);
  return whenWalletReady(model, wallet, () => {
    const missing = model.positionSeriesMissing(wallet, id);
    if (missing !== null) throw notFound(missing);
    const route = `/v1/users/${wallet}/positions/${id}/timeseries`;
    const w = window(ctx, route, q);
    const bounds = model.positionBounds(wallet, id, q.granularity, w.query);
    // FIFO cost basis (§11.4) and quality (§11.3) are opt-in: the plain points otherwise
    const fifo = q.cost_basis_method === 'fifo';
    const quality = includes(q.include) && q.include.quality;
    const options = fifo || quality ? { fifo, quality } : undefined;
    const extra = `${fifo ? '|fifo' : ''}${quality ? '|include=quality' : ''}`;
    const etagKey = windowEtag(route, bounds.startS, bounds.endS, q, w.query.after, extra);
    const body = (a: PointsAnswer): JsonBody => windowBody(a, q, (key) => ctx.bind(model).encode(route, w.filters, q.order, key), etagKey, model);
    const answer = model.positionWindow(wallet, id, w.query, options);
    if (!(answer instanceof Promise)) return body(answer);
    // a long window is computed on the pool (a 304 does not wait for it)
    answer.catch(() => undefined);
    return { kind: 'pending', etagKey, view: model, load: () => answer.then(body) };
  });
}
