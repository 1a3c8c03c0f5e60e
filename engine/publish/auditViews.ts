// The read model's opt-in audit answers (DESIGN §11.1–§11.5): APY provenance, data quality,
// FIFO cost basis, lots and returns. Every method reads the snapshot's data as it is (series,
// prices, rows, position items), so a view of another instant can call the same functions.
// Per-position work runs in-thread when small, else on the compute pool, and its results stay
// in a bounded cache for the snapshot's life.
import { VaultdError } from '../../common/errors.js';
import { isoSeconds } from '../../model/format/numbers.js';
import { eventRowId, txHash } from '../../model/events.js';
import { priceKey } from '../../model/world.js';
import { apyProvenance, type ApyWindowProvenance, provenanceIndex } from '../audit/apyProvenance.js';
import { pointQuality, staleReason } from '../audit/pointQuality.js';
import { type LotOut, lotJson } from '../audit/positionAudit.js';
import { computePositionAudit, type PositionAuditInput, type PositionAuditOutput } from '../audit/positionAuditTask.js';
import { vaultTimeseriesPoint } from '../metrics/vaultPoint.js';
import type { VaultDetail } from '../metrics/vaultDetail.js';
import { eventColumns, itemBytes, vaultInputOf } from '../positions/positionItems.js';
import { windowPoints } from '../series/rollups.js';
import type { Snapshot } from './buildSnapshot.js';

/** What `include` asked for (DESIGN §11.1). */
export interface Include {
  provenance: boolean;
  quality: boolean;
  returns: boolean;
}

export type LotState = 'open' | 'closed' | 'all';

/** Positions audited in-thread at most this many rows; longer ones go to the pool. */
export const IN_THREAD_AUDIT_ROWS = 256;
/** Audits kept per snapshot, in estimated bytes, least recently used out first. */
export const AUDIT_CACHE_BYTES = 16 * 1024 * 1024;
/** Audits being computed on the pool at once, at most; more get 503 NOT_READY. */
export const AUDITS_IN_FLIGHT = 16;
/** Points of a quality window formatted in one turn of the event loop. */
export const IN_THREAD_QUALITY_POINTS = 256;

const COMMA = Buffer.from(',');
const RETURNS_KEY = Buffer.from(',"returns":');
const CLOSE = Buffer.from('}');

/** Position p's returns JSON (a view, no copy). */
function returnsBytes(r: { json: Uint8Array; offsets: Int32Array }, p: number): Buffer {
  const at = r.offsets[p]!;
  return Buffer.from(r.json.buffer, r.json.byteOffset + at, r.offsets[p + 1]! - at);
}

/** A found position: its index and its rows in the wallet index. */
export interface FoundPosition {
  p: number;
  rows: { from: number; to: number };
}

