// route: the route table, the read model that answers (the newest, or the generation a cursor
// names), the route's handler, then the responder (ETag/304, encoding, Cache-Control, Vary).
// A page answer of the newest snapshot is a function of the request target alone, so it is
// remembered per target: the query is parsed and validated once, not per request (errors are
// thrown, never remembered). Targets carrying a cursor are not: the generation it names
// decides the snapshot, and walks rarely repeat; nor are those with as_of (views keep their pages).
import type { Common } from '../../../common/common.js';
import { VaultdError } from '../../../common/errors.js';
import type { Page, ReadModel } from '../../../engine/publish/index.js';
import type { CursorCodec } from '../../cursor.js';
import type { Exchange, IncomingRequest, Step } from '../../exchange.js';
import { cursorsFor, servedFor } from '../../generations.js';
import type { Reply } from '../../reply.js';
import type { Responder } from '../../respond.js';
import type { SloMonitor } from '../../sloMonitor.js';
import { matchRoute, type RouteMatch, type RouteName } from '../../router.js';
import { type RouteContext, routeHandler } from '../../routes/index.js';

export interface RouteDeps {
  common: Common;
  current: () => ReadModel | null;
  generation?: (g: number) => ReadModel | null | Promise<ReadModel | null>;
  jobs: boolean;
  cursors: CursorCodec;
  started: number;
  slo: SloMonitor;
  respond: Responder;
  chargeJunk: (x: Exchange) => void;
}

/** Route-match cache budget, in path characters. */
const ROUTE_CACHE_BYTES = 4 * 1024 * 1024;
const USERS_PREFIX = '/v1/users/';
/** Page answers remembered per request target for the newest snapshot (cleared when full). */
const PAGE_TARGETS = 100_000;
/** ... and their targets' characters at most (a junk query per request must not buy memory). */
const PAGE_TARGET_CHARS = 4 * 1024 * 1024;

export function createRouteStep(deps: RouteDeps): Step {
  const { respond } = deps;
  // Route matches of recently seen paths, bounded by bytes (cleared when full). Misses are not
  // kept: unique junk paths must not buy memory. Nor are wallet paths: one per wallet, seldom
  // asked twice in a row under random-wallet traffic, they only missed here and filled the
  // memo with matches that lived long enough to be promoted (old-generation garbage).
  const routes = new Map<string, RouteMatch>();
  let routeBytes = 0;
  const routeOf = (path: string): RouteMatch | null => {
    if (path.startsWith(USERS_PREFIX)) return matchRoute(path);
    const hit = routes.get(path);
    if (hit !== undefined) return hit;
    const m = matchRoute(path);
    if (m === null) return null;
    if (routeBytes + path.length > ROUTE_CACHE_BYTES) {
      routes.clear();
      routeBytes = 0;
    }
    routes.set(path, m);
    routeBytes += path.length;
    return m;
  };
  let pagesOf: ReadModel | null = null;
  const pagesByTarget = new Map<string, Page>();
  const pageRoutes = new Set<RouteName>();
  let pageTargetChars = 0;
  // Targets asking for the past (as_of) are not remembered: a random instant per request (an
  // audit's sweep, the bench's random hours) filled the map with pages that lived long enough to
  // be promoted; the view of an instant asked again keeps its pages itself (engine/publish/pastView.ts)
  const targetOf = (req: IncomingRequest): string | null =>
    req.query === '' ? req.path : req.query.includes('next=') || req.query.includes('as_of=') ? null : `${req.path}?${req.query}`;

  function answer(x: Exchange, match: RouteMatch, model: ReadModel | null): Reply | Promise<Reply> {
    try {
      const ctx: RouteContext = {
        model,
        jobs: deps.jobs,
        params: match.params,
        query: x.req.query,
        cursors: cursorsFor(deps.cursors, model),
        bind: (m) => cursorsFor(deps.cursors, m),
        common: deps.common,
        started: deps.started,
        slo: deps.slo,
      };
      const body = routeHandler(match.name)(ctx);
      if (body.kind === 'page') {
        pageRoutes.add(match.name);
        const target = model === pagesOf ? targetOf(x.req) : null;
        if (target !== null) {
          if (pagesByTarget.size >= PAGE_TARGETS || pageTargetChars + target.length > PAGE_TARGET_CHARS) {
            pagesByTarget.clear();
            pageTargetChars = 0;
          }
          pagesByTarget.set(target, body.page);
          pageTargetChars += target.length;
        }
      }
      return respond.write(x, body, model);
    } catch (err) {
      return respond.caught(x, err);
    }
  }

  return (x) => {
    const route = (x.route = routeOf(x.req.path));
    if (!route) {
      if (!x.isV1) deps.chargeJunk(x);
      throw new VaultdError('NOT_FOUND', `no route for "${x.req.path.slice(0, 200)}"; see /openapi.json`);
    }
    const current = deps.current();
    // routes that have never answered with a page (windows, wallets) skip the lookup: their
    // target, a fresh string per request, would be concatenated and hashed only to miss
    const target = current === null || !pageRoutes.has(route.name) ? null : targetOf(x.req);
    if (target !== null) {
      if (pagesOf !== current) {
        pagesByTarget.clear();
        pageTargetChars = 0;
        pagesOf = current;
      }
      const page = pagesByTarget.get(target);
      if (page !== undefined) return respond.page(x, page);
    }
    const model = servedFor(current, deps.generation, x.req.query);
    if (model instanceof Promise) return model.then((m) => answer(x, route, m));
    return answer(x, route, model);
  };
}
