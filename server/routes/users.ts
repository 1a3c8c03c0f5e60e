// /v1/users/{wallet}/positions, /positions/{vault_id} and /activity (seed; DESIGN §4.4, §4.6,
// §5.2): the read model answers with the position items computed at publish and the wallet's
// activity rows; a request only parses, asks and pages.
import type { ActivityKey, ItemsAnswer } from '../../engine/publish/index.js';
import { invalid, parseQuery, parseVaultId, parseWallet } from '../params.js';
import type { Body, JsonBody } from '../reply.js';
import { found, pinned, ready, type RouteContext, viewAt, whenWalletReady } from './context.js';

export function positionsList(ctx: RouteContext): Body {
  const base = ready(ctx);
  const wallet = parseWallet(ctx.params.wallet_address!);
  const q = parseQuery('users.positions', ctx.query);
  const view = viewAt(base, q.as_of);
  const route = `/v1/users/${wallet}/positions`;
  const filters = { include_hidden: q.include_hidden, as_of: q.as_of };
  const after = q.next === undefined ? 0 : (ctx.cursors.decode(q.next, route, filters, 'asc') as number);
  const model = pinned(view, q.next, ctx.cursors);
  // FIFO cost basis and returns (DESIGN §11.4, §11.5) are opt-in: without them, the prebuilt items
  const opts = auditOptions(q);
  const etagKey = `${route}|${q.include_hidden}|${after}|${q.limit}${opts.key}`;
  const body = (answer: ItemsAnswer<number>): JsonBody => ({
    kind: 'json',
    data: null,
    dataItems: answer.parts,
    meta: {
      count: answer.count,
      limit: q.limit,
      next_cursor: answer.nextKey !== null ? ctx.bind(model).encode(route, filters, 'asc', answer.nextKey) : null,
      partial_errors: answer.partialErrors.length > 0 ? answer.partialErrors : null,
      start: null,
      end: null,
    },
    etagKey,
    view: model,
  });
  const query = { includeHidden: q.include_hidden, after, limit: q.limit };
  return whenWalletReady(model, wallet, () => {
    if (!opts.any) return body(model.positions(wallet, query));
    const answer = model.positionsWith(wallet, query, opts);
    if (!(answer instanceof Promise)) return body(answer);
    answer.catch(() => undefined);
    return { kind: 'pending', etagKey, view: model, load: () => answer.then(body) };
  });
}

/** The audit options of a position route's query, and the ETag suffix they add ('' for none). */
function auditOptions(q: { include?: { returns: boolean } | undefined; cost_basis_method: 'average' | 'fifo'; as_of?: number | undefined }) {
  const returns = q.include?.returns ?? false;
  const fifo = q.cost_basis_method === 'fifo';
  // the audit detail is made from the latest data only (its returns are computed at publish)
  if ((fifo || returns) && q.as_of !== undefined)
    throw invalid('as_of', 'cannot be combined with include=returns or cost_basis_method=fifo; ask for the audit detail without as_of');
  return { fifo, returns, any: fifo || returns, key: `${fifo ? '|fifo' : ''}${returns ? '|returns' : ''}` };
}

export function positionGet(ctx: RouteContext): Body {
  const base = ready(ctx);
  const wallet = parseWallet(ctx.params.wallet_address!);
  const vaultId = parseVaultId(ctx.params.vault_id!);
  const q = parseQuery('users.position', ctx.query);
  const opts = auditOptions(q);
  const model = viewAt(base, q.as_of);
  const etagKey = `/v1/users/${wallet}/positions/${vaultId}${opts.key}`;
  return whenWalletReady(model, wallet, () => {
    if (!opts.any) return { kind: 'json', data: null, dataRaw: found(model.position(wallet, vaultId)), meta: null, etagKey, view: model };
    const item = model.positionWith(wallet, vaultId, opts);
    if (!(item instanceof Promise)) return { kind: 'json', data: null, dataRaw: found(item), meta: null, etagKey, view: model };
    item.catch(() => undefined);
    return {
      kind: 'pending',
      etagKey,
      view: model,
      load: () => item.then((raw) => ({ kind: 'json', data: null, dataRaw: raw, meta: null, etagKey, view: model })),
    };
  });
}

