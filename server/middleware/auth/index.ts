// auth: the credential of a /v1 request (Bearer or x-api-key), or anonymous when the config
// allows it. A browser's preflight carries no credential, so it is never authenticated.
import { VaultdError } from '../../../common/errors.js';
import type { AuthTable } from '../../auth.js';
import { ANONYMOUS, type Step } from '../../exchange.js';

export function createAuthStep(deps: { auth: () => AuthTable; anonymous: boolean }): Step {
  return (x) => {
    if (!x.isV1) return;
    x.who =
      x.preflight || (!x.req.authorization && !x.req.apiKey)
        ? ANONYMOUS
        : deps.auth().authenticate({ authorization: x.req.authorization, apiKey: x.req.apiKey });
    if (x.who.kind === 'invalid')
      throw new VaultdError('UNAUTHORIZED', 'the credential is unknown or revoked; pass a valid key as "Authorization: Bearer <key>" or "x-api-key: <key>"');
    if (x.who.kind === 'anonymous' && !deps.anonymous && !x.preflight) {
      throw new VaultdError('UNAUTHORIZED', 'this server requires a credential; pass "Authorization: Bearer <key>" or "x-api-key: <key>"');
    }
  };
}
