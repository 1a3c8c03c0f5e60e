// One vault's answers as of an instant (DESIGN §11.6) without a snapshot of the whole world: a
// binary search of the instant in the vault's resident series gives the snapshot index i that a
// world cut at the instant would end at, and the vault's detail is a function of (vault, i)
// alone (its metrics read snapshots ≤ i and prices at ts[i] ≤ the instant). So the metrics' JSON
// is kept by (vault, i), made a block of snapshots at a time, and shared by every instant of
// that hour; only the envelope (meta.as_of) is per instant. The rules are asOfView.ts's worldAt and buildSnapshot's, for one vault.
import { createHash } from 'node:crypto';
import { isoSeconds } from '../../model/format/numbers.js';
import { type AllocationItem, priceKey, type VaultSeries, type World } from '../../model/world.js';
import type { VaultRow } from '../../model/rows.js';
import { indexRegistry, vaultDefinition, vaultDetail } from '../metrics/vaultDetail.js';
import { metricsAt, type VaultMetrics } from '../metrics/vaultPoint.js';
import { createBoundedCache } from './boundedCache.js';
import { type AsOfFrame, buildAsOfPage, type Page } from './page.js';
import { asOfIndex } from '../series/asOf.js';

/** Snapshots whose metrics JSON is made at once (a block costs ~0.2 ms of the serving thread). */
export const METRICS_BLOCK = 64;
/** Blocks of metrics JSON kept per snapshot: entries and bytes. */
export const PAST_DETAILS_KEPT = 4096;
/** (~0.5 KB a snapshot: 64 MB hold ~2,000 vault-months of hourly metrics, the working set of an audit over a catalogue) */
export const PAST_DETAILS_BYTES = 64 * 1024 * 1024;

export interface PastVaults {
  /** the vault's snapshot index at `t` (−1: not listed yet), or null when unknown or disabled */
  indexAt(vaultId: string, t: number): number | null;
  /** the detail's data JSON at `t`; undefined when the vault is unknown, disabled or not listed by then */
  detail(vaultId: string, t: number): string | undefined;
  /** the detail's page at `t` echoing `asOf` (buildPageOf of detail's JSON), copied from prepared bytes; undefined as detail */
  detailPage(vaultId: string, t: number, asOf: string, frame: AsOfFrame): Page | undefined;
  definition(vaultId: string, t: number): string | undefined;
  allocations(vaultId: string, t: number): string | undefined;
  /** the slug's deployments at `t`, as the list's data JSON and count; undefined when none is listed */
  slug(slug: string, t: number): { json: string; count: number } | undefined;
  /** how many blocks of metrics JSON are kept (tests: the cache stays bounded) */
  readonly kept: number;
}

const METRICS_SLOT = '"metrics":null';

/** A vault's detail around its metrics, as text and as bytes, and the start of its pages' ETags. */
interface Frame {
  head: string;
  tail: string;
  headBytes: Buffer;
  tailBytes: Buffer;
  etagStem: string;
}

/** The metrics JSON of a block of snapshots from `from`: one buffer, each snapshot's metrics a range of it. */
interface Block {
  from: number;
  bytes: Buffer;
  offsets: Int32Array;
}

/**
 * `world`: the published (latest) world; `now`: its publish time (an allocation's as_of without
 * snapshots); `etagSeed`: the read model's content identity (ReadModel.id). A detail page's
 * body is a function of (the snapshot, the vault, the instant) alone, so its ETag names them —
 * a hash of the seed and the vault id, made once per vault, then the instant — as the wallet
 * routes' ETags do (server/reply.ts jsonEtag): readers of one publish give the same ETag.
 */
