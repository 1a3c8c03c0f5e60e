// Every position's API item, computed once per publish (issue #9: wallet pages off the event
// loop): the cost-basis replay (DESIGN §4.4) valued at its vault's latest snapshot, serialized
// as the `{vault_id, wallet_address, numeraire_token, metrics}` JSON the positions routes
// answer with. The work crosses to pool workers as shared-memory views (events, wallet index,
// series) plus the few strings it needs, and comes back as one byte buffer with offsets, so a
// request only slices bytes. The same pure function runs in-thread for small worlds and tests.
import { I128Array } from '../../model/int128.js';
import type { EventTable } from '../../model/events.js';
import type { PriceSeries, WalletIndex, World } from '../../model/world.js';
import type { Visibility } from '../../model/rows.js';
import type { SeriesJob } from '../pool/seriesTask.js';
import { fromJob, toJob } from '../pool/seriesTask.js';
import { isHourlyContiguous, primeHourlyContiguous } from './fastAsOf.js';
import { positionColumns, positionMetrics, positionNow, type PositionMetrics } from './positionMetrics.js';
import { isPositionOpen, replayPosition, type PositionContext, type PositionState } from './replayPosition.js';
import { createAuditor } from '../audit/auditReplay.js';
import { positionReturns } from '../audit/positionAudit.js';
import { primeUsdTable, usdTable, type UsdTable } from './usdPriceCache.js';
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

/** Each open position's `returns` JSON, concatenated as the items are (empty for the others). */
export interface ReturnsBytes {
  json: Uint8Array;
  offsets: Int32Array;
}

/** The positions table's columns per position (a recompute writes them; null for unvalued ones). */
export type PositionRow = [string, string, string | null, string, string | null, string, string] | null;

