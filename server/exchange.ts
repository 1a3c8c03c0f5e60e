// One request on its way through the pipeline (server/handle.ts): what the transport copied in,
// what the steps have learned, and the headers every answer carries.
import type { AuthTable } from './auth.js';
import { headerLines, headerText, JSON_TYPE, type Reply } from './reply.js';
import type { RouteMatch } from './router.js';

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
export const JSON_CONTENT: [string, string] = ['Content-Type', JSON_TYPE];
export const CORS_TEXT = headerText(CORS);
export const ERROR_LINES = headerLines([...CORS, JSON_CONTENT]);

/** Longest request target (path and query) served; cursors are at most 1 KiB. */
export const MAX_TARGET = 8192;
