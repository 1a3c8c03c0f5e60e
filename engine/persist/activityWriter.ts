// Writes the computed part of the activity rows (DESIGN §3, §4.6): each raw row's signed share
// and asset deltas, as base units, into activity_deltas; the `activity` view joins the raw
// columns back from vault_events and formats the deltas when read (store/migrations.ts v5).
// Replaced whole on every recompute.
import type { World } from '../../model/world.js';
import { rowDeltas } from '../activity/activityRows.js';
import { foreignTokens } from '../positions/replayPosition.js';
import { positionContext } from '../publish/walletIndex.js';
import { vaultIdOf } from '../../model/events.js';
import { COLUMN_CHUNK_ROWS, createColumnAppender, setInt64 } from '../../store/columnAppender.js';
import { clearActivityDeltas } from '../../store/derived.js';
import type { Store } from '../../store/store.js';

const MASK64 = (1n << 64n) - 1n;
const fits = (x: bigint) => x >= -(1n << 127n) && x < 1n << 127n;

/**
 * Replace activity_deltas with the deltas of every raw row whose vault is registered (the rest
 * have no numeraire to value them in, and no activity row), straight from the event table's
 * columns into appender chunks: the keys as numbers, the deltas as 128-bit words.
 */
export async function writeActivity(store: Store, world: World, signal?: AbortSignal): Promise<number> {
  await clearActivityDeltas(store);
  return appendActivity(store, world, null, signal);
}

/**
 * writeActivity without the clear, over the rows `only` lists (all rows when null): a recompute
 * in passes writes the rows of each pass's vaults (a row whose vault has no series in `world`
 * is skipped, as an unregistered vault's is).
 */
export async function appendActivity(store: Store, world: World, only: Int32Array | null, signal?: AbortSignal): Promise<number> {
  const out = await createColumnAppender(store, 'activity_deltas', ['bigint', 'bigint', 'integer', 'integer', 'integer', 'hugeint', 'hugeint']);
  const t = world.events;
  const contexts: (ReturnType<typeof positionContext> | undefined)[] = [];
  const foreign: (((token: number) => boolean) | undefined)[] = [];
  const total = only ? only.length : t.length;
  let k = 0;
  try {
    while (k < total) {
      // a stop ends the write between batches; the caller's transaction then rolls it back
      signal?.throwIfAborted();
      out.batch(Math.min(COLUMN_CHUNK_ROWS, total - k), (b) => {
        const [chain, block, log, sub, dec] = [b.int64Halves(0), b.int64Halves(1), b.int32(2), b.int32(3), b.int32(4)];
        const shares = b.hugeint(5);
        const assets = b.hugeint(6);
        const sw = new DataView(shares.buffer, shares.byteOffset, shares.byteLength);
        const aw = new DataView(assets.buffer, assets.byteOffset, assets.byteLength);
        let n = 0;
        // a batch takes up to COLUMN_CHUNK_ROWS rows that have a context (the rest are skipped)
        for (; k < total && n < COLUMN_CHUNK_ROWS; k++) {
          const next = only ? only[k]! : k;
          const v = t.vault[next]!;
          let ctx = contexts[v];
          if (ctx === undefined) {
            contexts[v] = ctx = positionContext(world, vaultIdOf(t, next));
            if (ctx) foreign[v] = foreignTokens(t, ctx);
          }
          if (!ctx) continue;
          const d = rowDeltas(t, next, ctx, foreign[v]!(t.token[next]!));
          setInt64(chain, n, t.chain_id[next]!);
          setInt64(block, n, t.block_number[next]!);
          log[n] = t.log_index[next]!;
          sub[n] = t.sub_index[next]!;
          dec[n] = ctx.numeraire.decimals;
          // a delta outside HUGEINT (only from absurd raw values) is NULL, never a wrapped number
          if (fits(d.shares)) {
            sw.setBigUint64(n * 16, d.shares & MASK64, true);
            sw.setBigInt64(n * 16 + 8, d.shares >> 64n, true);
          } else b.setNull(5, n);
          if (fits(d.assets)) {
            aw.setBigUint64(n * 16, d.assets & MASK64, true);
            aw.setBigInt64(n * 16 + 8, d.assets >> 64n, true);
          } else b.setNull(6, n);
          n++;
        }
        return n;
      });
    }
  } finally {
    out.close();
  }
  return out.rows;
}
