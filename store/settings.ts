// Small key/value settings kept in the database (demo parameters, the cursor HMAC secret).
import { randomBytes } from 'node:crypto';
import type { Store } from './store.js';

const CURSOR_SECRET = 'cursor.secret';

/** JSON list of `{provider, error}`: the price providers that failed the last prices round. */
export const PRICE_PROVIDER_ERRORS = 'prices.provider_errors';

export async function getSetting(store: Store, key: string): Promise<string | null> {
  const row = await store.one<{ value: string }>('settings.get', 'SELECT value FROM settings WHERE key = $1', [key]);
  return row?.value ?? null;
}

export async function setSetting(store: Store, key: string, value: string): Promise<void> {
  await store.run('settings.set', 'INSERT OR REPLACE INTO settings VALUES ($1, $2)', [key, value]);
}

/** The HMAC secret of pagination cursors (base64url): generated and stored on first use (DESIGN §5.4). */
export async function cursorSecret(store: Store): Promise<string> {
  const stored = await getSetting(store, CURSOR_SECRET);
  if (stored) return stored;
  const fresh = randomBytes(32).toString('base64url');
  await setSetting(store, CURSOR_SECRET, fresh);
  return fresh;
}