export function createAuditViews(
  snapshot: Snapshot,
  run: ((task: PositionAuditInput) => Promise<PositionAuditOutput>) | undefined,
  findPosition: (wallet: string, vaultId: string) => FoundPosition | null,
) {
  const { world } = snapshot;
  const details = new Map<string, string>();
  const audits = createAuditCache();

  const pricesOf = (vaultId: string) => {
    const v = world.vaults.get(vaultId);
    return v ? world.prices.get(priceKey(v.chain_id, v.numeraire_address)) : undefined;
  };

  /** The vault's detail JSON with the included blocks in its metrics (remembered per snapshot). */
  function detailJson(d: VaultDetail, inc: Pick<Include, 'provenance' | 'quality'>): string {
    const key = `${d.vault_id}|${inc.provenance}|${inc.quality}`;
    let text = details.get(key);
    if (text === undefined) {
      const s = world.series.get(d.vault_id);
      const prices = pricesOf(d.vault_id);
      const last = s && s.length > 0 ? s.length - 1 : -1;
      const metrics: Record<string, unknown> = { ...d.metrics };
      if (inc.provenance) metrics.apy_provenance = last >= 0 ? apyProvenance(s!, last) : null;
      if (inc.quality) {
        // judged at the snapshot's data time: the newest snapshot hour of any vault
        metrics.quality = last >= 0 ? pointQuality(s!, last, Math.max(world.end, s!.ts[last]!), prices, s!.ts[last]!) : null;
        const v = world.vaults.get(d.vault_id)!;
        metrics.stale_reason = staleReason(s, prices, world.chainHeads.get(v.chain_id), world.end);
      }
      details.set(key, (text = JSON.stringify({ ...d, metrics })));
    }
    return text;
  }

  /** A position's audit: kept, computed in-thread (short), or on the pool. */
  function audit(wallet: string, vaultId: string, found: FoundPosition): PositionAuditOutput | Promise<PositionAuditOutput> | null {
    const kept = audits.kept(found.p);
    if (kept) return kept;
    const vault = vaultInputOf(world, vaultId);
    if (!vault) return null;
    const task: PositionAuditInput = {
      kind: 'positionAudit',
      events: eventColumns(world),
      rows: world.walletIndex.rows,
      from: found.rows.from,
      to: found.rows.to,
      vault,
      wallet,
      // returns are made at publish, with the items (positionItems.ts)
      parts: { fifo: true, lots: true, returns: false },
    };
    if (!run || found.rows.to - found.rows.from <= IN_THREAD_AUDIT_ROWS) {
      const out = computePositionAudit(task);
      audits.put(found.p, out);
      return out;
    }
    return audits.get(found.p, () => run(task));
  }

  /** The items of `positions` with the returns made (`returns`) and/or FIFO items audited (`fifo`). */
  function positionItemsWith(
    wallet: string,
    positions: readonly { p: number; vaultId: string }[],
    opts: { fifo: boolean; returns: boolean },
  ): Buffer[] | Promise<Buffer[]> {
    const items = world.positionItems!;
    const x = world.walletIndex;
    const returns = items.returns;
    if (opts.returns && !returns && positions.length > 0) throw new Error('a snapshot was published without its position returns');
    const build = (done: (PositionAuditOutput | null)[] | null) =>
      positions.flatMap(({ p }, k) => {
        const fifoItem = done?.[k]?.fifoItem;
        const base = fifoItem ? Buffer.from(fifoItem) : itemBytes(items, p);
        // `,"returns":{…}` spliced before the item's closing brace
        const item = opts.returns ? Buffer.concat([base.subarray(0, base.length - 1), RETURNS_KEY, returnsBytes(returns!, p), CLOSE]) : base;
        return k === 0 ? [item] : [COMMA, item];
      });
    if (!opts.fifo) return build(null);
    const outs = positions.map(({ p, vaultId }) => audit(wallet, vaultId, { p, rows: { from: x.rowStart[p]!, to: x.rowStart[p + 1]! } }));
    if (outs.every((o) => !(o instanceof Promise))) return build(outs as (PositionAuditOutput | null)[]);
    return Promise.all(outs).then(build);
  }

  return {
    /** APY provenance at the as-of snapshot of `at` (default the latest); a string saying why when there is none. */
    vaultApy(vaultId: string, at?: number): { vault_id: string; at: string; windows: ApyWindowProvenance[] } | { missing: string } {
      const s = world.series.get(vaultId);
      const i = s ? provenanceIndex(s, at) : -1;
      if (!s || i < 0)
        return { missing: at === undefined ? `vault "${vaultId}" has no snapshot yet` : `vault "${vaultId}" has no snapshot at or before ${isoSeconds(at)}` };
      return { vault_id: vaultId, at: isoSeconds(at ?? s.ts[i]!), windows: apyProvenance(s, i) };
    },

    /** The vault's detail with included blocks; undefined for an unknown or disabled vault. */
    vaultDetail(vaultId: string, inc: Pick<Include, 'provenance' | 'quality'>): Buffer | undefined {
      const d = snapshot.details.get(vaultId);
      return d ? Buffer.from(detailJson(d, inc)) : undefined;
    },

    /** The vault list's items [from, from + limit) with quality blocks. */
    vaultItems(list: readonly VaultDetail[], from: number, limit: number): Buffer[] {
      const slice = list.slice(from, from + limit);
      if (slice.length === 0) return [];
      return [Buffer.from(slice.map((d) => detailJson(d, { provenance: false, quality: true })).join(','))];
    },

    /** A vault window's points with quality (DESIGN §11.3); a long one is formatted a slice per turn of the loop. */
    vaultQualityPoints(
      vaultId: string,
      q: { granularity: 'hour' | 'day' | 'week' | 'month'; start: number; end: number; order: 'asc' | 'desc'; limit: number; after?: number },
    ): { count: number; nextKey: number | null; parts: Buffer[] | Promise<Buffer[]> } {
      const s = world.series.get(vaultId);
      if (!s || s.length === 0) return { count: 0, nextKey: null, parts: [] };
      const prices = pricesOf(vaultId);
      const pts = windowPoints(s, q.granularity, { start: q.start, end: q.end, order: q.order, limit: q.limit, after: q.after });
      const format = (from: number, to: number) => {
        let text = '';
        for (let k = from; k < to; k++) {
          const i = pts.indices[k]!;
          const at = pts.instants[k]!;
          text += `${k === 0 ? '' : ','}${JSON.stringify({ ...vaultTimeseriesPoint(s, i, at, prices), quality: pointQuality(s, i, at, prices, s.ts[i]!) })}`;
        }
        return Buffer.from(text);
      };
      const n = pts.instants.length;
      const lastInstant = pts.instants.at(-1);
      const nextKey = pts.hasMore && lastInstant !== undefined ? lastInstant : null;
      if (n <= IN_THREAD_QUALITY_POINTS) return { count: n, nextKey, parts: n === 0 ? [] : [format(0, n)] };
      const parts = (async () => {
        const out: Buffer[] = [];
        for (let from = 0; from < n; from += IN_THREAD_QUALITY_POINTS) {
          if (from > 0) await new Promise((resume) => setImmediate(resume));
          out.push(format(from, Math.min(n, from + IN_THREAD_QUALITY_POINTS)));
        }
        return out;
      })();
      return { count: n, nextKey, parts };
    },

    /**
     * Position items with FIFO cost basis and/or returns (DESIGN §11.4, §11.5): the average item
     * (or the FIFO one, audited on request) with the `returns` made at publish added after `metrics`.
     */
    positionItems(
      wallet: string,
      positions: readonly { p: number; vaultId: string }[],
      opts: { fifo: boolean; returns: boolean },
    ): Buffer[] | Promise<Buffer[]> {
      const items = world.positionItems!;
      // a server's first publish serves before its returns are made (positionItems.ts deferReturns): wait for them
      if (opts.returns && !items.returns && items.returnsLater && positions.length > 0)
        return items.returnsLater().then(() => positionItemsWith(wallet, positions, opts));
      return positionItemsWith(wallet, positions, opts);
    },

    /** The position's FIFO lots (DESIGN §11.4), a page in acquisition order; a string saying why when there are none to show. */
    lots(
      wallet: string,
      vaultId: string,
      q: { state: LotState; after: number; limit: number },
    ): { missing: string } | { count: number; nextKey: number | null; parts: Buffer[] } | Promise<{ count: number; nextKey: number | null; parts: Buffer[] }> {
      const found = findPosition(wallet, vaultId);
      if (!found) return { missing: `wallet ${wallet} has no position in vault "${vaultId}"` };
      const s = world.series.get(vaultId);
      if (!s || s.length === 0) return { missing: `vault "${vaultId}" has no history yet` };
      const t = world.events;
      const page = (out: PositionAuditOutput | null) => {
        const lots: LotOut[] = out?.lots ?? [];
        const picked: string[] = [];
        let nextKey: number | null = null;
        for (let k = q.after; k < lots.length; k++) {
          const lot = lots[k]!;
          const open = lot.shares_open !== '0';
          if (q.state === 'open' ? !open : q.state === 'closed' ? open : false) continue;
          if (picked.length === q.limit) {
            nextKey = k;
            break;
          }
          picked.push(JSON.stringify(lotJson(lot, t, (i) => ({ tx_hash: txHash(t, i), lot_id: eventRowId(t, i) }))));
        }
        return { count: picked.length, nextKey, parts: picked.length === 0 ? [] : [Buffer.from(picked.join(','))] };
      };
      const out = audit(wallet, vaultId, found);
      return out instanceof Promise ? out.then(page) : page(out);
    },
  };
}

