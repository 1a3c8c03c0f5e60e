// A wallet's positions as of any instant (DESIGN §11.6), in two steps. The replay runs on the
// compute pool: each position's average-cost state after EVERY one of its rows (its timeline),
// once per position (a position too long to keep whole: its state at the rows an instant holds). The replay reads the whole series and prices: a row only looks up snapshots
// and prices at or before its own time, so the state after a position's first e rows is the one
// a world cut at any instant holding those rows gives. Valuing a state at an instant (its vault's
// latest snapshot by then, "now" of DESIGN §4.8) is a few bigint products and no replay: pastItem
// does it wherever the timeline is kept (the read model's thread), with the item format here.
import { applyRow, createPositionState, foreignTokens, isPositionOpen, type PositionContext, type PositionState } from './replayPosition.js';
import { type PastBasis, positionMetricsJson } from './positionMetrics.js';
import { contextOf, eventTableOf, OPEN, type PositionsShared, SKIPPED, type VaultInput } from './positionItems.js';

/** A replay state as it crosses threads and is kept: without its price table (valuing one never reads it). */
export type PackedState = Omit<PositionState, 'usdTable'> & { usdTable: null };

export interface PastPositionsInput extends Omit<PositionsShared, 'wallets'> {
  kind: 'pastPositions';
  /** the positions to replay */
  list: Int32Array;
  /**
   * per position of `list`: 0 to replay all its rows (its timeline), else the end (in the
   * index's rows) to stop at, answering the state there alone (a position too long to keep whole)
   */
  ends: Int32Array;
}

export interface PastPositionsOutput {
  list: Int32Array;
  ends: Int32Array;
  /** per position of `list`: the state after each of its rows (entry r: after its first r + 1 rows), or [the state at its end] */
  timelines: PackedState[][];
}

/** Pure: in a worker, or in-thread (tests, the in-thread pool). */
export function computePastPositions(input: PastPositionsInput): PastPositionsOutput {
  const table = eventTableOf(input.events);
  const contexts = new Map<number, PositionContext | null>();
  const { posVault, rowStart, rows: idx } = input.index;
  const timelines: PackedState[][] = new Array(input.list.length);
  for (let k = 0; k < input.list.length; k++) {
    const p = input.list[k]!;
    const vi = posVault[p]!;
    const v = input.vaults[vi]!;
    let ctx = contexts.get(vi);
    if (ctx === undefined) contexts.set(vi, (ctx = contextOf(v)));
    // the read model sends only positions of vaults with snapshots
    if (!ctx) throw new Error(`pastPositions: vault ${v.vault_id} has no series`);
    const st = createPositionState(ctx);
    const foreign = foreignTokens(table, ctx);
    const whole = input.ends[k] === 0;
    const to = whole ? rowStart[p + 1]! : input.ends[k]!;
    const line: PackedState[] = whole ? new Array(to - rowStart[p]!) : [];
    for (let r = rowStart[p]!; r < to; r++) {
      applyRow(st, table, idx[r]!, ctx, foreign);
      // a copy per row (the maps too: the next rows change the state in place)
      if (whole) line[r - rowStart[p]!] = packed(st);
    }
    if (!whole) line.push(packed(st));
    timelines[k] = line;
  }
  return { list: input.list, ends: input.ends, timelines };
}

/** A copy of a replay state as it crosses threads (its maps copied, no price table). */
function packed(st: PositionState): PackedState {
  return { ...st, openDeposits: st.openDeposits && new Map(st.openDeposits), openRedeems: st.openRedeems && new Map(st.openRedeems), usdTable: null };
}

/** A position's item at an instant: its flags (OPEN, SKIPPED), the CORRUPT_ROWS_SKIPPED message, and its JSON (null when closed). */
export interface PastItem {
  flags: number;
  json: string | null;
  skipped?: string;
}

/**
 * The JSON of a position's item up to its metrics: the item is
 * `{vault_id, wallet_address, numeraire_token, metrics}` (positionItems.ts), so JSON.stringify
 * of it is this text, the metrics' JSON and `}` (made once per position, not per instant).
 */
export function pastItemHead(v: VaultInput, wallet: string): string {
  const text = JSON.stringify({ vault_id: v.vault_id, wallet_address: wallet, numeraire_token: v.numeraire, metrics: null });
  return text.slice(0, -'null}'.length);
}

/**
 * The item of a replayed state valued at `now` (its vault's latest snapshot time by the instant);
 * `head`: pastItemHead; `basis`: the state's pastBasis (what no instant changes: the caller
 * keeps it beside the state, which is valued at many instants). A closed position is not valued:
 * nothing serves it (a list and the position route read only its flags).
 */
export function pastItem(st: PackedState, ctx: PositionContext, head: string, now: number, basis: (st: PositionState) => PastBasis): PastItem {
  const state = st as PositionState;
  const open = isPositionOpen(state);
  const flags = (open ? OPEN : 0) | (st.skipped === 0 ? 0 : SKIPPED);
  const json = open ? `${head}${positionMetricsJson(state, ctx, now, basis(state))}}` : null;
  if (st.skipped === 0) return { flags, json };
  return { flags, json, skipped: `${st.skipped} corrupt row(s) of this position were skipped (first: ${st.firstSkip?.row}, ${st.firstSkip?.reason})` };
}
