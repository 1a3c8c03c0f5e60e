// method: this API is read-only (GET, HEAD; OPTIONS is the preflight step's). A 405 names the
// allowed methods in `Allow` (the responder's METHOD_NOT_ALLOWED_LINES).
import { VaultdError } from '../../../common/errors.js';
import { ALLOWED_METHODS, refusedOnRoute, type Step } from '../../exchange.js';

export const methodStep: Step = (x) => {
  if (x.req.method === 'GET' || x.req.method === 'HEAD') return;
  refusedOnRoute(x);
  throw new VaultdError('METHOD_NOT_ALLOWED', `method ${x.req.method} is not allowed; this API is read-only (${ALLOWED_METHODS})`, {
    details: { allowed: ['GET', 'HEAD', 'OPTIONS'] },
  });
};
