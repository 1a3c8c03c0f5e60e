// Small key/value settings kept in the database (demo parameters, the cursor HMAC secret: cursorSecret.ts).
import type { Store } from './store.js';

/** JSON list of `{provider, error}`: the price providers that failed the last prices round. */
export const PRICE_PROVIDER_ERRORS = 'prices.provider_errors';

export async function getSetting(store: Store, key: string): Promise<string | null> {
  const row = await store.one<{ value: string }>('settings.get', 'SELECT value FROM settings WHERE key = $1', [key]);
  return row?.value ?? null;
}

export async function setSetting(store: Store, key: string, value: string): Promise<void> {
  await store.run('settings.set', 'INSERT OR REPLACE INTO settings VALUES ($1, $2)', [key, value]);
}
