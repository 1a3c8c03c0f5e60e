// One request on its way through the pipeline (server/handle.ts): what the transport copied in,
// what the steps have learned, and the headers every answer carries.
import type { AuthTable } from './auth.js';
import { headerLines, headerText, JSON_TYPE, type Reply } from './reply.js';
import { matchRoute, type RouteMatch } from './router.js';

export interface IncomingRequest {
  method: string;
  path: string;
  query: string;
  ip: string;
  authorization: string;
  apiKey: string;
  acceptEncoding: string;
  ifNoneMatch: string;
  requestId: string;
}

export interface Exchange {
  req: IncomingRequest;
  t0: number;
  /** the request's start, ms since the epoch (one clock read per request) */
  clock: number;
  requestId: string;
  isV1: boolean;
  preflight: boolean;
  who: ReturnType<AuthTable['authenticate']>;
  route: RouteMatch | null;
  /** the RateLimit-* values once the limit step ran (0: no such headers) and Retry-After */
  rateLimit: number;
  rateRemaining: number;
  rateReset: number;
  retryAfter: number;
}

/** A step passes (undefined) or answers; a thrown VaultdError becomes its error envelope. */
export type Step = (x: Exchange) => Reply | Promise<Reply> | void;

export const ANONYMOUS = { kind: 'anonymous' } as const;

export const CORS: readonly [string, string][] = [
  ['Access-Control-Allow-Origin', '*'],
  [
    'Access-Control-Expose-Headers',
    'ETag, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Deprecation, Link',
  ],
];
/** A browser never second-guesses a declared type (a JSON body run as a script): on every answer. */
export const NOSNIFF: [string, string] = ['X-Content-Type-Options', 'nosniff'];
/** The header lines every answer starts with: CORS and nosniff. */
export const EVERY_ANSWER: readonly [string, string][] = [...CORS, NOSNIFF];
export const JSON_CONTENT: [string, string] = ['Content-Type', JSON_TYPE];
export const EVERY_ANSWER_TEXT = headerText(EVERY_ANSWER);
export const ERROR_LINES = headerLines([...EVERY_ANSWER, JSON_CONTENT]);
/** The methods this read-only API answers: a 405's `Allow` (RFC 9110 §15.5.6) and the preflight's list. */
export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
export const METHOD_NOT_ALLOWED_LINES = headerLines([...EVERY_ANSWER, ['Allow', ALLOWED_METHODS], JSON_CONTENT]);

/** Longest request target (path and query) served; cursors are at most 1 KiB. */
export const MAX_TARGET = 8192;

/**
 * Names the route of a request refused before the route step (401, 429, 405), so the request
 * metrics count it under its route rather than "unmatched". Only refusals pay for the match.
 */
export function refusedOnRoute(x: Exchange): void {
  x.route ??= matchRoute(x.req.path);
}
