// Test helper: one hand-made valid 200 body per JSON operation (keyed by operationId), written
// from the seed and DESIGN §4–§5 rather than from engine output, plus `mutated` to derive invalid ones.

const VAULT = '0x8eb67a509616cd6a7c1b3c8c21d48ff57df3d458';
const VAULT_ID = `1:${VAULT}`;
const WALLET = '0x1111111111111111111111111111111111111111';
const USDC = { address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', decimals: 6, symbol: 'USDC' };
const HASH = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const T = '2026-01-15T00:00:00Z';

export const ITEM_META = { refreshed_at: T, request_id: 'req-1' };
export const LIST_META = { count: 1, limit: 1000, next_cursor: null, partial_errors: null, refreshed_at: T, request_id: 'req-1' };
const WINDOW_META = { ...LIST_META, start: '2026-01-01T00:00:00Z', end: T };
const WALLET_META = { ...LIST_META, limit: 100, start: null, end: null };

export const VAULT_METRICS = {
  tvl: { native: '1234.5', usd: '1235.48' },
  unit_price: '1.052',
  total_supply: '1173.479087452471482889',
  apy_7d: 0.0573,
  apy_30d: 0.0491,
  apy_90d: null,
  as_of: 1768435200,
};

export const VAULT_DETAIL = {
  vault_id: VAULT_ID,
  chain_id: 1,
  address: VAULT,
  vault_type: 'morpho_v1',
  name: 'Gauntlet USDC Prime',
  symbol: 'gtUSDCp',
  numeraire_token: USDC,
  metrics: VAULT_METRICS,
  group: {
    id: 'grp-usdc-prime',
    slug: 'gauntlet-usdc-prime',
    is_primary: true,
    is_stable: true,
    deployment_date: '2024-06-01',
    description: null,
  },
  strategy: { id: 'prime-lending', name: 'Prime Lending' },
};

const POSITION_VALUES = {
  shares_owned: '95.057034220532319391',
  value: { native: '100', usd: '100.08' },
  cost_basis: { native: '98.5', usd: '98.52' },
  pnl: {
    realized: { native: '0', usd: '0' },
    unrealized: { native: '1.5', usd: '1.56' },
    total: { native: '1.5', usd: '1.56' },
  },
  roi_pct: { native: 1.52, usd: null },
};

export const POSITION = {
  vault_id: VAULT_ID,
  wallet_address: WALLET,
  numeraire_token: USDC,
  metrics: {
    shares_owned: POSITION_VALUES.shares_owned,
    value: POSITION_VALUES.value,
    cost_basis: POSITION_VALUES.cost_basis,
    pending_deposit_assets: { native: '0', usd: '0' },
    pending_redeem_shares: '0',
    pnl: POSITION_VALUES.pnl,
    roi_pct: POSITION_VALUES.roi_pct,
  },
};

export const ACTIVITY_ROW = {
  id: '1:21000000:17:0',
  type: 'deposit_pending',
  vault_id: VAULT_ID,
  block_timestamp: 1768000000,
  block_number: 21000000,
  block_hash: HASH(1),
  tx_hash: HASH(2),
  log_index: 17,
  request_hash: HASH(3),
  shares_delta: '0',
  assets_delta: { native: '250', token: USDC },
};

export const REQUEST_ITEM = {
  request_hash: HASH(3),
  vault_id: VAULT_ID,
  type: 'deposit',
  status: 'expired',
  requested: { timestamp: '2026-01-09T23:06:40Z', block_number: 21000000, tx_hash: HASH(2) },
  resolved: null,
  amount: '250',
  deadline: '2026-01-10T03:00:00Z',
  solver_tip: '0.25',
  age_seconds: 86400,
  refundable: true,
};

export const TVL = {
  tvl: { usd: '285228283.180226' },
  updated_at: T,
  totals: [
    { id: 'vaults', label: 'Indexed vaults', tvl: { usd: '44402443.080226' }, updated_at: T },
    { id: 'legacy', label: 'Legacy vaults API', tvl: { usd: null }, updated_at: null },
  ],
};

export const SAMPLE_BODIES: Record<string, unknown> = {
  getHealth: { status: 'ok', version: '0.1.0', uptime_seconds: 42 },
  listChainHealth: [
    { chain_id: 1, latest_block: 21000000, latest_timestamp: 1768435200, lag_seconds: 12, freshness: 'fresh' },
    { chain_id: 8453, latest_block: null, latest_timestamp: null, lag_seconds: null, freshness: 'stalled' },
  ],
  getSlo: {
    objectives: { freshness_seconds: 7200, latency_p99_ms: 50, availability: 0.999 },
    publish_age_seconds: 312,
    windows: {
      '5m': {
        requests: 200,
        errors_5xx: 0,
        non_5xx_ratio: 1.0,
        error_budget_left: 1.0,
        burn_rate: 0.0,
        latency_ms: {
          health: { requests: 2, p50: 0.08, p99: 0.16 },
          vaults: { requests: 198, p50: 0.226, p99: 2.56 },
          users: { requests: 0, p50: null, p99: null },
          aggregates: { requests: 0, p50: null, p99: null },
          prices: { requests: 0, p50: null, p99: null },
          other: { requests: 0, p50: null, p99: null },
        },
        chains: [{ chain_id: 1, samples: 30, lag_seconds: { p50: 16, p99: 23, max: 19 } }],
      },
      '1h': {
        requests: 4000,
        errors_5xx: 1,
        non_5xx_ratio: 0.99975,
        error_budget_left: 0.75,
        burn_rate: 0.25,
        latency_ms: {
          health: { requests: 2, p50: 0.08, p99: 0.16 },
          vaults: { requests: 3998, p50: 0.226, p99: 2.56 },
          users: { requests: 0, p50: null, p99: null },
          aggregates: { requests: 0, p50: null, p99: null },
          prices: { requests: 0, p50: null, p99: null },
          other: { requests: 0, p50: null, p99: null },
        },
        chains: [{ chain_id: 1, samples: 30, lag_seconds: { p50: 16, p99: 23, max: 19 } }],
      },
      '24h': {
        requests: 90000,
        errors_5xx: 30,
        non_5xx_ratio: 0.9996666666666667,
        error_budget_left: 0.6666666666666667,
        burn_rate: 0.3333333333333333,
        latency_ms: {
          health: { requests: 2, p50: 0.08, p99: 0.16 },
          vaults: { requests: 89998, p50: 0.226, p99: 2.56 },
          users: { requests: 0, p50: null, p99: null },
          aggregates: { requests: 0, p50: null, p99: null },
          prices: { requests: 0, p50: null, p99: null },
          other: { requests: 0, p50: null, p99: null },
        },
        chains: [{ chain_id: 1, samples: 30, lag_seconds: { p50: 16, p99: 23, max: 19 } }],
      },
    },
  },
  listVaults: { data: [VAULT_DETAIL], meta: LIST_META },
  listFeaturedVaults: {
    data: [
      {
        name: 'Gauntlet USDC Prime',
        slug: 'gauntlet-usdc-prime',
        vault_id: 'grp-usdc-prime',
        chains: ['ethereum', 'base'],
        vault_ids: [VAULT_ID, `8453:${VAULT}`],
        tvl: { usd: '2000' },
        apy_7d_max: 0.06,
        apy_30d_max: null,
        apy_90d_max: null,
        description: 'Prime lending.',
        short_description: null,
        supply_token: 'USDC',
        updated_at: T,
      },
    ],
    meta: { ...LIST_META, limit: null },
  },
  listVaultsBySlug: { data: [VAULT_DETAIL], meta: { ...LIST_META, limit: null } },
  getVault: { data: VAULT_DETAIL, meta: ITEM_META },
  getVaultDefinition: {
    data: {
      vault_id: VAULT_ID,
      chain_id: 1,
      address: VAULT,
      vault_type: 'morpho_v1',
      name: 'Gauntlet USDC Prime',
      symbol: 'gtUSDCp',
      owner: '0x38fe54d007277538b6aeb7ca583597d4660abae8',
      numeraire_token: USDC,
      curator: '0xae3578796736d4e9e69ffbb1dcb75e53423bea10',
      fee_wad: '100000000000000000',
      fee_recipient: null,
      timelock_seconds: 259200,
    },
    meta: ITEM_META,
  },
  getVaultTimeseries: {
    data: [{ timestamp: T, total_supply: '1173.5', tvl: { native: '1234.5', usd: null }, unit_price: '1.052', apy_7d: null, apy_30d: null, apy_90d: null }],
    meta: WINDOW_META,
  },
  getVaultAllocations: {
    data: {
      vault_id: VAULT_ID,
      as_of: T,
      allocations: [
        {
          category: 'lending',
          target: {
            address: '0xe0ad403a0d8037937bd2ce33cfb9433aba07af1f',
            chain_id: 1,
            kind: 'asset',
            strategy_type: 'morpho_market',
            symbol: 'WBTC/USDC',
            name: 'Morpho Blue WBTC/USDC 91.5%',
            protocol: { id: 'morpho-blue', name: 'Morpho Blue' },
          },
          allocation: 0.95,
          amount: 1172.8,
          amount_usd: 1173.73,
        },
        {
          category: 'bridge',
          target: {
            address: USDC.address,
            chain_id: 1,
            kind: 'asset',
            strategy_type: 'idle',
            symbol: 'USDC',
            flow: { kind: 'pending_deposit', target_vault_address: VAULT },
          },
          allocation: 0.05,
          amount: 61.7,
          amount_usd: null,
        },
      ],
    },
    meta: ITEM_META,
  },
  listPositions: { data: [POSITION], meta: WALLET_META },
  getPosition: { data: POSITION, meta: ITEM_META },
  getPositionTimeseries: { data: [{ timestamp: T, ...POSITION_VALUES }], meta: WINDOW_META },
  listActivity: { data: [ACTIVITY_ROW], meta: WALLET_META },
  listRequests: { data: [REQUEST_ITEM], meta: WALLET_META },
  getVaultApy: {
    data: {
      vault_id: VAULT_ID,
      at: T,
      windows: [
        {
          window: '7d',
          days: 7,
          apy: 0.0573,
          method: 'compound',
          start: { timestamp: '2026-01-08T00:00:00Z', block_number: 21000000, unit_price: '1.051' },
          end: { timestamp: T, block_number: 21050400, unit_price: '1.052' },
          elapsed_seconds: 604800,
          points: 168,
          reason: null,
        },
        {
          window: '90d',
          days: 90,
          apy: null,
          method: 'compound',
          start: null,
          end: { timestamp: T, block_number: 21050400, unit_price: '1.052' },
          elapsed_seconds: null,
          points: null,
          reason: 'warming_up',
        },
      ],
    },
    meta: ITEM_META,
  },
  listPositionLots: {
    data: [
      {
        lot_id: '1:21000000:3:0',
        acquired: { type: 'deposit', timestamp: '2026-01-02T10:00:00Z', block_number: 21000000, tx_hash: HASH(3), log_index: 3 },
        shares_acquired: '100',
        shares_open: '60',
        cost: { native: '100', usd: '100.02' },
        cost_open: { native: '60', usd: '60.012' },
        unit_cost: { native: '1', usd: '1.0002' },
        disposals: [
          {
            timestamp: '2026-01-10T10:00:00Z',
            tx_hash: HASH(4),
            shares: '40',
            proceeds: { native: '42', usd: '42.01' },
            cost: { native: '40', usd: '40.008' },
            realized: { native: '2', usd: '2.002' },
          },
        ],
      },
    ],
    meta: { ...LIST_META, limit: 100 },
  },
  getTvl: {
    data: TVL,
    meta: {
      partial_errors: [{ code: 'TVL_SOURCE_FAILED', message: 'external TVL source "legacy" failed', resource_id: 'legacy' }],
      ...ITEM_META,
    },
  },
  listStrategies: {
    data: [
      {
        id: 'prime-lending',
        name: 'Prime Lending',
        tvl: { usd: null },
        vault_count: 3,
        apy_7d_max: null,
        apy_30d_max: 0.05,
        apy_90d_max: null,
        description: null,
        short_description: null,
        updated_at: null,
      },
    ],
    meta: { ...LIST_META, limit: null },
  },
  getPrice: { address: USDC.address, chain_id: 1, currency: 'usd', price: { decimals: 6, usd: 1.000799 }, symbol: 'USDC', timestamp: T },
  getPriceTimeseries: { data: [{ price: { usd: 1.0002 }, timestamp: T }] },
};

export const DELETE = Symbol('delete');

/** A deep copy of `body` with the value at `path` replaced (or removed with DELETE). */
export function mutated(body: unknown, path: readonly (string | number)[], value: unknown): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (value === DELETE) delete at[last];
  else at[last] = value;
  return copy;
}
