// Fixtures for the position and activity tests and the replay bench: small hand-made series,
// and a demo world (jobs/demo) turned into replay contexts without a database. The unit-price
// rule here is the minimal DESIGN §4.1 one; the engine's own series kernels live in engine/series.
import { buildDemoRegistry, simulateDemo, type DemoParams } from '../../jobs/demo/index.js';
import { parseUnits, unitPriceE18 } from '../../model/format/numbers.js';
import { I128Array } from '../../model/int128.js';
import { priceKey, type PriceSeries, type VaultSeries } from '../../model/world.js';
import { createArraySink } from '../../store/rawSink.js';
import type { EventRow, PriceRow, Registry, SnapshotRow, VaultRow } from '../../model/rows.js';
import type { PositionContext } from '../../engine/positions/replayPosition.js';

const WAD = 10n ** 18n;

/** A series from hourly timestamps and unit prices given as decimal strings ("1.05"). */
export function makeSeries(ts: readonly number[], unitPrices: readonly string[], decimals: number, vaultId = '1:0xvault'): VaultSeries {
  return buildSeries(
    vaultId,
    decimals,
    false,
    ts,
    unitPrices.map((p) => parseUnits(p, 18)),
  );
}

/** A USD price series from timestamps and decimal strings. */
export function makePrices(ts: readonly number[], usd: readonly string[], chainId = 1, address = '0xnum'): PriceSeries {
  return { chain_id: chainId, address, ts: Float64Array.from(ts), usd: [...usd], usd_f: Float64Array.from(usd, Number) };
}

/** A vault's series from its snapshot rows (ascending): published price for Aera, else assets/supply (DESIGN §4.1). */
export function seriesFromSnapshots(vault: VaultRow, snaps: readonly SnapshotRow[]): VaultSeries {
  const publishes = vault.vault_type === 'aera_v3';
  let prev = WAD;
  const prices = snaps.map((s) => {
    if (publishes && s.unit_price !== null) prev = s.unit_price;
    else if (!publishes && s.total_supply > 0n) prev = unitPriceE18(s.total_assets, s.total_supply, vault.numeraire_decimals);
    return prev;
  });
  const series = buildSeries(
    vault.vault_id,
    vault.numeraire_decimals,
    publishes,
    snaps.map((s) => s.ts),
    prices,
  );
  snaps.forEach((s, i) => {
    series.total_assets.set(i, s.total_assets);
    series.total_supply.set(i, s.total_supply);
    series.published_price.set(i, s.unit_price ?? 0n);
  });
  return series;
}

function buildSeries(vaultId: string, decimals: number, publishes: boolean, ts: readonly number[], prices: readonly bigint[]): VaultSeries {
  const n = ts.length;
  const unit = new I128Array(n);
  prices.forEach((p, i) => unit.set(i, p));
  return {
    vault_id: vaultId,
    numeraire_decimals: decimals,
    publishes_unit_price: publishes,
    length: n,
    ts: Float64Array.from(ts),
    block: new Float64Array(n).fill(NaN),
    total_assets: new I128Array(n),
    total_supply: new I128Array(n),
    published_price: new I128Array(n),
    unit_price: unit,
    unit_price_f: Float64Array.from(prices, (p) => Number(p) / 1e18),
    apy_7d: new Float64Array(n).fill(NaN),
    apy_30d: new Float64Array(n).fill(NaN),
    apy_90d: new Float64Array(n).fill(NaN),
    skipped: 0,
  };
}

export function priceSeriesFromRows(rows: readonly PriceRow[]): Map<string, PriceSeries> {
  const groups = new Map<string, PriceRow[]>();
  for (const r of rows) {
    const k = priceKey(r.chain_id, r.address);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(r);
  }
  const out = new Map<string, PriceSeries>();
  for (const [k, g] of groups) {
    g.sort((a, b) => a.ts - b.ts);
    out.set(
      k,
      makePrices(
        g.map((r) => r.ts),
        g.map((r) => r.usd),
        g[0]!.chain_id,
        g[0]!.address,
      ),
    );
  }
  return out;
}

export interface DemoPosition {
  wallet: string;
  vault_id: string;
  /** in (block_number, log_index, sub_index) order */
  rows: EventRow[];
}

export interface DemoPositions {
  registry: Registry;
  contexts: Map<string, PositionContext>;
  positions: DemoPosition[];
  events: EventRow[];
  /** the newest snapshot of any vault */
  end: number;
}

/** Simulates a demo world into arrays and groups its rows into positions with their contexts. */
export function demoPositions(params: DemoParams): DemoPositions {
  const registry = buildDemoRegistry(params);
  const { sink, rows } = createArraySink();
  simulateDemo(params, registry, sink);
  const prices = priceSeriesFromRows(rows.prices);
  const snaps = new Map<string, SnapshotRow[]>();
  for (const s of rows.snapshots) {
    let g = snaps.get(s.vault_id);
    if (!g) snaps.set(s.vault_id, (g = []));
    g.push(s);
  }
  const contexts = new Map<string, PositionContext>();
  let end = 0;
  for (const v of registry.vaults) {
    const g = (snaps.get(v.vault_id) ?? []).sort((a, b) => a.ts - b.ts);
    const series = seriesFromSnapshots(v, g);
    if (series.length > 0) end = Math.max(end, series.ts[series.length - 1]!);
    contexts.set(v.vault_id, {
      series,
      prices: prices.get(priceKey(v.chain_id, v.numeraire_address)),
      numeraire: { address: v.numeraire_address, decimals: v.numeraire_decimals, symbol: v.numeraire_symbol },
    });
  }
  const byKey = new Map<string, DemoPosition>();
  for (const e of rows.events) {
    const k = `${e.wallet}|${e.vault_id}`;
    let p = byKey.get(k);
    if (!p) byKey.set(k, (p = { wallet: e.wallet, vault_id: e.vault_id, rows: [] }));
    p.rows.push(e);
  }
  const positions = [...byKey.values()];
  for (const p of positions) p.rows.sort((a, b) => a.block_number - b.block_number || a.log_index - b.log_index || a.sub_index - b.sub_index);
  positions.sort((a, b) => (a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : a.vault_id < b.vault_id ? -1 : a.vault_id > b.vault_id ? 1 : 0));
  return { registry, contexts, positions, events: rows.events, end };
}