export type AuditViews = ReturnType<typeof createAuditViews>;

/** Finished audits by position, within AUDIT_CACHE_BYTES (estimated); running ones shared; past AUDITS_IN_FLIGHT refused. */
function createAuditCache() {
  const done = new Map<number, { out: PositionAuditOutput; bytes: number }>();
  const running = new Map<number, Promise<PositionAuditOutput>>();
  let bytes = 0;
  const sizeOf = (out: PositionAuditOutput) => (out.fifoItem?.length ?? 0) + (out.returns?.length ?? 0) + (out.lots?.length ?? 0) * 600;
  const put = (key: number, out: PositionAuditOutput) => {
    const size = sizeOf(out);
    if (size > AUDIT_CACHE_BYTES / 4) return;
    done.set(key, { out, bytes: size });
    bytes += size;
    for (const [k, v] of done) {
      if (bytes <= AUDIT_CACHE_BYTES) break;
      done.delete(k);
      bytes -= v.bytes;
    }
  };
  return {
    kept(key: number): PositionAuditOutput | undefined {
      const hit = done.get(key);
      if (!hit) return undefined;
      done.delete(key);
      done.set(key, hit);
      return hit.out;
    },
    put,
    get(key: number, compute: () => Promise<PositionAuditOutput>): Promise<PositionAuditOutput> {
      const pending = running.get(key);
      if (pending) return pending;
      if (running.size >= AUDITS_IN_FLIGHT) throw new VaultdError('NOT_READY', `${running.size} position audits are being computed now; retry in a second`);
      const task = compute().then(
        (out) => {
          running.delete(key);
          put(key, out);
          return out;
        },
        (err) => {
          running.delete(key);
          throw err;
        },
      );
      running.set(key, task);
      return task;
    },
  };
}
