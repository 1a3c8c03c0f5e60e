// The SDK client every data page uses (the only way the explorer reads data), with the API key
// the header form keeps in the tab.
import { createClient, type VaultdClient } from '../client/createClient.js';
import { KEY_STORAGE } from './key.js';

export function client(): VaultdClient {
  const apiKey = sessionStorage.getItem(KEY_STORAGE) || undefined;
  return createClient({ baseUrl: location.origin, apiKey, retry: { retries: 1, baseDelayMs: 500, maxDelayMs: 5000 } });
}
