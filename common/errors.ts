// One error base for the whole program: a stable code, a short message that quotes the
// offending value, optional details and cause. HTTP statuses and CLI exit codes map from the code.

export const ERROR_CODES = {
  // request errors (DESIGN §5.3)
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  URI_TOO_LONG: 414,
  INVALID_PARAMETER: 422,
  INVALID_CURSOR: 422,
  CURSOR_STALE: 409,
  RATE_LIMITED: 429,
  NOT_READY: 503,
  INTERNAL: 500,
  // program errors (CLI, config, store, sources)
  USAGE: 2,
  CONFIG_INVALID: 2,
  DB_UNAVAILABLE: 2,
  STORE_QUERY_FAILED: 1,
  SOURCE_FAILED: 1,
  // work ended by a stop (the shutdown's AbortSignal): a clean stop, exit 0
  STOPPED: 0,
  /** not enough disk space for the work asked (checked before it starts) */
  NO_SPACE: 1,
  /** a sharded recompute's shards are missing, duplicated or of other inputs (bad input: run them again) */
  SHARDS_INVALID: 2,
  /** a published snapshot's file does not match its manifest (torn or altered data) */
  SNAPSHOT_CORRUPT: 1,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface VaultdErrorOptions {
  details?: unknown;
  cause?: unknown;
  /** transient failures (RPC timeouts, 429s) may be retried with backoff */
  retryable?: boolean;
}

export class VaultdError extends Error {
  override readonly name = 'VaultdError';
  readonly code: ErrorCode;
  readonly details: unknown;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, options: VaultdErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
    this.retryable = options.retryable ?? false;
  }

  /** HTTP status for request codes; 500 for program codes that reach a request. */
  get status(): number {
    const n = ERROR_CODES[this.code];
    return n >= 400 ? n : 500;
  }

  /** Process exit code for program codes (2 = bad input, 1 = failure, 0 = stopped). */
  get exitCode(): number {
    const n = ERROR_CODES[this.code];
    return n < 100 ? n : 1;
  }
}

export function isVaultdError(e: unknown): e is VaultdError {
  return e instanceof VaultdError;
}

/**
 * A message safe to show anyone: never a stack, never a file path. A URL keeps its origin (an
 * RPC URL's path or query often holds an API key): `https://host/<path>`, never a mangled
 * `https:/<path>`.
 */
export function describeError(e: unknown): string {
  if (e instanceof VaultdError) return e.message;
  if (e instanceof Error) return e.message.replace(URL_OR_PATH, (_match, url: string | undefined) => (url === undefined ? '<path>' : urlOrigin(url)));
  return String(e);
}

/** Whether `e` is the end of work cut short by a stop (the shutdown's AbortSignal). */
export function isStopped(e: unknown): boolean {
  return e instanceof VaultdError && e.code === 'STOPPED';
}

/** A URL (its own alternative, so its path is not taken for a file path), or a file path. */
const URL_OR_PATH = /\b([a-z][a-z0-9+.-]*:\/\/[^\s"'<>()]+)|(?:\/[\w.@-]+)+/gi;

function urlOrigin(url: string): string {
  try {
    const u = new URL(url);
    const rest = u.pathname.length > 1 || u.search !== '' ? '/<path>' : '';
    return `${u.protocol}//${u.host}${rest}`;
  } catch {
    return '<url>';
  }
}
