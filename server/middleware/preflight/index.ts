// preflight: a CORS preflight (OPTIONS) gets 204 with the allowed methods and headers.
import { ALLOWED_METHODS, EVERY_ANSWER, type Step } from '../../exchange.js';
import { headerLines } from '../../reply.js';
import type { Responder } from '../../respond.js';

const PREFLIGHT_LINES = headerLines([
  ...EVERY_ANSWER,
  ['Access-Control-Allow-Methods', ALLOWED_METHODS],
  ['Access-Control-Allow-Headers', 'Authorization, X-API-Key, If-None-Match, X-Request-Id, Accept-Encoding, Content-Type'],
  ['Access-Control-Max-Age', '86400'],
]);

export function createPreflightStep(respond: Responder): Step {
  return (x) => (x.preflight ? respond.reply(x, 204, PREFLIGHT_LINES, null) : undefined);
}
