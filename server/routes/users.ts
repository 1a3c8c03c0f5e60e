// /v1/users/{wallet}/positions, /positions/{vault_id} and /activity (seed; DESIGN §4.4, §4.6,
// §5.2): the read model answers with the position items computed at publish and the wallet's
// activity rows; a request only parses, asks and pages.
import type { ActivityKey, ItemsAnswer } from '../../engine/publish/index.js';
import { parseQuery, parseVaultId, parseWallet } from '../params.js';
import type { Body, JsonBody } from '../reply.js';
import { asOfOnly, found, pinned, ready, type RouteContext, viewAt, whenWalletReady } from './context.js';

export function positionsList(ctx: RouteContext): Body {
  const base = ready(ctx);
  const wallet = parseWallet(ctx.params.wallet_address!);
  const q = parseQuery('users.positions', ctx.query);
  const view = viewAt(base, q.as_of);
  const route = `/v1/users/${wallet}/positions`;
  const filters = { include_hidden: q.include_hidden, as_of: q.as_of };
  const after = q.next === undefined ? 0 : (ctx.cursors.decode(q.next, route, filters, 'asc') as number);
  const model = pinned(view, q.next, ctx.cursors);
  const cursors = ctx.bind(model);
  return whenWalletReady(model, wallet, () => {
    const answer = model.positions(wallet, { includeHidden: q.include_hidden, after, limit: q.limit });
    return {
      kind: 'json',
      data: null,
      dataItems: answer.parts,
      meta: {
        count: answer.count,
        limit: q.limit,
        next_cursor: answer.nextKey !== null ? cursors.encode(route, filters, 'asc', answer.nextKey) : null,
        partial_errors: answer.partialErrors.length > 0 ? answer.partialErrors : null,
        start: null,
        end: null,
      },
      etagKey: `${route}|${q.include_hidden}|${after}|${q.limit}`,
    };
  });
}

export function positionGet(ctx: RouteContext): Body {
  const base = ready(ctx);
  const wallet = parseWallet(ctx.params.wallet_address!);
  const vaultId = parseVaultId(ctx.params.vault_id!);
  const model = viewAt(base, asOfOnly(ctx));
  return whenWalletReady(model, wallet, () => {
    const item = found(model.position(wallet, vaultId));
    return { kind: 'json', data: null, dataRaw: item, meta: null, etagKey: `/v1/users/${wallet}/positions/${vaultId}` };
  });
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
  const cursors = ctx.bind(model);
  const body = (a: ItemsAnswer<ActivityKey>): JsonBody => ({
    kind: 'json',
    data: null,
    dataItems: a.parts,
    meta: {
      count: a.count,
      limit: q.limit,
      next_cursor: a.nextKey !== null ? cursors.encode(route, filters, q.order, a.nextKey) : null,
      partial_errors: null,
      start: null,
      end: null,
    },
    etagKey,
  });
  if (!(answer instanceof Promise)) return body(answer);
  answer.catch(() => undefined);
  return { kind: 'pending', etagKey, load: () => answer.then(body) };
}
