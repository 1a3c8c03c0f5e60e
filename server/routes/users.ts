// /v1/users/{wallet}/positions, /positions/{vault_id}, /positions/{vault_id}/timeseries and
// /activity (seed; DESIGN §4.4, §4.6, §4.8, §5.2). Positions come replayed from the engine's
// wallet views (engine/publish/walletViews.ts); this module only filters, pages and formats.
import { activityRowAt, type ActivityRow } from '../../engine/publish/door.js';
import { numeraireToken, walletOf } from '../../engine/publish/door.js';
import { positionContext } from '../../engine/publish/walletIndex.js';
import { positionMetrics, positionNow, type PositionMetrics } from '../../engine/publish/door.js';
import { isPositionOpen, walletPositions, type WalletPositionView } from '../../engine/publish/door.js';
import type { PartialError } from '../../engine/publish/door.js';
import { vaultIdOf, type EventTable } from '../../model/events.js';
import { parseQuery, parseVaultId, parseWallet } from '../params.js';
import type { Body } from '../reply.js';
import type { Served } from '../handle.js';
import { notFound, ready, type RouteContext } from './context.js';

export interface PositionItem {
  vault_id: string;
  wallet_address: string;
  numeraire_token: ReturnType<typeof numeraireToken> | null;
  metrics: PositionMetrics;
}

type Replayed = WalletPositionView;

function item(served: Served, r: Replayed): PositionItem {
  const { world } = served.snapshot;
  const ctx = positionContext(world, r.position.vault_id)!;
  const v = world.vaults.get(r.position.vault_id)!;
  return {
    vault_id: r.position.vault_id,
    wallet_address: r.position.wallet,
    numeraire_token: numeraireToken(v),
    metrics: positionMetrics(r.state!, ctx, positionNow(ctx)!),
  };
}

function skippedError(r: Replayed): PartialError | null {
  if (!r.state || r.state.skipped === 0) return null;
  return {
    code: 'CORRUPT_ROWS_SKIPPED',
    message: `${r.state.skipped} corrupt row(s) of this position were skipped (first: ${r.state.firstSkip?.row}, ${r.state.firstSkip?.reason})`,
    resource_id: r.position.vault_id,
  };
}

export function positionsList(ctx: RouteContext): Body {
  const served = ready(ctx);
  const wallet = parseWallet(ctx.params.wallet_address!);
  const q = parseQuery('users.positions', ctx.query);
  const route = `/v1/users/${wallet}/positions`;
  const filters = { include_hidden: q.include_hidden };
  const after = q.next === undefined ? 0 : (ctx.cursors.decode(q.next, route, filters, 'asc') as number);
  const partial: PartialError[] = [];
  const items: PositionItem[] = [];
  let lastId: number | undefined;
  let more = false;
  for (const r of walletPositions(served.snapshot, wallet)) {
    if (r.position.position_id <= after) continue;
    if (!q.include_hidden && served.snapshot.world.vaults.get(r.position.vault_id)!.visibility === 'hidden') continue;
    if (r.state === null) {
      partial.push({ code: 'POSITION_NOT_VALUED', message: 'the vault has no snapshot yet, so the position cannot be valued', resource_id: r.position.vault_id });
      continue;
    }
    if (!isPositionOpen(r.state)) continue;
    if (items.length === q.limit) {
      more = true;
      break;
    }
    const skipped = skippedError(r);
    if (skipped) partial.push(skipped);
    items.push(item(served, r));
    lastId = r.position.position_id;
  }
  return {
    kind: 'json',
    data: items,
    meta: {
      count: items.length,
      limit: q.limit,
      next_cursor: more && lastId !== undefined ? ctx.cursors.encode(route, filters, 'asc', lastId) : null,
      partial_errors: partial.length > 0 ? partial : null,
      start: null,
      end: null,
    },
    etagKey: `${route}|${q.include_hidden}|${after}|${q.limit}`,
  };
}

/** The wallet's replayed position in an enabled vault, or 404. */
export function findPosition(served: Served, wallet: string, vaultId: string): Replayed {
  const r = walletPositions(served.snapshot, wallet).find((p) => p.position.vault_id === vaultId);
  if (!r) throw notFound(`wallet ${wallet} has no position in vault "${vaultId}"`);
  return r;
}

export function positionGet(ctx: RouteContext): Body {
  const served = ready(ctx);
  const wallet = parseWallet(ctx.params.wallet_address!);
  const vaultId = parseVaultId(ctx.params.vault_id!);
  const r = findPosition(served, wallet, vaultId);
  if (!r.state || !isPositionOpen(r.state)) throw notFound(`wallet ${wallet} has no open position in vault "${vaultId}" (fully exited positions are not served)`);
  return { kind: 'json', data: item(served, r), meta: null, etagKey: `/v1/users/${wallet}/positions/${vaultId}` };
}

type ActivityKey = [number, number, number, number, number];
const keyOf = (t: EventTable, i: number): ActivityKey => [t.ts[i]!, t.chain_id[i]!, t.block_number[i]!, t.log_index[i]!, t.sub_index[i]!];
function cmpKey(a: ActivityKey, b: ActivityKey): number {
  for (let i = 0; i < 5; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

export function activity(ctx: RouteContext): Body {
  const served = ready(ctx);
  const wallet = parseWallet(ctx.params.wallet_address!);
  const q = parseQuery('users.activity', ctx.query);
  const vaultFilter = q.vault_id === undefined ? null : parseVaultId(q.vault_id);
  const route = `/v1/users/${wallet}/activity`;
  const filters = { vault_id: vaultFilter ?? '', include_hidden: q.include_hidden };
  const after = q.next === undefined ? null : (ctx.cursors.decode(q.next, route, filters, q.order) as ActivityKey);
  const { world } = served.snapshot;
  const t = world.events;
  const x = world.walletIndex;
  const w = walletOf(world, wallet);
  const lo = w < 0 ? 0 : x.activityStart[w]!;
  const n = w < 0 ? 0 : x.activityStart[w + 1]! - lo;
  const out: ActivityRow[] = [];
  let last = -1;
  let more = false;
  for (let k = 0; k < n; k++) {
    const i = x.activity[lo + (q.order === 'asc' ? k : n - 1 - k)]!;
    const vaultId = vaultIdOf(t, i);
    if (vaultFilter !== null && vaultId !== vaultFilter) continue;
    const v = world.vaults.get(vaultId);
    // A named vault's rows come whatever include_hidden says: the real client's history and
    // settlement helpers cannot send it (DESIGN §5.2). Disabled vaults never show.
    if (!v || v.visibility === 'disabled' || (v.visibility === 'hidden' && !q.include_hidden && vaultFilter === null)) continue;
    if (after !== null) {
      const c = cmpKey(keyOf(t, i), after);
      if (q.order === 'asc' ? c <= 0 : c >= 0) continue;
    }
    if (out.length === q.limit) {
      more = true;
      break;
    }
    const pctx = positionContext(world, vaultId);
    if (!pctx) continue;
    out.push(activityRowAt(t, i, pctx));
    last = i;
  }
  return {
    kind: 'json',
    data: out,
    meta: {
      count: out.length,
      limit: q.limit,
      next_cursor: more && last >= 0 ? ctx.cursors.encode(route, filters, q.order, keyOf(t, last)) : null,
      partial_errors: null,
      start: null,
      end: null,
    },
    etagKey: `${route}|${vaultFilter}|${q.include_hidden}|${q.order}|${after?.join(',')}|${q.limit}`,
  };
}
