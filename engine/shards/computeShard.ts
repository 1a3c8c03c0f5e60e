// One shard of a sharded full recompute (issue #39, DESIGN §10): the series kernels of the
// vaults whose id hashes to this shard, and the position items of the wallets whose address
// does (with the series of the vaults those positions are in, which their replay values them
// at). The results are the exact bytes an unsharded publish computes for them: the merge
// (applyShards.ts) puts them into the world it loads and publishes that.
import type { World } from '../../model/world.js';
import type { ShardPositionRow, ShardSeriesRow } from '../../store/parquetFiles.js';
import type { SeriesCompute } from '../engine.js';
import { computePositions, positionsInput, positionsShared, TASK_POSITIONS, type PositionsOutput } from '../positions/positionItems.js';
import { shardOf, type ShardSpec } from './shardOf.js';

export interface ShardResult {
  series: ShardSeriesRow[];
  positions: ShardPositionRow[];
  /** vaults whose series were computed (this shard's and those its positions are in) */
  computedVaults: number;
}

/** The first `n` bytes of `a`, copied (one memcpy), off the series' shared memory. */
const copyBytes = (a: ArrayBufferView, n: number) => new Uint8Array(a.buffer, a.byteOffset, n).slice();

/** Compute shard `shard` of `world` (loaded as a publish loads it, series not yet computed). */
export async function computeShard(world: World, compute: SeriesCompute, shard: ShardSpec): Promise<ShardResult> {
  const x = world.walletIndex;
  const wallets = world.events.dict.wallets.values;
  const vaultIds = world.events.dict.vaults.values;
  const mine: number[] = [];
  const walletMine = new Map<number, boolean>();
  for (let p = 0; p < x.positions; p++) {
    const w = x.posWallet[p]!;
    let m = walletMine.get(w);
    if (m === undefined) walletMine.set(w, (m = shardOf(wallets[w]!, shard.count) === shard.index));
    if (m) mine.push(p);
  }
  const ownVaults = [...world.series.keys()].filter((id) => shardOf(id, shard.count) === shard.index);
  const needed = new Set(ownVaults);
  for (const p of mine) needed.add(vaultIds[x.posVault[p]!]!);
  const work = [...world.series.values()].filter((s) => needed.has(s.vault_id)).map((series) => ({ series, from: 0 }));
  await compute.run(work);

  const series: ShardSeriesRow[] = ownVaults.map((id) => {
    const s = world.series.get(id)!;
    return { vault_id: id, length: s.length, unit_price_f: copyBytes(s.unit_price_f, s.length * 8), unit_price: copyBytes(s.unit_price.words, s.length * 16) };
  });

  const list = Int32Array.from(mine);
  let outputs: PositionsOutput[];
  if (list.length === 0) outputs = [];
  else if (compute.positions === null || list.length < TASK_POSITIONS) outputs = [computePositions(positionsInput(world, list, false, true))];
  else {
    const shared = positionsShared(world, true);
    const run = compute.positions;
    const tasks = Math.ceil(list.length / TASK_POSITIONS);
    const cut = (k: number) => Math.round((k * list.length) / tasks);
    outputs = await Promise.all(Array.from({ length: tasks }, (_, k) => run(positionsInput(world, list.slice(cut(k), cut(k + 1)), false, true, shared))));
  }
  const positions: ShardPositionRow[] = [];
  for (const o of outputs) {
    const skipped = new Map(o.skipped);
    o.list.forEach((p, j) => {
      const sk = skipped.get(p);
      positions.push({
        position: p,
        wallet: wallets[x.posWallet[p]!]!,
        vault_id: vaultIds[x.posVault[p]!]!,
        flags: o.flags[j]!,
        item: o.json.subarray(o.offsets[j]!, o.offsets[j + 1]!),
        returns: o.returns ? o.returns.json.subarray(o.returns.offsets[j]!, o.returns.offsets[j + 1]!) : null,
        skipped_rows: sk ? sk.rows : null,
        skipped_message: sk ? sk.message : null,
      });
    });
  }
  return { series, positions, computedVaults: work.length };
}
