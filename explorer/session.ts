// Small values a tab keeps between pages in sessionStorage (chain names, sparklines), so that
// moving between pages does not spend the anonymous request budget twice on the same answer.
// A full or disabled storage only means nothing is kept.
import { chainNamesOf, createChains, type Chains } from './chains.js';

export function recall<T>(key: string): T | null {
  try {
    const raw = sessionStorage.getItem(key);
    return raw === null ? null : (JSON.parse(raw) as T);
  } catch {
    return null;
  }
}

export function keep(key: string, value: unknown): void {
  try {
    sessionStorage.setItem(key, JSON.stringify(value));
  } catch {
    // quota or privacy mode: the value is simply fetched again next time
  }
}

const CHAIN_NAMES = 'vaultd.chainNames';

/** The chain table with the names the API gave last (home learns them from /v1/tvl). */
export function knownChains(): Chains {
  return createChains(recall<Record<number, string>>(CHAIN_NAMES) ?? {});
}

/** Remember the API's chain names of a /v1/tvl breakdown and return the table with them. */
export function learnChains(breakdown: readonly { id: string; label: string }[] | undefined): Chains {
  const names = { ...(recall<Record<number, string>>(CHAIN_NAMES) ?? {}), ...chainNamesOf(breakdown) };
  keep(CHAIN_NAMES, names);
  return createChains(names);
}
