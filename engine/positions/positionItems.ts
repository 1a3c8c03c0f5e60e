// Every position's API item, computed once per publish (issue #9: wallet pages off the event
// loop): the cost-basis replay (DESIGN §4.4) valued at its vault's latest snapshot, serialized
// as the `{vault_id, wallet_address, numeraire_token, metrics}` JSON the positions routes
// answer with. The work crosses to pool workers as shared-memory views (events, wallet index,
// series) plus the few strings it needs, and comes back as one byte buffer with offsets, so a
// request only slices bytes. The same pure function runs in-thread for small worlds and tests.
import { I128Array } from '../../model/int128.js';
import type { EventTable } from '../../model/events.js';
import type { PriceSeries, VaultSeries, WalletIndex, World } from '../../model/world.js';
import type { Visibility } from '../../model/rows.js';
import type { SeriesJob } from '../pool/seriesTask.js';
import { toJob } from '../pool/seriesTask.js';
import { positionMetrics, positionNow } from './positionMetrics.js';
import { isPositionOpen, replayPosition, type PositionContext } from './replayPosition.js';
import { priceKey, type PositionItemsRef } from '../../model/world.js';

/** flags[p] bits */
export const ENABLED = 1; // the vault is registered and not disabled (the routes show the position at all)
export const HIDDEN = 2; // the vault is hidden (shown with include_hidden)
export const VALUED = 4; // the vault has a snapshot (else POSITION_NOT_VALUED)
export const OPEN = 8; // DESIGN §4.4 inclusion (S > 0 or Pd > 0 or Pr > 0)
export const SKIPPED = 16; // corrupt rows were skipped (a CORRUPT_ROWS_SKIPPED partial error)

export interface PositionItems extends PositionItemsRef {
  /** positions covered (the wallet index's count when computed) */
  positions: number;
  /** each position's item JSON, concatenated: position p is json[offsets[p] .. offsets[p + 1]) */
  json: Uint8Array;
  offsets: Int32Array;
  flags: Uint8Array;
  /** the CORRUPT_ROWS_SKIPPED message of each position with skipped rows */
  skipped: Map<number, { rows: number; message: string }>;
  /** the positions table's columns, when asked for (a recompute writes them; not saved in files) */
  rows?: PositionRow[] | null;
}

/** The positions table's columns per position (a recompute writes them; null for unvalued ones). */
export type PositionRow = [string, string, string | null, string, string | null, string, string] | null;

/** What a worker needs of the world: shared-memory views and the strings the items name. */
export interface PositionsInput {
  kind: 'positions';
  from: number;
  to: number;
  /** also return the positions table's columns */
  table: boolean;
  events: Pick<EventTable, 'chain_id' | 'block_number' | 'log_index' | 'sub_index' | 'ts' | 'kind' | 'token' | 'request'> & {
    assets: BigUint64Array;
    shares: BigUint64Array;
    tokens: string[];
  };
  index: Pick<WalletIndex, 'posWallet' | 'posVault' | 'rowStart' | 'rows'>;
  wallets: string[];
  /** by event-dictionary vault index; null for a vault the registry does not have */
  vaults: (VaultInput | null)[];
}

interface VaultInput {
  vault_id: string;
  visibility: Visibility;
  numeraire: { address: string; decimals: number; symbol: string };
  series: SeriesJob | null;
  prices: PriceSeries | null;
}

export interface PositionsOutput {
  from: number;
  json: Uint8Array;
  /** to − from + 1 offsets into json */
  offsets: Int32Array;
  flags: Uint8Array;
  skipped: [number, { rows: number; message: string }][];
  rows: PositionRow[] | null;
}

/** The inputs of positions [from, to) of `world` (views, no copies of the big columns). */
export function positionsInput(world: World, from: number, to: number, table: boolean): PositionsInput {
  const t = world.events;
  const vaults = t.dict.vaults.values.map((id): VaultInput | null => {
    const v = world.vaults.get(id);
    if (!v) return null;
    const s = world.series.get(id);
    return {
      vault_id: id,
      visibility: v.visibility,
      numeraire: { address: v.numeraire_address, decimals: v.numeraire_decimals, symbol: v.numeraire_symbol },
      series: s ? toJob(s) : null,
      prices: world.prices.get(priceKey(v.chain_id, v.numeraire_address)) ?? null,
    };
  });
  const x = world.walletIndex;
  return {
    kind: 'positions',
    from,
    to,
    table,
    events: {
      chain_id: t.chain_id,
      block_number: t.block_number,
      log_index: t.log_index,
      sub_index: t.sub_index,
      ts: t.ts,
      kind: t.kind,
      token: t.token,
      request: t.request,
      assets: t.assets.words,
      shares: t.shares.words,
      tokens: t.dict.tokens.values,
    },
    index: { posWallet: x.posWallet, posVault: x.posVault, rowStart: x.rowStart, rows: x.rows },
    wallets: t.dict.wallets.values,
    vaults,
  };
}

function seriesOf(job: SeriesJob): VaultSeries {
  return {
    vault_id: job.vault_id,
    numeraire_decimals: job.numeraire_decimals,
    publishes_unit_price: job.publishes_unit_price,
    length: job.length,
    ts: job.ts,
    total_assets: I128Array.from(job.total_assets),
    total_supply: I128Array.from(job.total_supply),
    published_price: I128Array.from(job.published_price),
    unit_price: I128Array.from(job.unit_price),
    unit_price_f: job.unit_price_f,
    apy_7d: job.apy_7d,
    apy_30d: job.apy_30d,
    apy_90d: job.apy_90d,
    skipped: 0,
  };
}

