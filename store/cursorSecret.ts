// The store's cursor secret (DESIGN §5.4): the HMAC key of pagination cursors, made once per
// database and kept in its settings, so every process that serves the store — the writer, a
// restart, `vaultd publish` and the readers of its snapshot directory — signs and accepts the
// same cursors. Its hash names the store (storeIdentity): a database replaced by another world
// has another secret, hence another identity.
import { createHash, randomBytes } from 'node:crypto';
import { getSetting, setSetting } from './settings.js';
import type { Store } from './store.js';

const KEY = 'cursor.secret';

/** The stored secret; made and stored on first use (null instead when `create` is false and none is stored). */
export async function cursorSecret(store: Store): Promise<Buffer>;
export async function cursorSecret(store: Store, create: false): Promise<Buffer | null>;
export async function cursorSecret(store: Store, create = true): Promise<Buffer | null> {
  const stored = await getSetting(store, KEY);
  if (stored) return Buffer.from(stored, 'base64url');
  if (!create) return null;
  const fresh = randomBytes(32);
  await setSetting(store, KEY, fresh.toString('base64url'));
  return fresh;
}

/** A public name of the store the secret belongs to (16 hex digits; reveals nothing of the secret). */
export function storeIdentity(secret: Buffer | string): string {
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'base64url') : secret;
  return createHash('sha256').update('vaultd store identity\0').update(bytes).digest('hex').slice(0, 16);
}
