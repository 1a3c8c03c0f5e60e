// A wallet's position items as of an instant (DESIGN §11.6), run on the compute pool: each
// position's average-cost replay resumes from a state the read model kept (its rows up to some
// earlier row) instead of from the wallet's first event, steps the rows up to the instant, and
// is valued at its vault's latest snapshot by then. The states after the instant go back to be
// kept. The replay reads the whole series and prices: rows at or before the instant only look up
// snapshots and prices at or before their own time, so a cut world gives the same state.
import { applyRow, createPositionState, foreignTokens, isPositionOpen, type PositionContext, type PositionState } from './replayPosition.js';
import { positionMetrics } from './positionMetrics.js';
import { contextOf, eventTableOf, OPEN, type PositionsShared, SKIPPED } from './positionItems.js';
import { usdTable } from './usdPriceCache.js';

/** A replay state as it crosses threads and is kept: without its price table (rebuilt from the context). */
export type PackedState = Omit<PositionState, 'usdTable'> & { usdTable: null };

export interface PastPositionsInput extends PositionsShared {
  kind: 'pastPositions';
  /** the positions to value */
  list: Int32Array;
  /** per position: the row (in the wallet index) the replay resumes at, and the state before it (null: from the first row) */
  from: Int32Array;
  states: (PackedState | null)[];
  /** per position: where its rows at or before the instant end */
  ends: Int32Array;
  /** per position: its vault's latest snapshot time at the instant ("now", DESIGN §4.8) */
  nows: Float64Array;
}

export interface PastPositionsOutput {
  list: Int32Array;
  json: Uint8Array;
  offsets: Int32Array;
  /** OPEN and SKIPPED bits (the vault's bits are the read model's) */
  flags: Uint8Array;
  skipped: [number, string][];
  /** per position: the state after its rows up to `ends` (null: the kept state it was given, unchanged) */
  states: (PackedState | null)[];
}

export function packState(st: PositionState): PackedState {
  return { ...st, usdTable: null };
}

/** A kept state, ready to step on (its maps copied: a kept state is never changed). */
export function unpackState(packed: PackedState, ctx: PositionContext): PositionState {
  return {
    ...packed,
    openDeposits: packed.openDeposits && new Map(packed.openDeposits),
    openRedeems: packed.openRedeems && new Map(packed.openRedeems),
    usdTable: ctx.prices === undefined ? null : usdTable(ctx.prices),
  };
}

/** Pure: in a worker, or in-thread (tests, the in-thread pool). */
export function computePastPositions(input: PastPositionsInput): PastPositionsOutput {
  const table = eventTableOf(input.events);
  const contexts = new Map<number, PositionContext | null>();
  const { posWallet, posVault, rows: idx } = input.index;
  const n = input.list.length;
  const parts: string[] = new Array(n);
  const offsets = new Int32Array(n + 1);
  const flags = new Uint8Array(n);
  const skipped: [number, string][] = [];
  const states: (PackedState | null)[] = new Array(n);
  let bytes = 0;
  for (let k = 0; k < n; k++) {
    const p = input.list[k]!;
    const vi = posVault[p]!;
    const v = input.vaults[vi]!;
    let ctx = contexts.get(vi);
    if (ctx === undefined) contexts.set(vi, (ctx = contextOf(v)));
    // the read model sends only positions of vaults with a snapshot by the instant
    if (!ctx) throw new Error(`pastPositions: vault ${v.vault_id} has no series`);
    const packed = input.states[k];
    const from = input.from[k]!;
    const to = input.ends[k]!;
    // a kept state at the instant's rows is only valued (read, never changed): no copy, none sent back
    const resumedAtEnd = packed !== null && packed !== undefined && from === to;
    const st = resumedAtEnd ? (packed as PositionState) : packed ? unpackState(packed, ctx) : createPositionState(ctx);
    if (!resumedAtEnd) {
      const foreign = foreignTokens(table, ctx);
      for (let r = from; r < to; r++) applyRow(st, table, idx[r]!, ctx, foreign);
    }
    let f = 0;
    if (isPositionOpen(st)) f |= OPEN;
    if (st.skipped > 0) {
      f |= SKIPPED;
      skipped.push([p, `${st.skipped} corrupt row(s) of this position were skipped (first: ${st.firstSkip?.row}, ${st.firstSkip?.reason})`]);
    }
    const metrics = positionMetrics(st, ctx, input.nows[k]!);
    const json = JSON.stringify({ vault_id: v.vault_id, wallet_address: input.wallets[posWallet[p]!]!, numeraire_token: v.numeraire, metrics });
    parts[k] = json;
    flags[k] = f;
    offsets[k] = bytes;
    bytes += Buffer.byteLength(json);
    states[k] = resumedAtEnd ? null : packState(st);
  }
  offsets[n] = bytes;
  const buf = Buffer.from(parts.join(''));
  // on its own ArrayBuffer, so a worker can transfer it
  const json = new Uint8Array(new ArrayBuffer(buf.length));
  json.set(buf);
  return { list: input.list, json, offsets, flags, skipped, states };
}