/** Items of positions [from, to) (pure; in a worker or in-thread). */
export function computePositions(input: PositionsInput): PositionsOutput {
  const e = input.events;
  // the replay reads an EventTable: these columns and the token dictionary are all it touches
  const table = {
    ...e,
    assets: I128Array.from(e.assets),
    shares: I128Array.from(e.shares),
    dict: { tokens: { values: e.tokens } },
  } as unknown as EventTable;
  const contexts = input.vaults.map((v) =>
    v && v.series ? ({ series: seriesOf(v.series), prices: v.prices ?? undefined, numeraire: v.numeraire } satisfies PositionContext) : null,
  );
  const n = input.to - input.from;
  const parts: string[] = new Array(n);
  const offsets = new Int32Array(n + 1);
  const flags = new Uint8Array(n);
  const skipped: [number, { rows: number; message: string }][] = [];
  const rows: PositionRow[] | null = input.table ? new Array(n).fill(null) : null;
  const { posWallet, posVault, rowStart, rows: idx } = input.index;
  let bytes = 0;
  for (let k = 0; k < n; k++) {
    const p = input.from + k;
    const vi = posVault[p]!;
    const v = input.vaults[vi];
    let f = 0;
    let json = '';
    // a disabled vault's positions are valued too (the positions table has them) but never served
    if (v) {
      if (v.visibility !== 'disabled') f |= ENABLED;
      if (v.visibility === 'hidden') f |= HIDDEN;
      const ctx = contexts[vi];
      const now = ctx ? positionNow(ctx) : null;
      if (ctx && now !== null) {
        f |= VALUED;
        const st = replayPosition({ table, idx, from: rowStart[p]!, to: rowStart[p + 1]! }, ctx);
        const m = positionMetrics(st, ctx, now);
        if (isPositionOpen(st)) f |= OPEN;
        if (st.skipped > 0) {
          f |= SKIPPED;
          skipped.push([p, { rows: st.skipped, message: `${st.skipped} corrupt row(s) of this position were skipped (first: ${st.firstSkip?.row}, ${st.firstSkip?.reason})` }]);
        }
        const wallet = input.wallets[posWallet[p]!]!;
        json = JSON.stringify({ vault_id: v.vault_id, wallet_address: wallet, numeraire_token: v.numeraire, metrics: m });
        if (rows) {
          rows[k] = [m.shares_owned, m.cost_basis.native, m.cost_basis.usd, m.pnl.realized.native, m.pnl.realized.usd, m.pending_deposit_assets.native, m.pending_redeem_shares];
        }
      }
    }
    parts[k] = json;
    flags[k] = f;
    offsets[k] = bytes;
    bytes += Buffer.byteLength(json);
  }
  offsets[n] = bytes;
  const buf = Buffer.from(parts.join(''));
  // its own ArrayBuffer, so a worker can transfer it
  const json = new Uint8Array(new ArrayBuffer(buf.length));
  json.set(buf);
  return { from: input.from, json, offsets, flags, skipped, rows };
}

/** One PositionItems from the outputs of consecutive ranges covering [0, positions). */
export function mergePositions(positions: number, outputs: readonly PositionsOutput[]): PositionItems {
  const sorted = [...outputs].sort((a, b) => a.from - b.from);
  let bytes = 0;
  for (const o of sorted) bytes += o.json.length;
  const json = Buffer.allocUnsafe(bytes);
  const offsets = new Int32Array(positions + 1);
  const flags = new Uint8Array(positions);
  const skipped = new Map<number, { rows: number; message: string }>();
  const rows: PositionRow[] | null = sorted.every((o) => o.rows) ? [] : null;
  let at = 0;
  let next = 0;
  for (const o of sorted) {
    if (o.from !== next) throw new Error(`position outputs leave a gap at ${next}`);
    const n = o.flags.length;
    json.set(o.json, at);
    for (let k = 0; k < n; k++) offsets[o.from + k] = at + o.offsets[k]!;
    flags.set(o.flags, o.from);
    for (const [p, msg] of o.skipped) skipped.set(p, msg);
    if (rows) rows.push(...o.rows!);
    at += o.json.length;
    next = o.from + n;
  }
  if (next !== positions) throw new Error(`position outputs cover ${next} of ${positions}`);
  offsets[positions] = at;
  return { positions, json, offsets, flags, skipped, rows };
}

/** Positions per task: fewer are not worth a worker round trip (and run in-thread). */
const TASK_POSITIONS = 20_000;

/**
 * Every position's item of `world` (a published, frozen view): in-thread for small worlds,
 * else split into ranges run by `run` (the compute pool) and merged.
 */
export async function computePositionItems(world: World, run: ((task: PositionsInput) => Promise<PositionsOutput>) | null, table = false): Promise<PositionItems> {
  const n = world.walletIndex.positions;
  if (run === null || n < TASK_POSITIONS) return positionItemsInThread(world, table);
  const tasks = Math.min(8, Math.ceil(n / TASK_POSITIONS));
  const bounds = Array.from({ length: tasks + 1 }, (_, k) => Math.round((k * n) / tasks));
  const outputs = await Promise.all(bounds.slice(0, -1).map((from, k) => run(positionsInput(world, from, bounds[k + 1]!, table))));
  return mergePositions(n, outputs);
}

/** Position p's item JSON (a view, no copy). */
export function itemBytes(items: PositionItemsRef, p: number): Buffer {
  const at = items.offsets[p]!;
  return Buffer.from(items.json.buffer, items.json.byteOffset + at, items.offsets[p + 1]! - at);
}

/** Every position's item of `world`, on this thread (small worlds, tests). */
export function positionItemsInThread(world: World, table = false): PositionItems {
  const n = world.walletIndex.positions;
  return mergePositions(n, n === 0 ? [] : [computePositions(positionsInput(world, 0, n, table))]);
}