/** What a worker needs of the world: shared-memory views and the strings the items name. */
export interface PositionsInput {
  kind: 'positions';
  /** the positions to compute, ascending */
  list: Int32Array;
  /**
   * Where each listed position's rows end in the index (its rows with block_timestamp ≤ an
   * as_of instant: a position's rows are in chain order, so those are a prefix); absent: all.
   */
  ends?: Int32Array;
  /** also return the positions table's columns */
  table: boolean;
  /** serialize the items (false: only the table's columns, for a batch recompute that serves nothing) */
  json: boolean;
  /** make each open position's returns (default: with the items' JSON) */
  returns?: boolean;
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

export interface VaultInput {
  vault_id: string;
  visibility: Visibility;
  numeraire: { address: string; decimals: number; symbol: string };
  series: SeriesJob | null;
  /** the series is hourly without gaps (fastAsOf.ts; checked once, on the publishing thread) */
  hourly: boolean;
  prices: PriceSeries | null;
  /** the numeraire's exact USD prices, parsed once on the publishing thread (usdPriceCache.ts) */
  usd: Pick<UsdTable, 'hourly' | 'lo' | 'hi' | 'bad'> | null;
}

export interface PositionsOutput {
  list: Int32Array;
  json: Uint8Array;
  /** list.length + 1 offsets into json */
  offsets: Int32Array;
  flags: Uint8Array;
  skipped: [number, { rows: number; message: string }][];
  /** each open position's `returns` JSON (DESIGN §11.5; with the items' JSON only) */
  returns: ReturnsBytes | null;
  /**
   * The table's columns, packed (one string crosses back from a worker, not seven per
   * position): a line per position of `list`, empty for an unvalued one, else its columns
   * tab-separated with an empty column for null (a decimal string is never empty).
   */
  rows: string | null;
}

function packRow(r: NonNullable<PositionRow>): string {
  return r.map((c) => c ?? '').join('\t');
}

/** The rows of a packed output, by index of its list. */
export function unpackRows(packed: string): PositionRow[] {
  return packed.split('\n').map((line) => (line === '' ? null : (line.split('\t').map((c) => (c === '' ? null : c)) as NonNullable<PositionRow>)));
}

/** What every task of one computation shares: views of the world's columns and the vaults' inputs. */
export type PositionsShared = Omit<PositionsInput, 'kind' | 'list' | 'table' | 'json'>;

/**
 * The shared part of the inputs (built once per computation, not per task). Everything big is
 * on shared memory, so posting a task to a worker copies no column: events, wallet index and
 * series are already there; each numeraire's price hours, doubles and exact words are copied
 * once onto shared memory here (memoized per price series). The wallets' addresses cross only
 * when the items' JSON is made (a batch recompute's table does not name them).
 */
export function positionsShared(world: World, json = true): PositionsShared {
  const t = world.events;
  return {
    events: eventColumns(world),
    index: walletIndexColumns(world),
    wallets: json ? t.dict.wallets.values : [],
    vaults: t.dict.vaults.values.map((id) => vaultInputOf(world, id)),
  };
}

/** The wallet index's columns as they cross to a worker (views of shared memory). */
export function walletIndexColumns(world: World): PositionsShared['index'] {
  const x = world.walletIndex;
  return { posWallet: x.posWallet, posVault: x.posVault, rowStart: x.rowStart, rows: x.rows };
}

/** The event table's columns as they cross to a worker: views of shared memory, and the token dictionary. */
export function eventColumns(world: World): PositionsInput['events'] {
  const t = world.events;
  return {
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
  };
}

/** What a replay of positions in vault `id` reads, as it crosses to a worker; null for a vault the registry does not have. */
export function vaultInputOf(world: World, id: string): VaultInput | null {
  const v = world.vaults.get(id);
  if (!v) return null;
  const s = world.series.get(id);
  const prices = world.prices.get(priceKey(v.chain_id, v.numeraire_address)) ?? null;
  const shared = prices ? sharedPrices(prices) : null;
  return {
    vault_id: id,
    visibility: v.visibility,
    numeraire: { address: v.numeraire_address, decimals: v.numeraire_decimals, symbol: v.numeraire_symbol },
    series: s ? toJob(s) : null,
    hourly: s !== undefined && s.length > 0 && isHourlyContiguous(s),
    prices: shared?.prices ?? null,
    usd: shared?.usd ?? null,
  };
}

/** The event table a replay reads, over columns that crossed to this thread (the columns and the token dictionary are all it touches). */
export function eventTableOf(e: PositionsInput['events']): EventTable {
  return { ...e, assets: I128Array.from(e.assets), shares: I128Array.from(e.shares), dict: { tokens: { values: e.tokens } } } as unknown as EventTable;
}

/** A vault's replay context on this side of a thread boundary (prices primed: not parsed again). */
export function contextOf(v: VaultInput): PositionContext | null {
  if (!v.series) return null;
  if (v.prices && v.usd) primeUsdTable(v.prices, v.usd);
  const series = fromJob(v.series);
  primeHourlyContiguous(series, v.hourly);
  return { series, prices: v.prices ?? undefined, numeraire: v.numeraire };
}

/** The inputs of the positions in `list` of `world` (views, no copies of the big columns). */
export function positionsInput(
  world: World,
  list: Int32Array,
  table: boolean,
  json = true,
  shared: PositionsShared = positionsShared(world, json),
): PositionsInput {
  return { kind: 'positions', list, table, json, ...shared };
}

type SharedPrices = { prices: PriceSeries; usd: NonNullable<VaultInput['usd']> };
const sharedPriceMemo = new WeakMap<PriceSeries, { n: number; out: SharedPrices }>();

/** A copy of a price series and its exact words on shared memory (the strings stay: the words replace them). */
function sharedPrices(prices: PriceSeries): SharedPrices {
  const n = prices.ts.length;
  const known = sharedPriceMemo.get(prices);
  if (known && known.n === n) return known.out;
  const table = usdTable(prices);
  const copy = <T extends Float64Array | BigUint64Array | Uint8Array>(a: T): T => {
    const out = new (a.constructor as new (b: SharedArrayBuffer) => T)(new SharedArrayBuffer(Math.max(a.byteLength, 8)));
    out.set(a as never);
    return out.subarray(0, a.length) as T;
  };
  const out: SharedPrices = {
    prices: { chain_id: prices.chain_id, address: prices.address, ts: copy(prices.ts), usd: [], usd_f: copy(prices.usd_f) },
    usd: { hourly: table.hourly, lo: copy(table.lo), hi: table.hi && copy(table.hi), bad: table.bad && copy(table.bad) },
  };
  sharedPriceMemo.set(prices, { n, out });
  return out;
}

/** Items of the positions in input.list (pure; in a worker or in-thread). */
export function computePositions(input: PositionsInput): PositionsOutput {
  const table = eventTableOf(input.events);
  const contexts = input.vaults.map((v) => (v ? contextOf(v) : null));
  const n = input.list.length;
  const parts: string[] = new Array(n);
  const offsets = new Int32Array(n + 1);
  const flags = new Uint8Array(n);
  const skipped: [number, { rows: number; message: string }][] = [];
  const rows: string[] | null = input.table ? new Array<string>(n).fill('') : null;
  const { posWallet, posVault, rowStart, rows: idx } = input.index;
  // returns (DESIGN §11.5) are served beside the items, so they are made with them (or apart:
  // computePositionItems' deferReturns)
  const withReturns = input.returns ?? input.json;
  const returnsParts: string[] | null = withReturns ? new Array<string>(n).fill('') : null;
  const returnsOffsets = withReturns ? new Int32Array(n + 1) : null;
  let returnsBytes = 0;
  let bytes = 0;
  for (let k = 0; k < n; k++) {
    const p = input.list[k]!;
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
        const to = input.ends ? input.ends[k]! : rowStart[p + 1]!;
        let st: PositionState;
        let audit: ReturnType<typeof createAuditor> | null = null;
        if (withReturns) {
          // the same replay, keeping the cash flows the returns need
          audit = createAuditor(ctx, table, { lots: false });
          for (let r = rowStart[p]!; r < to; r++) audit.step(idx[r]!);
          st = audit.state.avg;
        } else st = replayPosition({ table, idx, from: rowStart[p]!, to }, ctx);
        if (isPositionOpen(st)) f |= OPEN;
        if (st.skipped > 0) {
          f |= SKIPPED;
          skipped.push([
            p,
            { rows: st.skipped, message: `${st.skipped} corrupt row(s) of this position were skipped (first: ${st.firstSkip?.row}, ${st.firstSkip?.reason})` },
          ]);
        }
        let roi: PositionMetrics['roi_pct'] | undefined;
        if (input.json) {
          const metrics = positionMetrics(st, ctx, now);
          roi = metrics.roi_pct;
          json = JSON.stringify({ vault_id: v.vault_id, wallet_address: input.wallets[posWallet[p]!]!, numeraire_token: v.numeraire, metrics });
        }
        if (f & OPEN && audit) returnsParts![k] = JSON.stringify(positionReturns(audit.state, ctx, now, roi));
        if (rows) rows[k] = packRow(positionColumns(st));
      }
    }
    parts[k] = json;
    flags[k] = f;
    offsets[k] = bytes;
    bytes += Buffer.byteLength(json);
    if (returnsOffsets) {
      returnsOffsets[k] = returnsBytes;
      returnsBytes += returnsParts![k]!.length; // ASCII: numbers, decimal strings and dates
    }
  }
  offsets[n] = bytes;
  if (returnsOffsets) returnsOffsets[n] = returnsBytes;
  // each on its own ArrayBuffer, so a worker can transfer it
  const own = (text: string) => {
    const buf = Buffer.from(text);
    const out = new Uint8Array(new ArrayBuffer(buf.length));
    out.set(buf);
    return out;
  };
  const returns = returnsParts && returnsOffsets ? { json: own(returnsParts.join('')), offsets: returnsOffsets } : null;
  return { list: input.list, json: own(parts.join('')), offsets, flags, skipped, returns, rows: rows && rows.join('\n') };
}

