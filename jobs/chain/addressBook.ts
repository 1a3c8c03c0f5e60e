// The registered contracts of one chain, from the config registry: vaults by address (ids as
// `{chainId}:{lowercase address}`), each Aera vault's provisioner and fee calculator, and which
// kind of emitter an address is (decides which events it may emit).
import type { Config } from '../../common/config.js';
import { familyOf, type Ledger } from '../../families/index.js';
import type { VaultType } from '../../model/rows.js';
import type { Emitter } from './chainAbis.js';

export interface IndexedVault {
  vault_id: string;
  /** lowercase */
  address: string;
  vault_type: VaultType;
  family: Ledger;
  numeraire: { address: string; decimals: number; symbol: string };
  provisioner: string | null;
  calculator: string | null;
  start_block: number;
}

export interface AddressBook {
  chainId: number;
  vaults: readonly IndexedVault[];
  byAddress: ReadonlyMap<string, IndexedVault>;
  /** provisioner address → the vault it serves */
  provisioners: ReadonlyMap<string, IndexedVault>;
  calculators: ReadonlySet<string>;
  emitterOf(address: string): Emitter | null;
  /** every address whose logs a range fetches for these vaults */
  addressesOf(vaults: readonly IndexedVault[]): string[];
  /** vault types the chain path does not index (identity only) */
  skipped: readonly { vault_id: string; vault_type: VaultType }[];
}

export function vaultId(chainId: number, address: string): string {
  return `${chainId}:${address.toLowerCase()}`;
}

export function createAddressBook(config: Pick<Config, 'registry'>, chainId: number): AddressBook {
  const vaults: IndexedVault[] = [];
  const skipped: { vault_id: string; vault_type: VaultType }[] = [];
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
      family: ledger,
      numeraire: { address: v.numeraire_token.address.toLowerCase(), decimals: v.numeraire_token.decimals, symbol: v.numeraire_token.symbol },
      provisioner: v.provisioner?.toLowerCase() ?? null,
      calculator: v.fee_calculator?.toLowerCase() ?? null,
      start_block: v.start_block ?? 0,
    });
  }
  const byAddress = new Map(vaults.map((v) => [v.address, v]));
  const provisioners = new Map<string, IndexedVault>();
  const calculators = new Set<string>();
  for (const v of vaults) {
    if (v.provisioner && !provisioners.has(v.provisioner)) provisioners.set(v.provisioner, v);
    if (v.calculator) calculators.add(v.calculator);
  }
  return {
    chainId,
    vaults,
    byAddress,
    provisioners,
    calculators,
    skipped,
    emitterOf(address) {
      const v = byAddress.get(address);
      if (v) return v.family;
      if (provisioners.has(address)) return 'provisioner';
      if (calculators.has(address)) return 'calculator';
      return null;
    },
    addressesOf(list) {
      const out = new Set<string>();
      for (const v of list) {
        out.add(v.address);
        if (v.provisioner) out.add(v.provisioner);
        if (v.calculator) out.add(v.calculator);
      }
      return [...out].sort();
    },
  };
}
