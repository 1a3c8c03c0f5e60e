// The client's one error base (STYLE 6): a stable `code`, a short message that quotes the
// offending value, `details` and `cause`. HTTP failures add the status and the request id.
import type { ErrorResponse } from './types.gen.js';

/** The codes vaultd answers with (DESIGN §5.3), read from the generated error envelope. */
export type ApiErrorCode = ErrorResponse['error']['code'];

/** Codes raised by the client itself. */
export type LocalErrorCode =
  /** a string that is not a plain decimal amount */
  | 'INVALID_AMOUNT'
  /** more fractional digits than the token's decimals hold */
  | 'EXCESS_PRECISION'
  /** a bad argument or option (decimals out of range, a base URL that is not http(s)) */
  | 'INVALID_ARGUMENT'
  /** fetch itself failed (DNS, connection refused, reset) on every attempt */
  | 'NETWORK'
  /** a reply that is not what vaultd sends (not JSON, or an error status without the envelope) */
  | 'UNEXPECTED_RESPONSE'
  /** waitForSettlement ran out of time */
  | 'TIMEOUT';

export type ClientErrorCode = ApiErrorCode | LocalErrorCode;

export interface VaultdClientErrorOptions {
  details?: unknown;
  cause?: unknown;
}

export class VaultdClientError extends Error {
  override name = 'VaultdClientError';
  readonly code: ClientErrorCode;
  readonly details: unknown;

  constructor(code: ClientErrorCode, message: string, options: VaultdClientErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
  }
}

/** An HTTP answer that is not a success: vaultd's error envelope, or an unexpected status. */
export class VaultdApiError extends VaultdClientError {
  override name = 'VaultdApiError';
  readonly status: number;
  /** `X-Request-Id` of the failed answer (quote it when reporting a 500), null when absent */
  readonly requestId: string | null;
  /** `Retry-After` in seconds (429, 503), null when absent */
  readonly retryAfterSeconds: number | null;

  constructor(
    code: ApiErrorCode | 'UNEXPECTED_RESPONSE',
    message: string,
    init: { status: number; requestId: string | null; retryAfterSeconds: number | null; details?: unknown; cause?: unknown },
  ) {
    super(code, message, { details: init.details, cause: init.cause });
    this.status = init.status;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }

  /** 429 and 503 are worth retrying later; every other status is not. */
  get retryable(): boolean {
    return this.status === 429 || this.status === 503;
  }
}

/**
 * 409 CURSOR_STALE (DESIGN §11.6): a chain reorganization removed rows inside the data the walk's
 * cursor is pinned to; start the walk again without `next`. `client.iterate.*` does so once.
 */
export class CursorStaleError extends VaultdApiError {
  override name = 'CursorStaleError';
  declare readonly code: 'CURSOR_STALE';
}

/** A malformed amount, excess precision or a bad `decimals` in toBaseUnits/fromBaseUnits. */
export class AmountError extends VaultdClientError {
  override name = 'AmountError';
}

export function isVaultdClientError(e: unknown): e is VaultdClientError {
  return e instanceof VaultdClientError;
}