/**
 * One PositionItems of `positions` positions: each from the output that computed it, else
 * (unchanged since) from `previous`. Every position must come from one of them.
 */
export function mergePositions(positions: number, outputs: readonly PositionsOutput[], previous: PositionItems | null = null): PositionItems {
  const source = new Int32Array(positions).fill(-1); // output index, or −1: previous
  const slot = new Int32Array(positions);
  outputs.forEach((o, k) =>
    o.list.forEach((p, j) => {
      source[p] = k;
      slot[p] = j;
    }),
  );
  let bytes = 0;
  for (let p = 0; p < positions; p++) {
    const k = source[p]!;
    if (k >= 0) bytes += outputs[k]!.offsets[slot[p]! + 1]! - outputs[k]!.offsets[slot[p]!]!;
    else if (previous && p < previous.positions) bytes += previous.offsets[p + 1]! - previous.offsets[p]!;
    else throw new Error(`position ${p} was neither computed nor known`);
  }
  // returns are merged when every source has them (a served publish); else there are none
  const withReturns = outputs.every((o) => o.returns) && (previous === null || previous.returns !== null || outputs.length === 0);
  const returnsOf = (from: PositionsOutput | PositionItems) => ('returns' in from && from.returns ? from.returns : null);
  let returnsBytes = 0;
  if (withReturns && (outputs.length > 0 || previous?.returns)) {
    for (let p = 0; p < positions; p++) {
      const k = source[p]!;
      const r = k >= 0 ? returnsOf(outputs[k]!)! : previous!.returns!;
      const j = k >= 0 ? slot[p]! : p;
      returnsBytes += r.offsets[j + 1]! - r.offsets[j]!;
    }
  }
  // on shared memory: the snapshot writer's thread reads it where it is (engine/publish/fileIo.ts)
  const json = Buffer.from(new SharedArrayBuffer(bytes));
  const offsets = new Int32Array(positions + 1);
  const flags = new Uint8Array(positions);
  const skipped = new Map<number, { rows: number; message: string }>();
  const rows: PositionRow[] | null = outputs.length > 0 && outputs.every((o) => o.rows) && !previous ? new Array<PositionRow>(positions).fill(null) : null;
  const outSkipped = outputs.map((o) => new Map(o.skipped));
  const outRows = rows ? outputs.map((o) => unpackRows(o.rows!)) : null;
  const returns: ReturnsBytes | null =
    withReturns && (outputs.length > 0 || previous?.returns)
      ? { json: Buffer.from(new SharedArrayBuffer(returnsBytes)), offsets: new Int32Array(positions + 1) }
      : null;
  let at = 0;
  let rat = 0;
  for (let p = 0; p < positions; p++) {
    const k = source[p]!;
    offsets[p] = at;
    if (returns) {
      const r = k >= 0 ? returnsOf(outputs[k]!)! : previous!.returns!;
      const j = k >= 0 ? slot[p]! : p;
      const part = r.json.subarray(r.offsets[j]!, r.offsets[j + 1]!);
      returns.offsets[p] = rat;
      returns.json.set(part, rat);
      rat += part.length;
    }
    const from = k >= 0 ? outputs[k]! : previous!;
    const j = k >= 0 ? slot[p]! : p;
    const part = from.json.subarray(from.offsets[j]!, from.offsets[j + 1]!);
    json.set(part, at);
    at += part.length;
    flags[p] = from.flags[j]!;
    const sk = k >= 0 ? outSkipped[k]!.get(p) : previous!.skipped.get(p);
    if (sk) skipped.set(p, sk);
    if (rows) rows[p] = outRows![k]![j]!;
  }
  offsets[positions] = at;
  if (returns) returns.offsets[positions] = rat;
  return { positions, json, offsets, flags, skipped, rows, returns };
}

