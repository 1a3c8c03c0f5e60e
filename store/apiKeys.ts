// API credentials (DESIGN §5.5): a random secret shown once, stored only as its SHA-256.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { VaultdError } from '../common/errors.js';
import type { Store } from './store.js';

export interface ApiKeyInfo {
  id: string;
  name: string;
  tier: string;
  created_at: string;
  revoked_at: string | null;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

export async function createApiKey(store: Store, name: string, tier = 'keyed'): Promise<{ id: string; secret: string }> {
  if (!/^[\w .@-]{1,64}$/.test(name)) {
    throw new VaultdError('USAGE', `invalid key name "${name}": use 1-64 letters, digits, spaces or . _ @ -`);
  }
  const id = `key_${randomBytes(6).toString('hex')}`;
  const secret = `vk_${randomBytes(32).toString('base64url')}`;
  await store.run('keys.create', 'INSERT INTO api_keys VALUES ($1, $2, $3, $4, now()::TIMESTAMP, NULL)', [id, name, hashSecret(secret), tier]);
  return { id, secret };
}

export async function listApiKeys(store: Store): Promise<ApiKeyInfo[]> {
  return store.rows<ApiKeyInfo>(
    'keys.list',
    `SELECT id, name, tier, strftime(created_at, '%Y-%m-%dT%H:%M:%SZ') AS created_at,
            strftime(revoked_at, '%Y-%m-%dT%H:%M:%SZ') AS revoked_at
       FROM api_keys ORDER BY created_at, id`,
  );
}

export async function revokeApiKey(store: Store, id: string): Promise<void> {
  const row = await store.one<{ revoked: boolean }>('keys.find', 'SELECT revoked_at IS NOT NULL AS revoked FROM api_keys WHERE id = $1', [id]);
  if (!row) throw new VaultdError('NOT_FOUND', `no API key with id "${id}"; see \`vaultd keys list\``);
  if (row.revoked) return;
  await store.run('keys.revoke', 'UPDATE api_keys SET revoked_at = now()::TIMESTAMP WHERE id = $1', [id]);
}

/** Active key digests for the server's in-memory auth table. */
export async function activeKeyDigests(store: Store): Promise<{ id: string; secret_sha256: string; tier: string }[]> {
  return store.rows('keys.active', 'SELECT id, secret_sha256, tier FROM api_keys WHERE revoked_at IS NULL');
}