/** /v1/users/{wallet}/positions/{vault_id}/lots: FIFO lots in acquisition order (DESIGN §11.4). */
export function positionLots(ctx: RouteContext): Body {
  const model = ready(ctx);
  const wallet = parseWallet(ctx.params.wallet_address!);
  const vaultId = parseVaultId(ctx.params.vault_id!);
  const q = parseQuery('users.position.lots', ctx.query);
  const route = `/v1/users/${wallet}/positions/${vaultId}/lots`;
  const filters = { state: q.state };
  const after = q.next === undefined ? 0 : (ctx.cursors.decode(q.next, route, filters, 'asc') as number);
  if (!Number.isInteger(after) || after < 0) throw invalid('next', 'is not a cursor of this route');
  const etagKey = `${route}|${q.state}|${after}|${q.limit}`;
  const { cursors } = ctx;
  const body = (a: ItemsAnswer<number>): JsonBody => ({
    kind: 'json',
    data: null,
    dataItems: a.parts,
    meta: { count: a.count, limit: q.limit, next_cursor: a.nextKey !== null ? cursors.encode(route, filters, 'asc', a.nextKey) : null, partial_errors: null },
    etagKey,
  });
  const answer = model.lots(wallet, vaultId, { state: q.state, after, limit: q.limit });
  if (answer instanceof Promise) {
    answer.catch(() => undefined);
    return { kind: 'pending', etagKey, view: model, load: () => answer.then(body) };
  }
  return body(found(answer));
}

export function activity(ctx: RouteContext): Body {
  const base = ready(ctx);
  const wallet = parseWallet(ctx.params.wallet_address!);
  const q = parseQuery('users.activity', ctx.query);
  const vaultFilter = q.vault_id === undefined ? null : parseVaultId(q.vault_id);
  const view = viewAt(base, q.as_of);
  const route = `/v1/users/${wallet}/activity`;
  const filters = { vault_id: vaultFilter ?? '', include_hidden: q.include_hidden, as_of: q.as_of };
  const after = q.next === undefined ? null : (ctx.cursors.decode(q.next, route, filters, q.order) as ActivityKey);
  const model = pinned(view, q.next, ctx.cursors);
  const answer = model.activity(wallet, { vaultId: vaultFilter, includeHidden: q.include_hidden, order: q.order, after, limit: q.limit });
  const etagKey = `${route}|${vaultFilter}|${q.include_hidden}|${q.order}|${after?.join(',')}|${q.limit}`;
  const body = (a: ItemsAnswer<ActivityKey>): JsonBody => ({
    kind: 'json',
    data: null,
    dataItems: a.parts,
    meta: {
      count: a.count,
      limit: q.limit,
      next_cursor: a.nextKey !== null ? ctx.bind(model).encode(route, filters, q.order, a.nextKey) : null,
      partial_errors: null,
      start: null,
      end: null,
    },
    etagKey,
    view: model,
  });
  if (!(answer instanceof Promise)) return body(answer);
  answer.catch(() => undefined);
  return { kind: 'pending', etagKey, view: model, load: () => answer.then(body) };
}

/** /v1/users/{wallet}/requests: the wallet's async requests and their state (DESIGN §11.8). */
export function requests(ctx: RouteContext): Body {
  const base = ready(ctx);
  const wallet = parseWallet(ctx.params.wallet_address!);
  const q = parseQuery('users.requests', ctx.query);
  const vaultFilter = q.vault_id === undefined ? null : parseVaultId(q.vault_id);
  const view = viewAt(base, q.as_of);
  const route = `/v1/users/${wallet}/requests`;
  const filters = { status: q.status, vault_id: vaultFilter ?? '', include_hidden: q.include_hidden, as_of: q.as_of };
  const after = q.next === undefined ? null : (ctx.cursors.decode(q.next, route, filters, 'desc') as ActivityKey);
  const model = pinned(view, q.next, ctx.cursors);
  const a = model.requests(wallet, { status: q.status, vaultId: vaultFilter, includeHidden: q.include_hidden, after, limit: q.limit });
  return {
    kind: 'json',
    data: null,
    dataItems: a.parts,
    meta: {
      count: a.count,
      limit: q.limit,
      next_cursor: a.nextKey !== null ? ctx.bind(model).encode(route, filters, 'desc', a.nextKey) : null,
      partial_errors: null,
      start: null,
      end: null,
    },
    etagKey: `${route}|${q.status}|${vaultFilter}|${q.include_hidden}|${after?.join(',')}|${q.limit}`,
    view: model,
  };
}
