// /v1/vaults/{vault_id}/timeseries and /v1/users/{wallet}/positions/{vault_id}/timeseries
// (DESIGN §4.3, §4.8): windows sliced by binary search from the serialized series the engine
// keeps per snapshot (engine/publish/seriesBuffers.ts, DESIGN §5.7), identity or as prepared
// deflate chunks when the client takes gzip (a window of any length costs a copy, not a build).
import { isoSeconds } from '../../model/format/numbers.js';
import { positionContext } from '../../engine/publish/walletIndex.js';
import { defaultPositionStart, positionPoints } from '../../engine/publish/door.js';
import { windowPoints } from '../../engine/publish/door.js';
import { seriesBuffer, sliceSeries } from '../../engine/publish/door.js';
import { invalid, parseQuery, parseVaultId, parseWallet, type QueryOf } from '../params.js';
import type { Body } from '../reply.js';
import { notFound, ready, type RouteContext } from './context.js';
import { enabledVault } from './vaults.js';
import { findPosition } from './users.js';

type SeriesQuery = QueryOf<'vaults.timeseries'>;

/** isoSeconds remembered: window bounds repeat across pages and clients (bounded, cleared when full). */
const isoMemo = new Map<number, string>();
function iso(seconds: number): string {
  let text = isoMemo.get(seconds);
  if (text === undefined) {
    if (isoMemo.size >= 4096) isoMemo.clear();
    isoMemo.set(seconds, (text = isoSeconds(seconds)));
  }
  return text;
}

/** Window bounds and cursor handling shared by both timeseries routes. */
function window(ctx: RouteContext, route: string, q: SeriesQuery, defaults: { start: number; end: number }) {
  if (q.start !== undefined && q.end !== undefined && q.start > q.end) {
    throw invalid('start', `must not be after end (${isoSeconds(q.start)} > ${isoSeconds(q.end)})`);
  }
  const start = q.start ?? defaults.start;
  const end = q.end ?? defaults.end;
  // the cursor context: the row-selecting parameters as given
  const filters = { start: q.start ?? '', end: q.end ?? '', granularity: q.granularity };
  const after = q.next === undefined ? undefined : (ctx.cursors.decode(q.next, route, filters, q.order) as number);
  return { start, end, filters, after };
}

export function vaultTimeseries(ctx: RouteContext): Body {
  const served = ready(ctx);
  const id = enabledVault(ctx);
  const q = parseQuery('vaults.timeseries', ctx.query);
  const s = served.snapshot.world.series.get(id);
  const route = `/v1/vaults/${id}/timeseries`;
  const first = s && s.length > 0 ? s.ts[0]! : null;
  const last = s && s.length > 0 ? s.ts[s.length - 1]! : null;
  const w = window(ctx, route, q, { start: first ?? 0, end: last ?? 0 });
  const sb = seriesBuffer(served.snapshot, id, q.granularity);
  const slice = sb ? sliceSeries(sb, w.start, w.end, q.order, q.limit, w.after) : null;
  return {
    kind: 'json',
    data: null,
    dataItems: slice?.body ?? [],
    ...(slice && slice.count > 0 ? { deflated: slice.deflate } : {}),
    meta: {
      count: slice?.count ?? 0,
      limit: q.limit,
      next_cursor: slice?.hasMore && slice.lastInstant !== null ? ctx.cursors.encode(route, w.filters, q.order, slice.lastInstant) : null,
      partial_errors: null,
      start: q.start !== undefined || first !== null ? iso(w.start) : null,
      end: q.end !== undefined || last !== null ? iso(w.end) : null,
    },
    etagKey: `${route}|${w.start}|${w.end}|${q.granularity}|${q.order}|${w.after}|${q.limit}`,
  };
}

export function positionTimeseries(ctx: RouteContext): Body {
  const served = ready(ctx);
  const wallet = parseWallet(ctx.params.wallet_address!);
  const id = parseVaultId(ctx.params.vault_id!);
  const q = parseQuery('vaults.timeseries', ctx.query);
  const position = findPosition(served, wallet, id);
  const pctx = positionContext(served.snapshot.world, id);
  if (!pctx || pctx.series.length === 0) throw notFound(`vault "${id}" has no history yet`);
  const s = pctx.series;
  const route = `/v1/users/${wallet}/positions/${id}/timeseries`;
  const defaultStart = defaultPositionStart(position.rows, q.granularity) ?? s.ts[0]!;
  const w = window(ctx, route, q, { start: defaultStart, end: s.ts[s.length - 1]! });
  // Points before the position's first row are omitted (DESIGN §4.8).
  const from = Math.max(w.start, defaultStart);
  const pts =
    from <= w.end
      ? windowPoints(s, q.granularity, { start: from, end: w.end, order: q.order, limit: q.limit, after: w.after })
      : { instants: [], indices: [], hasMore: false };
  const asc = q.order === 'asc' ? pts.instants : [...pts.instants].reverse();
  const points = positionPoints(position.rows, pctx, asc);
  if (q.order === 'desc') points.reverse();
  const lastInstant = pts.instants.at(-1);
  return {
    kind: 'json',
    data: points,
    meta: {
      count: points.length,
      limit: q.limit,
      next_cursor: pts.hasMore && lastInstant !== undefined ? ctx.cursors.encode(route, w.filters, q.order, lastInstant) : null,
      partial_errors: null,
      start: isoSeconds(w.start),
      end: isoSeconds(w.end),
    },
    etagKey: `${route}|${w.start}|${w.end}|${q.granularity}|${q.order}|${w.after}|${q.limit}`,
  };
}