export function createPastVaults(world: World, now: number, etagSeed: string): PastVaults {
  const idx = indexRegistry(world.registry);
  const details = createBoundedCache<number, Block>({ entries: PAST_DETAILS_KEPT, bytes: PAST_DETAILS_BYTES });

  // what a request at an instant reads of a vault, found by one lookup of its id (a detail at a
  // random instant is ~7 µs of the serving thread: a lookup per part of it was a tenth of that)
  interface Listed {
    v: VaultRow;
    /** its series; undefined: no snapshots */
    s: VaultSeries | undefined;
    /** its ordinal here, the high part of its blocks' keys */
    ord: number;
    frame: Frame | null;
  }
  const records = new Map<string, Listed | null>();
  /** the vault's record; null: unknown or disabled (only the registry's vaults are remembered: ids asked at random are not) */
  const recordOf = (vaultId: string): Listed | null => {
    let r = records.get(vaultId);
    if (r === undefined) {
      const v = world.vaults.get(vaultId);
      if (!v) return null;
      r = v.visibility === 'disabled' ? null : { v, s: world.series.get(vaultId), ord: records.size, frame: null };
      records.set(vaultId, r);
    }
    return r;
  };

  /** the vault's snapshot index at t, −1 before its first one; null: unknown or disabled */
  function indexAt(vaultId: string, t: number): number | null {
    const r = recordOf(vaultId);
    if (r === null) return null;
    return r.s ? asOfIndex(r.s.ts, r.s.length, t) : -1;
  }

  // each vault's detail JSON around its metrics, serialized once (as text and bytes): only the metrics are per instant
  const frameOf = (r: Listed): Frame => {
    if (r.frame === null) {
      const text = JSON.stringify(vaultDetail(r.v, null as unknown as VaultMetrics, idx));
      // "metrics" is a key of the detail only (a string value would have its quotes escaped)
      const at = text.indexOf(METRICS_SLOT);
      const head = text.slice(0, at + METRICS_SLOT.length - 4);
      const tail = text.slice(at + METRICS_SLOT.length);
      const etagStem = `"a${createHash('sha256').update(`${etagSeed}\0${r.v.vault_id}`).digest('base64url').slice(0, 22)}.`;
      r.frame = { head, tail, headBytes: Buffer.from(head), tailBytes: Buffer.from(tail), etagStem };
    }
    return r.frame;
  };

  // The metrics JSON of every snapshot of a block of METRICS_BLOCK, made when one of them is
  // first asked for and kept by (vault ordinal, block) as numbers (a string key per request
  // costs a flatten and a hash): the vault's serialized metrics series, built as instants ask.
  // As bytes: a page per instant copies a range of them (no string joined and encoded per request).
  function blockOf(r: Listed, i: number): Block {
    const b = Math.floor(i / METRICS_BLOCK);
    const key = r.ord * 2 ** 32 + b;
    let block = details.get(key);
    if (block === undefined) {
      const s = r.s!;
      const prices = world.prices.get(priceKey(r.v.chain_id, r.v.numeraire_address));
      const from = b * METRICS_BLOCK;
      const to = Math.min(s.length, from + METRICS_BLOCK);
      const texts = new Array<string>(to - from);
      const offsets = new Int32Array(to - from + 1);
      for (let k = from; k < to; k++) {
        texts[k - from] = JSON.stringify(metricsAt(s, k, prices));
        offsets[k - from + 1] = offsets[k - from]! + Buffer.byteLength(texts[k - from]!);
      }
      block = { from, bytes: Buffer.from(texts.join('')), offsets };
      details.set(key, block, block.bytes.length + 4 * offsets.length + 64);
    }
    return block;
  }
  function detailAt(r: Listed, i: number): string {
    const block = blockOf(r, i);
    const k = i - block.from;
    const f = frameOf(r);
    return f.head + block.bytes.toString('utf8', block.offsets[k], block.offsets[k + 1]) + f.tail;
  }

  /** the vault's record and its snapshot index at t, when it is listed by then */
  const listedRow = (vaultId: string, t: number): { r: Listed; i: number } | undefined => {
    const r = recordOf(vaultId);
    if (r === null || r.s === undefined) return undefined;
    const i = asOfIndex(r.s.ts, r.s.length, t);
    return i < 0 ? undefined : { r, i };
  };

  return {
    indexAt,
    detail(vaultId, t) {
      const at = listedRow(vaultId, t);
      return at && detailAt(at.r, at.i);
    },
    detailPage(vaultId, t, asOf, frame) {
      const at = listedRow(vaultId, t);
      if (!at) return undefined;
      const block = blockOf(at.r, at.i);
      const k = at.i - block.from;
      const f = frameOf(at.r);
      const parts = [
        [f.headBytes, 0, f.headBytes.length],
        [block.bytes, block.offsets[k]!, block.offsets[k + 1]!],
        [f.tailBytes, 0, f.tailBytes.length],
      ] as const;
      return buildAsOfPage(frame, parts, asOf, `${f.etagStem}${t.toString(36)}"`);
    },
    definition(vaultId, t) {
      const at = listedRow(vaultId, t);
      return at && JSON.stringify(vaultDefinition(at.r.v));
    },
    allocations(vaultId, t) {
      const r = listedRow(vaultId, t);
      if (!r) return undefined;
      // the newest allocation snapshot at or before t (asOfView.ts allocationsAt), else the metrics' as_of
      let pick: { as_of: number; items: AllocationItem[] } | undefined;
      for (const a of world.history?.allocations.get(vaultId) ?? []) if (a.as_of <= t && (!pick || a.as_of > pick.as_of)) pick = a;
      const asOf = pick?.as_of ?? world.series.get(vaultId)?.ts[r.i] ?? now;
      return JSON.stringify({ vault_id: vaultId, as_of: isoSeconds(asOf), allocations: pick?.items ?? [] });
    },
    slug(slug, t) {
      // buildSnapshot: a slug names its group's listed deployments (the last group of that slug with any)
      let rows: VaultRow[] | undefined;
      for (const g of world.registry.groups) {
        if (g.slug !== slug) continue;
        const listed = world.registry.vaults.filter((v) => v.group_id === g.id && (indexAt(v.vault_id, t) ?? -1) >= 0);
        if (listed.length > 0) rows = listed;
      }
      if (!rows) return undefined;
      rows.sort((a, b) => b.listed_at - a.listed_at || (a.vault_id < b.vault_id ? -1 : a.vault_id > b.vault_id ? 1 : 0));
      return { json: `[${rows.map((v) => detailAt(recordOf(v.vault_id)!, indexAt(v.vault_id, t)!)).join(',')}]`, count: rows.length };
    },
    get kept() {
      return details.size;
    },
  };
}
