// auth: the credential of a /v1 request (Bearer or x-api-key), or anonymous when the config
// allows it. A browser's preflight carries no credential, so it is never authenticated.
// /metrics is public unless `server.metrics_public` is false: then it takes a valid key too,
// whatever `auth.anonymous` says (the numbers show traffic and keys' use).
import { VaultdError } from '../../../common/errors.js';
import type { AuthTable } from '../../auth.js';
import { ANONYMOUS, refusedOnRoute, type Step } from '../../exchange.js';

export const METRICS_PATH = '/metrics';

export function createAuthStep(deps: { auth: () => AuthTable; anonymous: boolean; metricsPublic?: boolean }): Step {
  const privateMetrics = deps.metricsPublic === false;
  return (x) => {
    if (!x.isV1) {
      if (privateMetrics && !x.preflight && x.req.path === METRICS_PATH) metricsCredential(x, deps.auth());
      return;
    }
    x.who =
      x.preflight || (!x.req.authorization && !x.req.apiKey)
        ? ANONYMOUS
        : deps.auth().authenticate({ authorization: x.req.authorization, apiKey: x.req.apiKey });
    if (x.who.kind === 'invalid') {
      refusedOnRoute(x);
      throw new VaultdError('UNAUTHORIZED', 'the credential is unknown or revoked; pass a valid key as "Authorization: Bearer <key>" or "x-api-key: <key>"');
    }
    if (x.who.kind === 'anonymous' && !deps.anonymous && !x.preflight) {
      refusedOnRoute(x);
      throw new VaultdError('UNAUTHORIZED', 'this server requires a credential; pass "Authorization: Bearer <key>" or "x-api-key: <key>"');
    }
  };
}

function metricsCredential(x: Parameters<Step>[0], auth: AuthTable): void {
  const who = !x.req.authorization && !x.req.apiKey ? ANONYMOUS : auth.authenticate({ authorization: x.req.authorization, apiKey: x.req.apiKey });
  if (who.kind === 'key') return;
  refusedOnRoute(x);
  throw new VaultdError(
    'UNAUTHORIZED',
    who.kind === 'invalid'
      ? 'the credential is unknown or revoked; pass a valid key as "Authorization: Bearer <key>" or "x-api-key: <key>"'
      : '/metrics requires a credential on this server (server.metrics_public is false); pass "Authorization: Bearer <key>" or "x-api-key: <key>"',
  );
}
