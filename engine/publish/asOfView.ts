// Views of the past (DESIGN §11.6, `as_of`): the answer a publish would have given with the data
// known up to an instant — snapshots, events and prices at or before it; the vaults listed by
// then, with today's settings (visibility, featured rank, strategy); allocations and external
// TVL readings as kept in their history. A view shares the published world's arrays: each
// series, price series and the event table is the same memory with a shorter length (every
// one is in time order, so "at or before t" is a prefix), and positions are replayed per wallet
// on first use (engine/publish/pastPositions.ts). The read model's views build it only for the
// routes over the whole world (pastView.ts); one vault's pages read that vault's series alone.
import { isoSeconds } from '../../model/format/numbers.js';
import type { PriceSeries, TvlSourceState, World } from '../../model/world.js';
import { primeUsdTable, usdTable } from '../positions/usdPriceCache.js';
import { buildSnapshot, type Snapshot } from './buildSnapshot.js';
import { upperBound } from '../../common/search.js';

/** The world as it was at `at` (seconds). */
export function worldAt(world: World, at: number): World {
  const series = new Map<string, World['series'] extends Map<string, infer S> ? S : never>();
  for (const [id, s] of world.series) series.set(id, { ...s, length: upperBound(s.ts, s.length, at) });
  const prices = new Map<string, PriceSeries>();
  for (const [key, p] of world.prices) {
    const n = upperBound(p.ts, p.ts.length, at);
    if (n === p.ts.length) {
      prices.set(key, p);
      continue;
    }
    const cut: PriceSeries = { chain_id: p.chain_id, address: p.address, ts: p.ts.subarray(0, n), usd: p.usd, usd_f: p.usd_f.subarray(0, n) };
    // the exact prices as the full series has them (the first n are the cut's): not parsed again
    primeUsdTable(cut, usdTable(p));
    prices.set(key, cut);
  }
  // a vault appears once its first snapshot is at or before the instant (DESIGN §11.6)
  const listed = world.registry.vaults.filter((v) => {
    const s = world.series.get(v.vault_id);
    return s !== undefined && s.length > 0 && s.ts[0]! <= at;
  });
  const vaults = new Map(listed.map((v) => [v.vault_id, v]));
  let end = 0;
  for (const s of series.values()) if (s.length > 0) end = Math.max(end, s.ts[s.length - 1]!);
  const history = world.history;
  return {
    ...world,
    registry: { ...world.registry, vaults: listed },
    vaults,
    series,
    prices,
    events: { ...world.events, length: upperBound(world.events.ts, world.events.length, at) },
    positionItems: null,
    allocations: history ? allocationsAt(history.allocations, at) : new Map(),
    tvlSources: history ? tvlSourcesAt(world.tvlSources, history.tvlValues, at) : world.tvlSources,
    end,
  };
}

/** Each vault's newest allocation snapshot at or before `at`. */
function allocationsAt(all: NonNullable<World['history']>['allocations'], at: number): World['allocations'] {
  const out: World['allocations'] = new Map();
  for (const [id, snaps] of all) {
    let pick: (typeof snaps)[number] | undefined;
    for (const s of snaps) if (s.as_of <= at && (!pick || s.as_of > pick.as_of)) pick = s;
    if (pick) out.set(id, pick);
  }
  return out;
}

/** Each external TVL source's state from its readings at or before `at`: the last good value and an error newer than it. */
function tvlSourcesAt(now: readonly TvlSourceState[], readings: NonNullable<World['history']>['tvlValues'], at: number): TvlSourceState[] {
  return now.map((s) => {
    let good: TvlSourceState['last_good'] = null;
    let error: TvlSourceState['last_error'] = null;
    for (const r of readings.get(s.id) ?? []) {
      if (r.ts > at) break;
      if (r.usd !== null) {
        good = { usd: r.usd, ts: r.ts };
        error = null;
      } else if (r.error !== null) error = { message: r.error, ts: r.ts };
    }
    return { ...s, last_good: good, last_error: error };
  });
}

/**
 * The snapshot a publish would have made of the world at `at` (its vault and aggregate pages; no
 * position items); `echo`: its answers carry meta.as_of.
 */
export function snapshotAt(base: Snapshot, at: number, echo = true): Snapshot {
  return buildSnapshot(worldAt(base.world, at), { generation: base.generation, now: base.refreshed_at_s, ...(echo ? { asOf: isoSeconds(at) } : {}) });
}

/**
 * snapshotAt, built only as far as it is read: the world is cut at once (cheap), the vault and
 * aggregate pages of the whole world on the first read of any of them. The wallet routes of a
 * view (positions, activity) read only the world, so they never pay for every vault's page.
 */
export function lazySnapshotAt(base: Snapshot, at: number, echo = true): Snapshot {
  const world = worldAt(base.world, at);
  const asOf = echo ? isoSeconds(at) : null;
  let built: Snapshot | null = null;
  const full = () => (built ??= buildSnapshot(world, { generation: base.generation, now: base.refreshed_at_s, ...(asOf !== null ? { asOf } : {}) }));
  const s = {
    generation: base.generation,
    refreshed_at: isoSeconds(base.refreshed_at_s),
    refreshed_at_s: base.refreshed_at_s,
    as_of: asOf,
    world,
    wallets: world.walletIndex,
  } as Snapshot;
  for (const key of LAZY_PARTS) Object.defineProperty(s, key, { get: () => full()[key], enumerable: true });
  return s;
}

const LAZY_PARTS = [
  'metrics',
  'details',
  'vaultList',
  'slugs',
  'definitions',
  'allocations',
  'strategies',
  'featured',
  'tvl',
  'latestPrices',
  'priceBodies',
  'pages',
] as const satisfies readonly Exclude<keyof Snapshot, 'generation' | 'refreshed_at' | 'refreshed_at_s' | 'as_of' | 'world' | 'wallets'>[];

/** The latest instant a view can be asked for: the newest snapshot, event or price of the world. */
export function dataEnd(world: World): number {
  let end = world.events.length > 0 ? world.events.ts[world.events.length - 1]! : 0;
  for (const s of world.series.values()) if (s.length > 0) end = Math.max(end, s.ts[s.length - 1]!);
  for (const p of world.prices.values()) if (p.ts.length > 0) end = Math.max(end, p.ts[p.ts.length - 1]!);
  return end;
}
