// Vault resources (seed "VaultDetail", "Vault timeseries point", "Vault definition",
// "Vault allocations"; DESIGN §4.2, §4.7, §5.2): deployment rows, metrics, definition, allocations.
import * as v from 'valibot';
import { FAMILY_TABLE, VAULT_TYPES, type FamilyDefinition, type WireKit } from '../../families/index.js';
import {
  Address,
  AmountPair,
  ChainId,
  DateTime,
  Decimal,
  Double,
  Int64,
  TokenRef,
  UNSIGNED_INTEGER_STRING_PATTERN,
  UnsignedDecimal,
  VaultId,
} from './primitives.js';
import { ApyWindowProvenance, PointQuality, StaleReason } from './audit.js';

export const Apy = v.nullable(Double);

export const StrategyRef = v.strictObject({ id: v.string(), name: v.string() });

export const VaultGroupRef = v.strictObject({
  id: v.string(),
  slug: v.string(),
  is_primary: v.boolean(),
  is_stable: v.boolean(),
  deployment_date: v.nullable(v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/), v.isoDate())),
  description: v.nullable(v.string()),
});

const METRIC_VALUES = {
  tvl: AmountPair,
  unit_price: UnsignedDecimal,
  total_supply: UnsignedDecimal,
  apy_7d: Apy,
  apy_30d: Apy,
  apy_90d: Apy,
};

/**
 * Current metrics: `as_of` is the latest snapshot's Unix time in seconds; a vault with no
 * snapshot yet has every value null, never an invented 0 or 1 (DESIGN §4.2).
 */
export const VaultMetrics = v.strictObject({
  tvl: v.strictObject({ native: v.nullable(Decimal), usd: v.nullable(Decimal) }),
  unit_price: v.nullable(UnsignedDecimal),
  total_supply: v.nullable(UnsignedDecimal),
  apy_7d: Apy,
  apy_30d: Apy,
  apy_90d: Apy,
  as_of: v.nullable(Int64),
  /** with include=provenance (DESIGN §11.2); null for a vault never read */
  apy_provenance: v.optional(v.nullable(v.array(ApyWindowProvenance))),
  /** with include=quality (DESIGN §11.3); null for a vault never read */
  quality: v.optional(v.nullable(PointQuality)),
  stale_reason: v.optional(StaleReason),
});

/** `quality` only with include=quality (DESIGN §11.3). */
export const VaultTimeseriesPoint = v.strictObject({ timestamp: DateTime, ...METRIC_VALUES, quality: v.optional(PointQuality) });

export const VaultType = v.picklist(VAULT_TYPES);

/** A deployment row; `group` is omitted (never null) without a group, `strategy` null without a tag (DESIGN §4.7). */
export const VaultDetail = v.strictObject({
  vault_id: VaultId,
  chain_id: ChainId,
  address: Address,
  vault_type: VaultType,
  name: v.string(),
  symbol: v.string(),
  numeraire_token: TokenRef,
  metrics: VaultMetrics,
  group: v.optional(VaultGroupRef),
  strategy: v.nullable(StrategyRef),
});

const IDENTITY = {
  vault_id: VaultId,
  chain_id: ChainId,
  address: Address,
  name: v.string(),
  symbol: v.string(),
  owner: v.nullable(Address),
  numeraire_token: TokenRef,
};

const WIRE: WireKit = { address: Address, unsignedIntegerString: v.pipe(v.string(), v.regex(UNSIGNED_INTEGER_STRING_PATTERN)) };

/**
 * One `/definition` variant per family definition, in the family table's order (families that
 * share a definition share its component: `MorphoDefinition` for morpho_v1 and morpho_v2):
 * identity, the vault type(s), then the family fields of DESIGN §5.2 — a field the registry
 * lacks is null.
 */
export const DEFINITION_COMPONENTS: Readonly<Record<`${string}Definition`, v.GenericSchema>> = (() => {
  const byComponent = new Map<string, { types: string[]; definition: FamilyDefinition }>();
  for (const f of FAMILY_TABLE) {
    const entry = byComponent.get(f.definition.component);
    if (entry) entry.types.push(f.type);
    else byComponent.set(f.definition.component, { types: [f.type], definition: f.definition });
  }
  return Object.fromEntries(
    [...byComponent].map(([name, { types, definition }]) => {
      const vaultType = types.length === 1 ? v.literal(types[0]!) : v.picklist(types);
      return [name, v.strictObject({ ...IDENTITY, vault_type: vaultType, ...definition.wire(WIRE) })];
    }),
  );
})();

export const VaultDefinition = v.variant('vault_type', Object.values(DEFINITION_COMPONENTS) as unknown as v.VariantOptions<'vault_type'>);

export const AllocationTarget = v.strictObject({
  address: Address,
  chain_id: ChainId,
  kind: v.picklist(['asset']),
  strategy_type: v.string(),
  symbol: v.string(),
  flow: v.optional(v.strictObject({ kind: v.picklist(['pending_deposit', 'pending_redemption']), target_vault_address: Address })),
  name: v.optional(v.string()),
  protocol: v.optional(v.strictObject({ id: v.string(), name: v.string() })),
});

/** DESIGN §4.7 exception by the seed: allocation, amount and amount_usd are JSON numbers. */
export const Allocation = v.strictObject({
  category: v.string(),
  target: AllocationTarget,
  /** fraction, 1.0 = 100 % */
  allocation: v.pipe(Double, v.minValue(0)),
  amount: Double,
  amount_usd: v.nullable(Double),
});

export const VaultAllocations = v.strictObject({ vault_id: VaultId, as_of: DateTime, allocations: v.array(Allocation) });
