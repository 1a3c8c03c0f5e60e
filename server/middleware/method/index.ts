// method: this API is read-only (GET, HEAD; OPTIONS is the preflight step's).
import { VaultdError } from '../../../common/errors.js';
import type { Step } from '../../exchange.js';

export const methodStep: Step = (x) => {
  if (x.req.method === 'GET' || x.req.method === 'HEAD') return;
  throw new VaultdError('METHOD_NOT_ALLOWED', `method ${x.req.method} is not allowed; this API is read-only (GET, HEAD, OPTIONS)`, {
    details: { allowed: ['GET', 'HEAD', 'OPTIONS'] },
  });
};
