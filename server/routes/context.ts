// What every route handler receives, and small helpers shared by the handlers.
import type { Common } from '../../common/common.js';
import { VaultdError } from '../../common/errors.js';
import type { Page, ReadModel } from '../../engine/publish/index.js';
import type { CursorCodec } from '../cursor.js';
import type { Body } from '../reply.js';

export interface RouteContext {
  /** the read model that answers (the newest, or the generation a cursor names) */
  model: ReadModel | null;
  /** whether scheduled jobs publish new snapshots (else /health never turns degraded) */
  jobs: boolean;
  params: Record<string, string>;
  /** the raw query string (without '?') */
  query: string;
  cursors: CursorCodec;
  common: Common;
  started: number;
}

export type RouteHandler = (ctx: RouteContext) => Body;

/** The read model, or 503 NOT_READY before the first publish. */
export function ready(ctx: RouteContext): ReadModel {
  if (!ctx.model) throw new VaultdError('NOT_READY', 'no snapshot has been published yet; retry in a few seconds');
  return ctx.model;
}

export function notFound(what: string): VaultdError {
  return new VaultdError('NOT_FOUND', what);
}

/** A page, or 404 with `missing`. */
export function pageOr404(page: Page | undefined, missing: string): Body {
  if (!page) throw notFound(missing);
  return { kind: 'page', page };
}

/** An answer of the read model, or 404 with the reason it gave. */
export function found<T>(answer: T | { missing: string }): Exclude<T, { missing: string }> {
  if (typeof answer === 'object' && answer !== null && 'missing' in answer && !Buffer.isBuffer(answer)) throw notFound(answer.missing);
  return answer as Exclude<T, { missing: string }>;
}
