// What every route handler receives, and small helpers shared by the handlers.
import type { SloMonitor } from '../sloMonitor.js';
import type { Common } from '../../common/common.js';
import { VaultdError } from '../../common/errors.js';
import type { Page, ReadModel } from '../../engine/publish/index.js';
import type { CursorCodec } from '../cursor.js';
import { isoSeconds } from '../../model/format/numbers.js';
import { invalid, parseQuery } from '../params.js';
import type { Body, JsonBody } from '../reply.js';

export interface RouteContext {
  /** the read model that answers (the newest, or the generation a cursor names) */
  model: ReadModel | null;
  /** whether scheduled jobs publish new snapshots (else /health never turns degraded) */
  jobs: boolean;
  params: Record<string, string>;
  /** the raw query string (without '?') */
  query: string;
  /** cursors of the model that answers (each names its generation and the data its walk is pinned to) */
  cursors: CursorCodec;
  /**
   * the cursors of another model (a view the route chose: as_of, or the data a cursor's walk is
   * pinned to). Bound when a cursor is written, not before: a binding is kept per model, and one
   * per view of a random instant kept each view's answers alive through scavenges.
   */
  bind: (model: ReadModel) => CursorCodec;
  common: Common;
  started: number;
  /** the live service level figures (/health/slo) */
  slo: SloMonitor;
}

export type RouteHandler = (ctx: RouteContext) => Body;

/** The read model, or 503 NOT_READY before the first publish. */
export function ready(ctx: RouteContext): ReadModel {
  if (!ctx.model) throw new VaultdError('NOT_READY', 'no snapshot has been published yet; retry in a few seconds');
  return ctx.model;
}

/** The view of the data known at `asOf` (DESIGN §11.6), or the model itself without one; 422 past the newest data. */
export function viewAt(model: ReadModel, asOf: number | undefined): ReadModel {
  if (asOf === undefined) return model;
  if (asOf > model.dataEnd) {
    throw invalid('as_of', `${isoSeconds(asOf)} is after the newest data (${isoSeconds(model.dataEnd)}); ask for an instant at or before it`);
  }
  return model.at(asOf);
}

/**
 * The model a later page of a walk is answered from: the data its first page was cut from
 * (DESIGN §11.6), so rows published since are neither repeated nor skipped; 409 CURSOR_STALE
 * when some of those rows are gone (a chain reorganization removed them).
 */
export function pinned(model: ReadModel, next: string | undefined, cursors: CursorCodec): ReadModel {
  if (next === undefined || model.asOf !== null) return model;
  const pin = cursors.pinOf(next);
  if (pin === null || pin.t > model.dataEnd) return model;
  const view = pin.t === model.dataEnd ? model : model.at(pin.t, false);
  if (view.pin().f < pin.f) {
    throw new VaultdError('CURSOR_STALE', 'rows this walk began on are gone (a chain reorganization removed them); start the walk again without next');
  }
  return view;
}

/** The as_of of a route that takes no other parameter. */
export function asOfOnly(ctx: RouteContext): number | undefined {
  return parseQuery('as_of', ctx.query).as_of;
}

export function notFound(what: string): VaultdError {
  return new VaultdError('NOT_FOUND', what);
}

/** A page, or 404 with `missing`. */
export function pageOr404(page: Page | undefined, missing: string): Body {
  if (!page) throw notFound(missing);
  return { kind: 'page', page };
}

/**
 * `answer` once the wallet's positions are ready: at once, or as a pending body while a view of
 * the past replays them on the pool.
 */
export function whenWalletReady(model: ReadModel, wallet: string, answer: () => Body): Body {
  const ready = model.walletReady(wallet);
  if (!ready) return answer();
  return { kind: 'pending', load: () => ready.then(() => settled(answer())) };
}

async function settled(body: Body): Promise<JsonBody> {
  if (body.kind === 'json') return body;
  if (body.kind === 'pending') return body.load();
  throw new VaultdError('INTERNAL', `a wallet route answered with a ${body.kind} body`);
}

/** An answer of the read model, or 404 with the reason it gave. */
export function found<T>(answer: T | { missing: string }): Exclude<T, { missing: string }> {
  if (typeof answer === 'object' && answer !== null && 'missing' in answer && !Buffer.isBuffer(answer)) throw notFound(answer.missing);
  return answer as Exclude<T, { missing: string }>;
}
