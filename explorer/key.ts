// Where the header's API key lives: the tab's sessionStorage (gone when the tab closes).
export const KEY_STORAGE = 'vaultd.apiKey';
