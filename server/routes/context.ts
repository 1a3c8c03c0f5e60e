// What every route handler receives, and small helpers shared by the handlers.
import type { Common } from '../../common/common.js';
import { VaultdError } from '../../common/errors.js';
import type { CursorCodec } from '../cursor.js';
import type { Served } from '../handle.js';
import type { Body } from '../reply.js';

export interface RouteContext {
  served: Served | null;
  params: Record<string, string>;
  /** the raw query string (without '?') */
  query: string;
  cursors: CursorCodec;
  common: Common;
  started: number;
}

export type RouteHandler = (ctx: RouteContext) => Body;

/** The snapshot, or 503 NOT_READY before the first publish. */
export function ready(ctx: RouteContext): Served {
  if (!ctx.served) throw new VaultdError('NOT_READY', 'no snapshot has been published yet; retry in a few seconds');
  return ctx.served;
}

export function notFound(what: string): VaultdError {
  return new VaultdError('NOT_FOUND', what);
}

/** A page of the snapshot by key, or 404 with `missing`. */
export function pageOr404(served: Served, key: string, missing: string): Body {
  const page = served.snapshot.pages.get(key);
  if (!page) throw notFound(missing);
  return { kind: 'page', page };
}
