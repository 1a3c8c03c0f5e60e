// /v1/users/{wallet}/positions, /positions/{vault_id}, /positions/{vault_id}/timeseries and
// /activity (seed; DESIGN §4.4, §4.6, §4.8, §5.2). Positions come as the items the engine
// computed at publish (engine/positions/positionItems.ts, on the compute pool): a request only
// picks and joins their bytes; activity rows are formatted from the event columns.
import { activityRowAt, type ActivityRow } from '../../engine/publish/door.js';
import { ENABLED, HIDDEN, itemBytes, OPEN, SKIPPED, VALUED, walletOf } from '../../engine/publish/door.js';
import { positionContext } from '../../engine/publish/walletIndex.js';
import type { PartialError } from '../../engine/publish/door.js';
import type { World } from '../../model/world.js';
import { vaultIdOf, type EventTable, type RowSlice } from '../../model/events.js';
import { parseQuery, parseVaultId, parseWallet } from '../params.js';
import type { Body } from '../reply.js';
import type { Served } from '../handle.js';
import { notFound, ready, type RouteContext } from './context.js';

const COMMA = Buffer.from(',');

/** The snapshot's position items (computed at publish; every served snapshot has them). */
function itemsOf(world: World) {
  const items = world.positionItems;
  if (!items) throw new Error('a snapshot was published without its position items');
  return items;
}

export function positionsList(ctx: RouteContext): Body {
  const served = ready(ctx);
  const wallet = parseWallet(ctx.params.wallet_address!);
  const q = parseQuery('users.positions', ctx.query);
  const route = `/v1/users/${wallet}/positions`;
  const filters = { include_hidden: q.include_hidden };
  const after = q.next === undefined ? 0 : (ctx.cursors.decode(q.next, route, filters, 'asc') as number);
  const { world } = served.snapshot;
  const items = itemsOf(world);
  const x = world.walletIndex;
  const vaults = world.events.dict.vaults.values;
  const w = walletOf(world, wallet);
  const partial: PartialError[] = [];
  const parts: Buffer[] = [];
  let count = 0;
  let lastId: number | undefined;
  let more = false;
  const end = w < 0 ? 0 : x.walletPosStart[w + 1]!;
  for (let k = w < 0 ? 0 : x.walletPosStart[w]!; k < end; k++) {
    const p = x.walletPos[k]!;
    const f = items.flags[p]!;
    if (p + 1 <= after || !(f & ENABLED)) continue;
    if (!q.include_hidden && f & HIDDEN) continue;
    if (!(f & VALUED)) {
      partial.push({
        code: 'POSITION_NOT_VALUED',
        message: 'the vault has no snapshot yet, so the position cannot be valued',
        resource_id: vaults[x.posVault[p]!]!,
      });
      continue;
    }
    if (!(f & OPEN)) continue;
    if (count === q.limit) {
      more = true;
      break;
    }
    if (f & SKIPPED) partial.push({ code: 'CORRUPT_ROWS_SKIPPED', message: items.skipped.get(p)!.message, resource_id: vaults[x.posVault[p]!]! });
    if (count > 0) parts.push(COMMA);
    parts.push(itemBytes(items, p));
    count++;
    lastId = p + 1;
  }
  return {
    kind: 'json',
    data: null,
    dataItems: parts,
    meta: {
      count,
      limit: q.limit,
      next_cursor: more && lastId !== undefined ? ctx.cursors.encode(route, filters, 'asc', lastId) : null,
      partial_errors: partial.length > 0 ? partial : null,
      start: null,
      end: null,
    },
    etagKey: `${route}|${q.include_hidden}|${after}|${q.limit}`,
  };
}

/** The wallet's position in an enabled vault (its index and rows), or 404. */
export function findPosition(served: Served, wallet: string, vaultId: string): { p: number; rows: RowSlice } {
  const { world } = served.snapshot;
  const x = world.walletIndex;
  const w = walletOf(world, wallet);
  const v = world.events.dict.vaults.find(vaultId);
  const items = itemsOf(world);
  if (w >= 0 && v >= 0) {
    for (let k = x.walletPosStart[w]!; k < x.walletPosStart[w + 1]!; k++) {
      const p = x.walletPos[k]!;
      if (x.posVault[p] === v && items.flags[p]! & ENABLED)
        return { p, rows: { table: world.events, idx: x.rows, from: x.rowStart[p]!, to: x.rowStart[p + 1]! } };
    }
  }
  throw notFound(`wallet ${wallet} has no position in vault "${vaultId}"`);
}

export function positionGet(ctx: RouteContext): Body {
  const served = ready(ctx);
  const wallet = parseWallet(ctx.params.wallet_address!);
  const vaultId = parseVaultId(ctx.params.vault_id!);
  const { p } = findPosition(served, wallet, vaultId);
  const items = itemsOf(served.snapshot.world);
  const f = items.flags[p]!;
  if (!(f & VALUED) || !(f & OPEN)) throw notFound(`wallet ${wallet} has no open position in vault "${vaultId}" (fully exited positions are not served)`);
  // one item, outside a list: its JSON is parsed back (exact: it was made by JSON.stringify)
  return { kind: 'json', data: JSON.parse(itemBytes(items, p).toString('utf8')), meta: null, etagKey: `/v1/users/${wallet}/positions/${vaultId}` };
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