/** Positions per task: fewer are not worth a worker round trip (and run in-thread). */
export const TASK_POSITIONS = 20_000;

/** What the items of one publish were computed from: the next publish recomputes only what changed since. */
export interface ItemsBasis {
  items: PositionItems;
  /** rows per position */
  rowCounts: Int32Array;
  /** per vault id: its series length, price series and registry row when the items were computed */
  vaults: Map<string, { length: number; prices: PriceSeries | undefined; row: unknown }>;
}

function vaultBasis(world: World): ItemsBasis['vaults'] {
  const out: ItemsBasis['vaults'] = new Map();
  for (const v of world.registry.vaults) {
    out.set(v.vault_id, { length: world.series.get(v.vault_id)?.length ?? -1, prices: world.prices.get(priceKey(v.chain_id, v.numeraire_address)), row: v });
  }
  return out;
}

/**
 * The positions whose items may differ from `basis`: new positions, positions with new rows,
 * and every position of a vault whose series grew (a new latest snapshot values it anew), whose
 * numeraire's prices were replaced or whose registry row changed. All of them without a basis.
 */
function changedPositions(world: World, basis: ItemsBasis | null): Int32Array {
  const x = world.walletIndex;
  const n = x.positions;
  if (!basis) return Int32Array.from({ length: n }, (_, p) => p);
  const now = vaultBasis(world);
  const staleVault = world.events.dict.vaults.values.map((id) => {
    const a = basis.vaults.get(id);
    const b = now.get(id);
    return !a || !b || a.length !== b.length || a.prices !== b.prices || a.row !== b.row;
  });
  const out: number[] = [];
  for (let p = 0; p < n; p++) {
    if (p >= basis.items.positions || staleVault[x.posVault[p]!] || x.rowStart[p + 1]! - x.rowStart[p]! !== basis.rowCounts[p]) out.push(p);
  }
  return Int32Array.from(out);
}

export interface PositionItemsOptions {
  /**
   * A full computation's returns (DESIGN §11.5) are made after it, on `run`, when first asked
   * for (`returnsLater`): the items alone are about a quarter of the work (the returns' replay
   * keeps cash flows and solves an IRR per open position), so a server's first publish need not
   * wait for the rest (bench/README.md, the cold start after #34–#36). Ignored in-thread (`run`
   * null) and when recomputing from a basis.
   */
  deferReturns?: boolean;
}

/**
 * The positions of `list` computed by the tasks `input` makes: on this thread when there are
 * few (or no `run`), else in at most 8 lists on `run`, sharing one `share()`.
 */
