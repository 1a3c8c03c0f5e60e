// What a reader of the numbers should know first: TVL sources whose last refresh failed
// (`meta.partial_errors` of /v1/tvl), sources far behind the others, and chains whose indexing
// lags or has stalled (/health/chains). Pure: home renders the list, the tests read it.
import type { ChainHealth, PartialResponseError, Tvl } from '../client/types.gen.js';
import { age, timestamp, toMs } from './format.js';

export interface DataWarning {
  /** `source:<id>`, `price:<id>`, `chains:<freshness>`, or `error:<code>` */
  id: string;
  text: string;
  /** the server's own words, for a title */
  detail?: string;
}

/** A source this far behind the newest one is reported as stale even when it did not fail. */
export const STALE_SOURCE_SECONDS = 24 * 3600;

export interface WarningInput {
  tvl: Tvl;
  partialErrors: readonly PartialResponseError[] | null | undefined;
  chains: readonly ChainHealth[] | null;
  chainName: (id: number) => string;
  nowMs: number;
}

export function dataWarnings({ tvl, partialErrors, chains, chainName, nowMs }: WarningInput): DataWarning[] {
  const out: DataWarning[] = [];
  const rows = [...tvl.totals, ...(tvl.breakdown ?? [])];
  const label = (id: string | null) => rows.find((r) => r.id === id)?.label ?? id ?? 'a source';
  const updated = (id: string | null) => rows.find((r) => r.id === id)?.updated_at ?? null;
  const since = (at: string | null) => (at === null ? 'no value yet' : `its value from ${timestamp(at)} (${age(at, nowMs)})`);
  const failed = new Set<string>();
  for (const e of partialErrors ?? []) {
    if (e.code === 'TVL_SOURCE_FAILED') {
      failed.add(e.resource_id ?? '');
      out.push({
        id: `source:${e.resource_id}`,
        text: `${label(e.resource_id)}: its last refresh failed; showing ${since(updated(e.resource_id))}.`,
        detail: e.message,
      });
    } else if (e.code === 'PRICE_PROVIDER_FAILED') {
      out.push({
        id: `price:${e.resource_id}`,
        text: `Price provider ${e.resource_id ?? ''} failed its last round: USD values may be out of date.`,
        detail: e.message,
      });
    } else out.push({ id: `error:${e.code}`, text: `${e.code}: ${e.message}` });
  }
  // a source far behind the newest, though nothing reported it failing
  const newest = Math.max(...tvl.totals.map((t) => (t.updated_at === null ? -Infinity : toMs(t.updated_at))));
  for (const t of tvl.totals) {
    if (failed.has(t.id) || t.updated_at === null || !Number.isFinite(newest)) continue;
    if (newest - toMs(t.updated_at) > STALE_SOURCE_SECONDS * 1000) {
      out.push({ id: `source:${t.id}`, text: `${t.label} has not updated since ${timestamp(t.updated_at)} (${age(t.updated_at, nowMs)}).` });
    }
  }
  for (const freshness of ['stalled', 'lagging'] as const) {
    const hit = (chains ?? []).filter((c) => c.freshness === freshness);
    if (hit.length === 0) continue;
    const list = hit.map(
      (c) => `${chainName(c.chain_id)} (${c.latest_timestamp === null ? 'no block read yet' : `last block ${age(c.latest_timestamp, nowMs)}`})`,
    );
    out.push({
      id: `chains:${freshness}`,
      text: `Indexing ${freshness === 'stalled' ? 'has stalled' : 'lags'} on ${list.join(', ')}: figures from ${hit.length === 1 ? 'this chain' : 'these chains'} may be out of date.`,
    });
  }
  return out;
}
