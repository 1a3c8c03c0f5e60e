// Request ids (DESIGN §5.1): echo a well-formed incoming X-Request-Id, else mint one.
// Minted ids are a per-process random prefix plus a base36 counter: no syscall or RNG per request.
import { randomBytes } from 'node:crypto';
import { VaultdError } from '../common/errors.js';

/** Ids the server echoes; also the precondition of the compressed-body splice (ASCII, no JSON escaping). */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
export const REQUEST_ID_MAX_LENGTH = 128;

export type RequestIdGenerator = () => string;

/**
 * A generator of ids unique within this process (the counter) and across processes and
 * restarts (64 random bits of prefix): `<11 base64url chars>-<base36 counter>`, 13–22 chars.
 */
export function createRequestIdGenerator(prefix: string = randomBytes(8).toString('base64url')): RequestIdGenerator {
  if (!REQUEST_ID_PATTERN.test(prefix) || prefix.length > 64) {
    throw new VaultdError('INTERNAL', `request id prefix "${prefix}" must be 1-64 characters of A-Z a-z 0-9 . _ -`);
  }
  const head = `${prefix}-`;
  let counter = 0;
  return () => head + (counter++).toString(36);
}

// The one piece of process state in server/: uniqueness per process is the point of it.
const mint = createRequestIdGenerator();

/** The id of a response: `incoming` when it matches REQUEST_ID_PATTERN, else a fresh one. */
export function requestIdFrom(incoming: string | undefined): string {
  // uWS reports an absent header as '' — that falls through to a fresh id like any bad value.
  return incoming !== undefined && incoming.length <= REQUEST_ID_MAX_LENGTH && REQUEST_ID_PATTERN.test(incoming) ? incoming : mint();
}
