// Runs the demo world (DESIGN §7) into a RawSink: prices, then every vault's hourly snapshots
// and events, allocations at the end hour, and the external TVL sources' daily readings.
import type { RawSink } from '../../store/rawSink.js';
import { familyOf } from '../../families/index.js';
import { EVENT_KINDS, type EventKind, type Registry, type TokenRow, type VaultRow } from '../../model/rows.js';
import { VaultdError } from '../../common/errors.js';
import { buildAllocations } from './buildAllocations.js';
import { tokenByAddress } from './catalog.js';
import { ChainClock } from './chainClock.js';
import { demoAnomalies } from './demoAnomalies.js';
import { assertDemoParams, demoHorizon, demoStart, type DemoParams } from './params.js';
import { simulatePrices } from './simulatePrices.js';
import { simulateTvlSources } from './simulateTvlSources.js';
import { simulateVault, type VaultEndState, type VaultSimContext } from './simulateVault.js';
import { createWalletPools } from './walletPools.js';

const HOUR = 3600;
const DAY = 86_400;

export interface SimulateOptions {
  /** emit only rows with ts > fromTs (the previous run's `end`); default: everything */
  fromTs?: number;
  /** last instant to emit rows for (any second); default `params.now`. Extending the world = a later `until`. */
  until?: number;
  /** called about every 1 % of vault-hours, and once at the end */
  onProgress?: (done: number, total: number) => void;
}

export interface SimulationSummary {
  /** first hour of the world */
  start: number;
  /** last instant emitted */
  end: number;
  /** hourly instants emitted, i.e. in (fromTs, end] */
  hours: number;
  /** vaults listed at `end` */
  vaults: number;
  snapshots: number;
  events: number;
  eventsByKind: Record<EventKind, number>;
  prices: number;
  allocations: number;
  tvlSourceValues: number;
  /** distinct wallets (pool wallets and curators) with at least one event up to `end` */
  wallets: number;
}

/**
 * Deterministic and prefix-stable: the world is fixed by `params` (its creation parameters,
 * never changed afterwards) and `registry`; rows at ts ≤ T are the same for every `until` ≥ T.
 * So a live server extends the world with the same params and registry, `fromTs` = the previous
 * `end` and `until` = the new last full hour, and appends exactly the new rows.
 */
