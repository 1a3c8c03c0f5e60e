// Errors of the API said for people.
import { VaultdApiError } from '../client/errors.js';

export function explain(err: unknown): string {
  if (err instanceof VaultdApiError) {
    if (err.code === 'UNAUTHORIZED') return 'This server needs an API key: enter one above.';
    if (err.code === 'RATE_LIMITED') return `Rate limited: try again in ${err.retryAfterSeconds ?? 60} s.`;
    if (err.code === 'NOT_READY') return 'The server has not published its first snapshot yet.';
    return `${err.code}: ${err.message}`;
  }
  return `Request failed: ${(err as Error).message}`;
}

export function isNotFound(err: unknown): boolean {
  return err instanceof VaultdApiError && err.code === 'NOT_FOUND';
}
