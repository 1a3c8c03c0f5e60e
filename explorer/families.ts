// Vault families by the names their users know them by. The API names a family only by its id
// (`vault_type`), so the explorer keeps this small table; an id it does not know is shown as it is.

const NAMES: Readonly<Record<string, string>> = {
  aera_v3: 'Aera v3',
  morpho_v1: 'Morpho Vaults v1',
  morpho_v2: 'Morpho Vaults v2',
  symbiotic: 'Symbiotic',
  erc4626: 'ERC-4626',
};

/** "morpho_v2" → "Morpho Vaults v2"; an unknown id unchanged. */
export function familyName(vaultType: string): string {
  return Object.hasOwn(NAMES, vaultType) ? NAMES[vaultType]! : vaultType;
}
