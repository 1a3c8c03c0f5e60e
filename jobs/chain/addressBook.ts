// The registered contracts of one chain, from the config registry: vaults by address (ids as
// `{chainId}:{lowercase address}`), each vault's family contracts by role (an Aera vault's
// provisioner and fee calculator), and which vault and role an address is (decides which events
// it may emit, and which vault's checkpoint its logs belong to).
import type { Config } from '../../common/config.js';
import { familyOf, type Emitter, type LedgerVault } from '../../families/index.js';

export interface IndexedVault extends LedgerVault {
  /** the configured start block; else 0 until prepareChain sets the deployment block found */
  start_block: number;
  /** whether `start_block` comes from the configuration */
  start_configured: boolean;
}

export interface AddressBook {
  chainId: number;
  vaults: readonly IndexedVault[];
  byAddress: ReadonlyMap<string, IndexedVault>;
  /** the vault role, else the first vault that registered the address for another role */
  emitterOf(address: string): Emitter | null;
  /** the vault whose checkpoint covers the address's logs (none for a contract several vaults share) */
  ownerOf(address: string): IndexedVault | undefined;
  /** every address whose logs a range fetches for these vaults */
  addressesOf(vaults: readonly IndexedVault[]): string[];
  /** vault types the chain path does not index (identity only) */
  skipped: readonly { vault_id: string; vault_type: string }[];
}

export function vaultId(chainId: number, address: string): string {
  return `${chainId}:${address.toLowerCase()}`;
}

export function createAddressBook(config: Pick<Config, 'registry'>, chainId: number): AddressBook {
  const vaults: IndexedVault[] = [];
  const skipped: { vault_id: string; vault_type: string }[] = [];
  for (const v of config.registry.vaults) {
    if (v.chain_id !== chainId) continue;
    const id = vaultId(chainId, v.address);
    // DESIGN §5.2: a family without a ledger (symbiotic) is identity only; nothing to index
    const ledger = familyOf(v.vault_type).ledger;
    if (ledger === null) {
      skipped.push({ vault_id: id, vault_type: v.vault_type });
      continue;
    }
    vaults.push({
      vault_id: id,
      address: v.address.toLowerCase(),
      vault_type: v.vault_type,
      ledger,
      numeraire: { address: v.numeraire_token.address.toLowerCase(), decimals: v.numeraire_token.decimals, symbol: v.numeraire_token.symbol },
      contracts: ledger.contracts(v),
      start_block: v.start_block ?? 0,
      start_configured: v.start_block !== undefined,
    });
  }
  const byAddress = new Map(vaults.map((v) => [v.address, v]));
  // other roles: the first vault to register an address keeps it
  const others = new Map<string, { role: string; vault: IndexedVault; shared: boolean }>();
  for (const v of vaults) {
    for (const [role, address] of Object.entries(v.contracts)) {
      if (address !== null && !others.has(address)) others.set(address, { role, vault: v, shared: v.ledger.sharedRoles.includes(role) });
    }
  }
  return {
    chainId,
    vaults,
    byAddress,
    skipped,
    emitterOf(address) {
      const v = byAddress.get(address);
      if (v) return { ledger: v.ledger, role: 'vault', vault: v };
      const o = others.get(address);
      return o ? { ledger: o.vault.ledger, role: o.role, vault: o.vault } : null;
    },
    ownerOf(address) {
      const v = byAddress.get(address);
      if (v) return v;
      const o = others.get(address);
      return o && !o.shared ? o.vault : undefined;
    },
    addressesOf(list) {
      const out = new Set<string>();
      for (const v of list) {
        out.add(v.address);
        for (const a of Object.values(v.contracts)) if (a !== null) out.add(a);
      }
      return [...out].sort();
    },
  };
}