export function simulateDemo(params: DemoParams, registry: Registry, sink: RawSink, opts: SimulateOptions = {}): SimulationSummary {
  assertDemoParams(params);
  const start = demoStart(params);
  const until = opts.until ?? params.now;
  if (!Number.isSafeInteger(until) || until < start) {
    throw new VaultdError('USAGE', `demo: "until" must be Unix seconds, not before ${start}, got ${JSON.stringify(opts.until)}`, {
      details: { field: 'until' },
    });
  }
  // the hours simulated: through the one whose step holds `until` (hour H places its events in
  // (H − 1 h, H) and its snapshot at H); rows after `until` are computed, never emitted
  const end = Math.ceil(until / HOUR) * HOUR;
  const fromTs = opts.fromTs ?? -Infinity;

  // Canonical order: the same world whatever order a store hands the registry back in.
  const vaults = [...registry.vaults].sort((a, b) => (a.vault_id < b.vault_id ? -1 : a.vault_id > b.vault_id ? 1 : 0));
  const clocks = new Map<number, ChainClock>();
  const chainCounts = new Map<number, number>();
  const chainIndex = vaults.map((v) => {
    if (!clocks.has(v.chain_id)) clocks.set(v.chain_id, new ChainClock(v.chain_id, params.seed));
    const i = chainCounts.get(v.chain_id) ?? 0;
    chainCounts.set(v.chain_id, i + 1);
    return i;
  });

  const markEvery = allocationEvery(params);
  const prices = simulatePrices(params.seed, pricedTokens(registry.tokens, vaults), start, end, fromTs, sink, { until, markEvery });

  const pools = createWalletPools(params.seed, params.wallets, vaults.length);
  const eventCounts = Object.fromEntries(EVENT_KINDS.map((k) => [k, 0])) as Record<EventKind, number>;
  const firstHour = (v: VaultRow) => Math.max(start, Math.ceil(v.listed_at / HOUR) * HOUR);
  const total = vaults.reduce((s, v) => s + Math.max(0, (end - firstHour(v)) / HOUR + 1), 0);
  const progressStep = Math.max(1, Math.floor(total / 100));
  let done = 0;
  let nextReport = progressStep;
  const onProgress = opts.onProgress;
  const ctx: VaultSimContext = {
    seed: params.seed,
    start,
    end,
    fromTs,
    until,
    markEvery,
    sink,
    pools,
    eventCounts,
    activeWallets: new Uint8Array(params.wallets),
    curators: new Set<string>(),
    tick: onProgress
      ? () => {
          if (++done >= nextReport) {
            nextReport += progressStep;
            onProgress(done, total);
          }
        }
      : () => {},
  };

  const anomalies = demoAnomalies(vaults, start, params.days);
  const states: VaultEndState[] = [];
  let snapshots = 0;
  vaults.forEach((vault, i) => {
    const token = tokenByAddress(vault.chain_id, vault.numeraire_address);
    const state = simulateVault(ctx, {
      vault,
      vaultIndex: i,
      chainIndex: chainIndex[i]!,
      clock: clocks.get(vault.chain_id)!,
      members: pools.members.subarray(pools.offsets[i]!, pools.offsets[i + 1]!),
      price: token?.price ?? 'none',
      refUsd: token?.refUsd ?? 1,
      missed: vault.vault_id === anomalies.missedVault ? [anomalies.missedFrom, anomalies.missedTo] : null,
      jumpHour: vault.vault_id === anomalies.jumpVault ? anomalies.jumpHour : null,
    });
    snapshots += state.snapshots;
    states.push(state);
  });

  // Allocations: a snapshot of each listed vault's breakdown at every allocation instant (its
  // total assets and numeraire price then), so the history a view of the past reads is the
  // same whatever instant the world is built to.
  let allocations = 0;
  vaults.forEach((vault, i) => {
    const state = states[i]!;
    const usdAt = prices.marks.get(`${vault.chain_id}:${vault.numeraire_address}`);
    const [hub, spoke] = bridgePeers(vault, vaults);
    for (const [ts, assets] of state.marks) {
      const tvl = Number(assets) / 10 ** vault.numeraire_decimals;
      for (const row of buildAllocations(params.seed, vault, ts, tvl, usdAt?.get(ts) ?? null, hub, spoke)) {
        sink.allocation(row);
        allocations++;
      }
    }
  });

  // The failing source went down 10 days before the world's horizon (not its `now`: prefix-stable).
  const tvlSourceValues = simulateTvlSources(params.seed, registry.tvl_sources, start, until, demoHorizon(params) - 10 * DAY, fromTs, sink);

  if (onProgress) onProgress(total, total);
  let activeWallets = ctx.curators.size;
  for (const a of ctx.activeWallets) activeWallets += a;
  const firstEmitted = fromTs < start ? start : (Math.floor(fromTs / HOUR) + 1) * HOUR;
  return {
    start,
    end: until,
    hours: Math.max(0, (Math.floor(until / HOUR) * HOUR - firstEmitted) / HOUR + 1),
    vaults: vaults.filter((v) => v.listed_at <= until).length,
    snapshots,
    events: EVENT_KINDS.reduce((s, k) => s + eventCounts[k], 0),
    eventsByKind: eventCounts,
    prices: prices.count,
    allocations,
    tvlSourceValues,
    wallets: activeWallets,
  };
}

/**
 * Seconds between allocation snapshots: daily for the curated world, every 30 days for scale
 * worlds (a thousand vaults' daily breakdowns would be most of the history views keep).
 */
function allocationEvery(params: DemoParams): number {
  return params.vaults === null ? DAY : 30 * DAY;
}

/** Numeraires of the vaults plus any other registry token, once each. */
function pricedTokens(tokens: readonly TokenRow[], vaults: readonly VaultRow[]): TokenRow[] {
  const out = new Map<string, TokenRow>();
  for (const v of vaults) {
    out.set(`${v.chain_id}:${v.numeraire_address}`, {
      chain_id: v.chain_id,
      address: v.numeraire_address,
      symbol: v.numeraire_symbol,
      decimals: v.numeraire_decimals,
    });
  }
  for (const t of tokens) out.set(`${t.chain_id}:${t.address}`, t);
  return [...out.values()].sort((a, b) => a.chain_id - b.chain_id || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

/** Aera groups bridge between chains: a spoke flows toward its hub (the primary), the hub back to a spoke. */
function bridgePeers(vault: VaultRow, vaults: readonly VaultRow[]): [VaultRow | null, VaultRow | null] {
  const bridges = (v: VaultRow) => familyOf(v.vault_type).demo?.bridgesAcrossChains === true;
  if (!bridges(vault) || vault.group_id === null) return [null, null];
  const peers = vaults.filter((v) => v.group_id === vault.group_id && bridges(v) && v.chain_id !== vault.chain_id);
  if (vault.is_primary) return [null, peers[0] ?? null];
  return [peers.find((v) => v.is_primary) ?? null, null];
}