export async function positionsInTasks(
  list: Int32Array,
  run: ((task: PositionsInput) => Promise<PositionsOutput>) | null,
  input: (sub: Int32Array, shared?: PositionsShared) => PositionsInput,
  share: () => PositionsShared,
): Promise<PositionsOutput[]> {
  if (list.length === 0) return [];
  if (run === null || list.length < TASK_POSITIONS) return [computePositions(input(list))];
  const shared = share();
  const tasks = Math.min(8, Math.ceil(list.length / TASK_POSITIONS));
  const cut = (k: number) => Math.round((k * list.length) / tasks);
  return Promise.all(Array.from({ length: tasks }, (_, k) => run(input(list.slice(cut(k), cut(k + 1)), shared))));
}

/**
 * Every position's item of `world` (a published, frozen view), recomputing only what changed
 * since `basis` (the previous publish): in-thread when few, else in lists run by `run` (the
 * compute pool). `table` also returns the positions table's columns (a full computation).
 */
export async function computePositionItems(
  world: World,
  run: ((task: PositionsInput) => Promise<PositionsOutput>) | null,
  mode: 'serve' | 'table' = 'serve',
  basis: ItemsBasis | null = null,
  opts: PositionItemsOptions = {},
): Promise<{ items: PositionItems; basis: ItemsBasis; computed: number }> {
  // 'table' (a batch recompute): every position, the table's columns and no JSON (nothing is served)
  const table = mode === 'table';
  const from = table ? null : basis;
  const list = changedPositions(world, from);
  const defer = !table && from === null && run !== null && list.length > 0 && (opts.deferReturns ?? false);
  const input = (sub: Int32Array, shared?: PositionsShared): PositionsInput => ({
    ...positionsInput(world, sub, table, !table, shared),
    ...(defer ? { returns: false } : {}),
  });
  const outputs = await positionsInTasks(list, run, input, () => positionsShared(world, !table));
  // the previous items' returns are merged with the new ones: made first if they were deferred
  if (from && from.items.returns === null) await from.items.returnsLater?.();
  const items = mergePositions(world.walletIndex.positions, outputs, from?.items ?? null);
  if (defer) items.returnsLater = returnsLater(world, items, run!);
  return { items, basis: basisOf(world, items), computed: list.length };
}

/**
 * Makes the returns of every position of `items` (computed over `world`, a frozen view: what
 * they read never changes) on `run`, once, filling `items.returns`. Should the pool fail, the
 * same pure function runs in-thread: a request waiting for them gets them either way.
 */
function returnsLater(world: World, items: PositionItems, run: (task: PositionsInput) => Promise<PositionsOutput>): () => Promise<void> {
  let made: Promise<void> | null = null;
  const n = items.positions;
  const all = () => Int32Array.from({ length: n }, (_, p) => p);
  // no item JSON: only the returns are taken (the items are the published ones)
  const input = (list: Int32Array, shared?: PositionsShared): PositionsInput => ({ ...positionsInput(world, list, false, false, shared), returns: true });
  const fill = (outputs: PositionsOutput[]) => {
    items.returns = mergePositions(n, outputs).returns;
  };
  const make = async () => {
    const list = all();
    const shared = positionsShared(world, false);
    const tasks = Math.min(8, Math.ceil(n / TASK_POSITIONS));
    const cut = (k: number) => Math.round((k * n) / tasks);
    fill(await Promise.all(Array.from({ length: tasks }, (_, k) => run(input(list.slice(cut(k), cut(k + 1)), shared)))));
  };
  return () => (made ??= make().catch(() => fill([computePositions(input(all()))])));
}

/** The basis of `items` computed over `world` (or restored with it from files). */
export function basisOf(world: World, items: PositionItems): ItemsBasis {
  const x = world.walletIndex;
  const rowCounts = new Int32Array(x.positions);
  for (let p = 0; p < x.positions; p++) rowCounts[p] = x.rowStart[p + 1]! - x.rowStart[p]!;
  return { items, rowCounts, vaults: vaultBasis(world) };
}

/** Every position's item of `world`, on this thread (small worlds, tests). */
export function positionItemsInThread(world: World, table = false): PositionItems {
  const n = world.walletIndex.positions;
  const list = Int32Array.from({ length: n }, (_, p) => p);
  return mergePositions(n, n === 0 ? [] : [computePositions(positionsInput(world, list, table))]);
}

/** Position p's item JSON (a view, no copy). */
export function itemBytes(items: PositionItemsRef, p: number): Buffer {
  const at = items.offsets[p]!;
  return Buffer.from(items.json.buffer, items.json.byteOffset + at, items.offsets[p + 1]! - at);
}
