// Deployment-level API objects (seed: VaultDetail, definition): identity, numeraire, the
// current metrics, the `group` reference (omitted without a group, DESIGN §4.7) and `strategy`.
import type { Registry, VaultRow } from '../../model/rows.js';
import { familyOf } from '../../families/index.js';
import type { VaultMetrics } from './vaultPoint.js';

export interface TokenRef {
  address: string;
  decimals: number | null;
  symbol: string | null;
}

export interface VaultGroupRef {
  id: string;
  slug: string;
  is_primary: boolean;
  is_stable: boolean;
  deployment_date: string | null;
  description: string | null;
}

export interface VaultDetail {
  vault_id: string;
  chain_id: number;
  address: string;
  vault_type: string;
  name: string;
  symbol: string;
  numeraire_token: TokenRef;
  metrics: VaultMetrics;
  group?: VaultGroupRef;
  strategy: { id: string; name: string } | null;
}

export function numeraireToken(v: VaultRow): TokenRef {
  return { address: v.numeraire_address, decimals: v.numeraire_decimals, symbol: v.numeraire_symbol };
}

export interface RegistryIndex {
  groups: Map<string, Registry['groups'][number]>;
  strategies: Map<string, Registry['strategies'][number]>;
  chains: Map<number, Registry['chains'][number]>;
}

export function indexRegistry(r: Registry): RegistryIndex {
  return {
    groups: new Map(r.groups.map((g) => [g.id, g])),
    strategies: new Map(r.strategies.map((s) => [s.id, s])),
    chains: new Map(r.chains.map((c) => [c.chain_id, c])),
  };
}

export function vaultDetail(v: VaultRow, metrics: VaultMetrics, idx: RegistryIndex): VaultDetail {
  const g = v.group_id ? idx.groups.get(v.group_id) : undefined;
  const s = v.strategy_id ? idx.strategies.get(v.strategy_id) : undefined;
  const detail: VaultDetail = {
    vault_id: v.vault_id,
    chain_id: v.chain_id,
    address: v.address,
    vault_type: v.vault_type,
    name: v.name,
    symbol: v.symbol,
    numeraire_token: numeraireToken(v),
    metrics,
    strategy: s ? { id: s.id, name: s.name } : null,
  };
  if (g) {
    detail.group = {
      id: g.id,
      slug: g.slug,
      is_primary: v.is_primary,
      is_stable: g.is_stable,
      deployment_date: g.deployment_date,
      description: g.description,
    };
  }
  return detail;
}

/** Identity merged with the family fields of DESIGN §5.2; unknown family fields are null. */
export function vaultDefinition(v: VaultRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    vault_id: v.vault_id,
    chain_id: v.chain_id,
    address: v.address,
    vault_type: v.vault_type,
    name: v.name,
    symbol: v.symbol,
    owner: (v.definition.owner as string | undefined) ?? null,
    numeraire_token: numeraireToken(v),
  };
  for (const f of familyOf(v.vault_type).definition.fields) out[f] = v.definition[f] ?? null;
  return out;
}
