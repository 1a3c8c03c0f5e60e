// The history views of the past answer from (DESIGN §11.6) and every async request's terms
// (§11.8), read as columns: a row object per allocation row made this the slowest read of a
// cold start. A string repeated across rows — a vault, a category, an allocation target — is
// read and parsed once, by its number in the stream.
import type { World } from '../../model/world.js';
import { requestTermsKey } from '../../model/world.js';
import { trimZeros } from '../../model/format/numbers.js';
import { streamAllocationHistory } from '../../store/allocations.js';
import { streamRequestTerms } from '../../store/requestTerms.js';
import type { Store } from '../../store/store.js';
import { streamTvlReadings } from '../../store/tvlSourceValues.js';
import { float64Items, int32Items } from './vectorMemory.js';

type History = NonNullable<World['history']>;
type AllocationSnapshot = History['allocations'] extends Map<string, (infer S)[]> ? S : never;

/** The allocation snapshots and external TVL readings views of the past read (DESIGN §11.6). */
export async function loadHistory(store: Store, signal?: AbortSignal): Promise<History> {
  return { allocations: await loadAllocationHistory(store, signal), tvlValues: await loadTvlReadings(store, signal) };
}

/**
 * Per vault, its allocation snapshots oldest first. A target's JSON is parsed once and its
 * object shared by every row naming it: the views only serialize it.
 */
async function loadAllocationHistory(store: Store, signal?: AbortSignal): Promise<History['allocations']> {
  const out: History['allocations'] = new Map();
  const vaults: AllocationSnapshot[][] = [];
  const categories: string[] = [];
  const targets: Record<string, unknown>[] = [];
  await streamAllocationHistory(
    store,
    (chunk) => {
      const n = chunk.rowCount;
      const col = (c: number) => chunk.getColumnVector(c);
      const vault = int32Items(col(0));
      const asOf = float64Items(col(2));
      const category = int32Items(col(3));
      const target = int32Items(col(5));
      const allocation = float64Items(col(7));
      const amount = float64Items(col(8));
      const amountUsd = col(9);
      for (let j = 0; j < n; j++) {
        const v = vault[j]!;
        let snaps = vaults[v];
        if (snaps === undefined) out.set(col(1).getItem(j) as string, (snaps = vaults[v] = []));
        const c = category[j]!;
        if (categories[c] === undefined) categories[c] = col(4).getItem(j) as string;
        const k = target[j]!;
        if (targets[k] === undefined) targets[k] = JSON.parse(col(6).getItem(j) as string) as Record<string, unknown>;
        const t = asOf[j]!;
        let last = snaps.at(-1);
        if (!last || last.as_of !== t) snaps.push((last = { as_of: t, items: [] }));
        last.items.push({
          category: categories[c]!,
          target: targets[k]!,
          allocation: allocation[j]!,
          amount: amount[j]!,
          amount_usd: amountUsd.getItem(j) as number | null,
        });
      }
    },
    signal,
  );
  return out;
}

/** Per external TVL source, its readings oldest first (a value's trailing zeros trimmed, as the latest state's are). */
async function loadTvlReadings(store: Store, signal?: AbortSignal): Promise<History['tvlValues']> {
  const out: History['tvlValues'] = new Map();
  const sources: { ts: number; usd: string | null; error: string | null }[][] = [];
  await streamTvlReadings(
    store,
    (chunk) => {
      const n = chunk.rowCount;
      const col = (c: number) => chunk.getColumnVector(c);
      const source = int32Items(col(0));
      const ts = float64Items(col(2));
      for (let j = 0; j < n; j++) {
        const s = source[j]!;
        let list = sources[s];
        if (list === undefined) out.set(col(1).getItem(j) as string, (list = sources[s] = []));
        const usd = col(3).getItem(j) as string | null;
        list.push({ ts: ts[j]!, usd: usd === null ? null : trimZeros(usd), error: col(4).getItem(j) as string | null });
      }
    },
    signal,
  );
  return out;
}

/** Every async request's terms (DESIGN §11.8): one small row per request. */
export async function loadRequestTerms(store: Store, signal?: AbortSignal): Promise<NonNullable<World['requestTerms']>> {
  const out: NonNullable<World['requestTerms']> = new Map();
  await streamRequestTerms(
    store,
    (chunk) => {
      const n = chunk.rowCount;
      const vault = chunk.getColumnVector(0);
      const hash = chunk.getColumnVector(1);
      const deadline = chunk.getColumnVector(2);
      const tip = chunk.getColumnVector(3);
      for (let j = 0; j < n; j++) {
        const t = tip.getItem(j) as string | null;
        out.set(requestTermsKey(vault.getItem(j) as string, hash.getItem(j) as string), {
          deadline: deadline.getItem(j) as number | null,
          solver_tip: t === null ? null : BigInt(t),
        });
      }
    },
    signal,
  );
  return out;
}
