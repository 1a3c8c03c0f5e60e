// Test helper: an exchange as the handler starts one (server/exchange.ts), for the pipeline's
// steps tested one at a time.
import { ANONYMOUS, type Exchange, type IncomingRequest } from '../../server/exchange.js';

export function exchangeOf(req: Partial<IncomingRequest> = {}): Exchange {
  const full: IncomingRequest = {
    method: 'GET',
    path: '/v1/vaults',
    query: '',
    ip: '127.0.0.1',
    authorization: '',
    apiKey: '',
    acceptEncoding: '',
    ifNoneMatch: '',
    requestId: 'step-test',
    ...req,
  };
  return {
    req: full,
    t0: performance.now(),
    clock: Date.now(),
    requestId: full.requestId,
    isV1: full.path === '/v1' || full.path.startsWith('/v1/'),
    preflight: full.method === 'OPTIONS',
    who: ANONYMOUS,
    route: null,
    rateLimit: 0,
    rateRemaining: 0,
    rateReset: 0,
    retryAfter: 0,
  };
}
