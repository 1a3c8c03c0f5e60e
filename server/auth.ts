// Who is calling (DESIGN §5.5): an API key presented as `Authorization: Bearer <secret>` or
// `x-api-key: <secret>`, checked against the SHA-256 digests of active keys; else anonymous.
//
// Lookup is by digest in a Map, then one timingSafeEqual to confirm. Comparing against every
// digest would cost O(keys) per request and protects nothing more: the Map's timing can only
// reveal something about stored digests relative to digests the caller chose, and a digest
// does not authenticate — the server hashes whatever it is sent, so a caller would need a
// SHA-256 preimage of a 256-bit random secret. What must never be compared or cached is the
// raw secret (string equality exits at the first differing character), and it isn't.
import { hash, timingSafeEqual } from 'node:crypto';
import { VaultdError } from '../common/errors.js';

export interface AuthKey {
  id: string;
  /** hex SHA-256 of the secret, as store/apiKeys.ts stores it */
  secret_sha256: string;
  tier: string;
}

export type AuthResult = { kind: 'anonymous' } | { kind: 'key'; id: string; tier: string } | { kind: 'invalid' };

export interface AuthHeaders {
  /** the Authorization header; '' counts as absent (uWS reports absent headers as '') */
  authorization?: string;
  /** the x-api-key header; '' counts as absent */
  apiKey?: string;
}

export interface AuthTable {
  authenticate(headers: AuthHeaders): AuthResult;
  readonly size: number;
}

const ANONYMOUS: AuthResult = Object.freeze({ kind: 'anonymous' });
const INVALID: AuthResult = Object.freeze({ kind: 'invalid' });
const DIGEST_HEX = /^[0-9a-f]{64}$/i;
// RFC 6750 b64token (keys are `vk_` + base64url); the length bound keeps hashing cheap.
const SECRET = /^[A-Za-z0-9\-._~+/]{1,512}=*$/;
const BEARER = /^bearer +(\S+) *$/i;

export function createAuthTable(keys: readonly AuthKey[]): AuthTable {
  const byDigest = new Map<string, { digest: Buffer; result: AuthResult }>();
  for (const key of keys) {
    if (!DIGEST_HEX.test(key.secret_sha256)) {
      throw new VaultdError('INTERNAL', `API key "${key.id}" has a malformed secret_sha256; expected 64 hex digits`);
    }
    const hex = key.secret_sha256.toLowerCase();
    byDigest.set(hex, { digest: Buffer.from(hex, 'hex'), result: Object.freeze({ kind: 'key', id: key.id, tier: key.tier }) });
  }

  return {
    authenticate({ authorization, apiKey }) {
      let secret: string | undefined;
      if (authorization) {
        const match = BEARER.exec(authorization);
        if (match === null) return INVALID; // another scheme, or `Bearer` with no token
        secret = match[1]!;
      }
      if (apiKey) {
        if (secret !== undefined && secret !== apiKey) return INVALID;
        secret = apiKey;
      }
      if (secret === undefined) return ANONYMOUS;
      if (!SECRET.test(secret)) return INVALID;
      // Node's one-shot hash with a hex digest: ~0.5-0.8 µs, against createHash's object and
      // Buffer (~3 µs of a keyed request); the digest's bytes are made only on a hit
      const presented = hash('sha256', secret, 'hex');
      const entry = byDigest.get(presented);
      return entry !== undefined && timingSafeEqual(entry.digest, Buffer.from(presented, 'hex')) ? entry.result : INVALID;
    },
    get size() {
      return byDigest.size;
    },
  };
}
